"""The Python package on a GPU, against PyTorch's float64 product on the same device: every
layout and transpose, batches with broadcasting, C with beta, every math, CuPy arrays, the
custom ops (torch.library.opcheck), torch.compile and CUDA graph capture of an MLP routed through
sgemm.torch.use_sgemm. Skipped, with the reason, without PyTorch or a Hopper GPU."""

import itertools

import pytest

import sgemm

torch = pytest.importorskip("torch", reason="the GPU tests compare against PyTorch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)
if torch.cuda.get_device_capability() != (9, 0):
    pytest.skip(f"{torch.cuda.get_device_name()} is not sm_90 (the package is built for sm_90a)",
                allow_module_level=True)

import sgemm.torch  # noqa: E402  (needs torch, imported above)

MATHS = ["fp32", "tf32x3", "tf32"]


def tolerance(math, k):
    """Worst-case elementwise bound on |C - C64| relative to |alpha| (|A||B|) + |beta| |C0|:
    fp32, a k-term dot product in float32 (gamma_k, doubled for the scaling by alpha and beta);
    tf32x3, the dropped small-by-small products and the small parts' own rounding (about
    3 * 2^-22) plus the accumulation; tf32, both operands rounded to TF32's 11-bit significand
    (2^-10) plus the accumulation."""
    return {"fp32": (k + 2) * 2.0**-23,
            "tf32x3": (k + 4) * 2.0**-22,
            "tf32": 2.0**-10 + (k + 4) * 2.0**-22}[math]


def op(x, trans):
    return x.transpose(-1, -2) if trans else x


def check(c, a, b, *, math="fp32", alpha=1.0, beta=0.0, c0=None, trans_a=False, trans_b=False):
    """c against alpha op(a) op(b) + beta c0 in float64, within tolerance(math, k)."""
    a64, b64 = op(a.double(), trans_a), op(b.double(), trans_b)
    reference = alpha * (a64 @ b64)
    scale = abs(alpha) * (a64.abs() @ b64.abs())
    if c0 is not None:
        reference = reference + beta * c0.double()
        scale = scale + abs(beta) * c0.double().abs()
    error = (torch.as_tensor(c).double() - reference).abs()
    bound = tolerance(math, a64.shape[-1]) * scale
    worst = (error - bound).max().item() if error.numel() else 0.0
    assert worst <= 0, f"{math}: error exceeds the bound by {worst:.3g}"


def randn(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.float32)


@pytest.mark.parametrize("math", MATHS)
@pytest.mark.parametrize("trans_a,trans_b", list(itertools.product([False, True], repeat=2)))
@pytest.mark.parametrize("m,n,k", [(67, 45, 129), (256, 384, 512)])
def test_transposes(m, n, k, trans_a, trans_b, math):
    a = randn(k, m) if trans_a else randn(m, k)
    b = randn(n, k) if trans_b else randn(k, n)
    c = sgemm.gemm(a, b, trans_a=trans_a, trans_b=trans_b, math=math)
    assert c.shape == (m, n) and c.is_contiguous()
    check(c, a, b, math=math, trans_a=trans_a, trans_b=trans_b)


@pytest.mark.parametrize("math", MATHS)
def test_column_major_and_padded_views(math):
    m, n, k = 96, 80, 144
    a = randn(k, m).t()                    # column-major
    b = randn(n, k + 5)[:, :k].t()         # column-major, ld = k + 5
    c = torch.empty(n, m, device="cuda").t()  # column-major C
    assert sgemm.gemm(a, b, c, math=math) is c
    check(c, a, b, math=math)
    padded_a = randn(m, k + 3)[:, :k]      # row-major, ld = k + 3
    check(sgemm.matmul(padded_a, b, math=math), padded_a, b, math=math)


@pytest.mark.parametrize("math", MATHS)
def test_c_with_alpha_and_beta(math):
    a, b, c0 = randn(70, 90), randn(90, 50), randn(70, 50)
    c = c0.clone()
    assert sgemm.gemm(a, b, c, alpha=1.5, beta=-0.5, math=math) is c
    check(c, a, b, math=math, alpha=1.5, beta=-0.5, c0=c0)
    column_major = c0.t().clone().t()
    sgemm.gemm(a, b, column_major, alpha=1.5, beta=-0.5, math=math)
    check(column_major, a, b, math=math, alpha=1.5, beta=-0.5, c0=c0)
    transposed = c0.t().clone()  # C^T = b^T a^T
    sgemm.gemm(b, a, transposed, alpha=1.5, beta=-0.5, trans_a=True, trans_b=True, math=math)
    check(transposed.t(), a, b, math=math, alpha=1.5, beta=-0.5, c0=c0)


@pytest.mark.parametrize("math", MATHS)
def test_batches_and_broadcasting(math):
    batch, m, n, k = 5, 48, 40, 72
    a3, b3, b2 = randn(batch, m, k), randn(batch, k, n), randn(k, n)
    check(sgemm.matmul(a3, b3, math=math), a3, b3, math=math)
    check(sgemm.matmul(a3, b2, math=math), a3, b2, math=math)          # b broadcast
    one = randn(1, m, k)
    out = sgemm.matmul(one, b3, math=math)                              # a batch of one
    assert out.shape == (batch, m, n)
    check(out, one, b3, math=math)
    a_t = randn(batch, k, m).transpose(1, 2)                            # column-major matrices
    check(sgemm.matmul(a_t, b3, math=math), a_t, b3, math=math)
    c0 = randn(batch, m, n)
    c = c0.clone()
    sgemm.gemm(a3, b3, c, alpha=2.0, beta=0.25, math=math)
    check(c, a3, b3, math=math, alpha=2.0, beta=0.25, c0=c0)


def test_named_kernel_and_stream():
    a, b = randn(33, 65), randn(65, 17)
    check(sgemm.gemm(a, b, kernel="fallback-01-any"), a, b)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        c = torch.empty(33, 17, device="cuda")
    sgemm.gemm(a, b, c, stream=stream)
    stream.synchronize()
    check(c, a, b)
    with pytest.raises(sgemm.InvalidValueError, match="computes"):
        sgemm.gemm(a, b, kernel="fallback-01-any", math="tf32")


def test_empty_dimensions():
    c0 = randn(6, 7)
    c = c0.clone()
    sgemm.gemm(randn(6, 0), randn(0, 7), c, beta=2.0)  # k = 0: C = beta C
    torch.testing.assert_close(c, 2 * c0, rtol=0, atol=0)
    assert sgemm.matmul(randn(0, 5), randn(5, 7)).shape == (0, 7)
    assert sgemm.matmul(randn(0, 3, 5), randn(5, 7)).shape == (0, 3, 7)


def test_errors_on_device_arrays():
    with pytest.raises(ValueError, match="inner dimensions differ"):
        sgemm.matmul(randn(4, 5), randn(6, 7))
    with pytest.raises(TypeError, match="float32"):
        sgemm.matmul(randn(4, 5).double(), randn(5, 7))
    with pytest.raises(TypeError, match="CUDA tensor"):
        sgemm.matmul(torch.randn(4, 5), randn(5, 7))
    with pytest.raises(ValueError, match="unit stride"):
        sgemm.matmul(randn(8, 10)[::2, ::2], randn(5, 7))
    if torch.cuda.device_count() > 1:
        with pytest.raises(ValueError, match="different devices"):
            sgemm.matmul(randn(4, 5), randn(5, 7).to("cuda:1"))


def test_cupy_arrays():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    a = cupy.random.standard_normal((70, 90), dtype=cupy.float32)
    b = cupy.random.standard_normal((50, 90), dtype=cupy.float32).T  # column-major
    c = sgemm.matmul(a, b)
    assert isinstance(c, cupy.ndarray) and c.shape == (70, 50)
    check(torch.as_tensor(c, device="cuda"), torch.as_tensor(a, device="cuda"),
          torch.as_tensor(b, device="cuda"))
    c0 = cupy.random.standard_normal((70, 50), dtype=cupy.float32)
    c2 = c0.copy()
    sgemm.gemm(a, b, c2, alpha=0.5, beta=2.0, math="tf32x3")
    check(torch.as_tensor(c2, device="cuda"), torch.as_tensor(a, device="cuda"),
          torch.as_tensor(b, device="cuda"), math="tf32x3", alpha=0.5, beta=2.0,
          c0=torch.as_tensor(c0, device="cuda"))


def test_custom_ops_opcheck():
    a, b = randn(24, 40), randn(40, 16)
    for math in MATHS:
        torch.library.opcheck(torch.ops.sgemm.mm.default, (a, b, math))
    torch.library.opcheck(torch.ops.sgemm.mm.default, (a.t().contiguous().t(), b))
    torch.library.opcheck(torch.ops.sgemm.mm.default,
                          (a.requires_grad_(), b.requires_grad_()))
    torch.library.opcheck(torch.ops.sgemm.bmm.default, (randn(3, 24, 40), randn(3, 40, 16)))
    torch.library.opcheck(torch.ops.sgemm.bmm.default,
                          (randn(3, 24, 40).requires_grad_(), randn(3, 40, 16).requires_grad_()))


def test_linear_forward_and_backward():
    reference = torch.nn.Linear(64, 32, device="cuda")
    linear = sgemm.torch.Linear.from_linear(reference)
    assert linear.weight is reference.weight and linear.bias is reference.bias
    x = randn(4, 7, 64).requires_grad_()
    x_reference = x.detach().clone().requires_grad_()
    torch.testing.assert_close(linear(x), reference(x_reference), rtol=1e-5, atol=1e-5)
    linear(x).square().sum().backward()
    weight_grad = reference.weight.grad.clone()
    reference.weight.grad = None
    reference(x_reference).square().sum().backward()
    torch.testing.assert_close(x.grad, x_reference.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(weight_grad, reference.weight.grad, rtol=1e-4, atol=1e-4)


def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(),
                               torch.nn.Linear(128, 128, bias=False), torch.nn.ReLU(),
                               torch.nn.Linear(128, 16)).cuda()


def test_use_sgemm_replaces_linears():
    model = mlp()
    weights = [module.weight for module in model if isinstance(module, torch.nn.Linear)]
    assert sgemm.torch.use_sgemm(model, math="tf32x3") is model
    linears = [module for module in model if isinstance(module, torch.nn.Linear)]
    assert all(type(module) is sgemm.torch.Linear for module in linears)
    assert all(module.math == "tf32x3" for module in linears)
    assert [module.weight for module in linears] == weights


@torch.no_grad()
def test_compiled_mlp_on_batches():
    model = mlp()
    x = randn(4, 16, 64)
    expected = model.double()(x.double())
    model = sgemm.torch.use_sgemm(model.float())
    compiled = torch.compile(model, fullgraph=True)
    torch.testing.assert_close(compiled(x), expected.float(), rtol=1e-4, atol=1e-4)


@torch.no_grad()
def test_cuda_graph_of_the_mlp():
    model = sgemm.torch.use_sgemm(mlp())
    static_x = randn(4, 16, 64)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        model(static_x)  # warm-up: first calls may allocate outside the graph
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = model(static_x)
    new_x = randn(4, 16, 64)
    static_x.copy_(new_x)
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(static_y, model(new_x))
