"""PyTorch integration: the custom ops ``torch.ops.sgemm.mm`` and ``torch.ops.sgemm.bmm``, and
an ``nn.Linear`` that runs its product on sgemm.

    import sgemm.torch
    y = torch.ops.sgemm.mm(a, b, "tf32x3")         # a @ b; works under torch.compile
    model = sgemm.torch.use_sgemm(model)            # every nn.Linear now runs on sgemm

The ops take float32 CUDA tensors of any strides, run on the current stream (so CUDA graph
capture records them), have fake implementations for torch.compile, and are differentiable:
their backward is made of the same ops.
"""

import torch

import sgemm

__all__ = ["Linear", "bmm", "mm", "use_sgemm"]


def _unit_strided(t):
    """t itself if each of its matrices has unit stride in one dim (what sgemm reads), else a
    contiguous copy (expanded gradients, for one)."""
    rows, cols = t.shape[-2:]
    row_stride, col_stride = t.stride()[-2:]
    if sgemm._storage(rows, cols, row_stride, col_stride) is None:
        return t.contiguous()
    return t


def _check_operands(a, b, op, ndim):
    torch._check(a.dim() == ndim and b.dim() == ndim,
                 lambda: f"sgemm::{op}: expects {ndim}-D tensors, got {a.dim()}-D and {b.dim()}-D")
    torch._check(a.dtype == torch.float32 and b.dtype == torch.float32,
                 lambda: f"sgemm::{op}: expects float32 tensors, got {a.dtype} and {b.dtype}")
    torch._check(a.shape[-1] == b.shape[-2],
                 lambda: f"sgemm::{op}: inner dimensions differ: {tuple(a.shape)} @ {tuple(b.shape)}")


@torch.library.custom_op("sgemm::mm", mutates_args=())
def mm(a: torch.Tensor, b: torch.Tensor, math: str = "fp32") -> torch.Tensor:
    """a @ b for 2-D float32 CUDA tensors, on sgemm."""
    _check_operands(a, b, "mm", 2)
    return sgemm.gemm(_unit_strided(a), _unit_strided(b), math=math)


@mm.register_fake
def _mm_fake(a, b, math="fp32"):
    _check_operands(a, b, "mm", 2)
    return a.new_empty((a.shape[0], b.shape[1]))


@torch.library.custom_op("sgemm::bmm", mutates_args=())
def bmm(a: torch.Tensor, b: torch.Tensor, math: str = "fp32") -> torch.Tensor:
    """a @ b for 3-D float32 CUDA tensors of the same batch size, on sgemm."""
    _check_operands(a, b, "bmm", 3)
    torch._check(a.shape[0] == b.shape[0],
                 lambda: f"sgemm::bmm: batch sizes differ: {a.shape[0]} and {b.shape[0]}")
    return sgemm.gemm(_unit_strided(a), _unit_strided(b), math=math)


@bmm.register_fake
def _bmm_fake(a, b, math="fp32"):
    _check_operands(a, b, "bmm", 3)
    torch._check(a.shape[0] == b.shape[0],
                 lambda: f"sgemm::bmm: batch sizes differ: {a.shape[0]} and {b.shape[0]}")
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]))


def _save_operands(ctx, inputs, output):
    a, b, math = inputs
    ctx.save_for_backward(a, b)
    ctx.math = math


def _mm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = mm(grad, b.t(), ctx.math) if ctx.needs_input_grad[0] else None
    grad_b = mm(a.t(), grad, ctx.math) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b, None


def _bmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = bmm(grad, b.transpose(1, 2), ctx.math) if ctx.needs_input_grad[0] else None
    grad_b = bmm(a.transpose(1, 2), grad, ctx.math) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b, None


mm.register_autograd(_mm_backward, setup_context=_save_operands)
bmm.register_autograd(_bmm_backward, setup_context=_save_operands)


class Linear(torch.nn.Linear):
    """nn.Linear whose product runs on sgemm::mm: y = x @ weight.T + bias, for float32 CUDA
    input of shape (*, in_features). Same parameters and state_dict as nn.Linear; ``math``
    picks sgemm's math ("fp32", "tf32x3", "tf32")."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None, *,
                 math="fp32"):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.math = math

    @classmethod
    def from_linear(cls, linear, math="fp32"):
        """An sgemm Linear sharing `linear`'s parameters (no copy)."""
        module = cls.__new__(cls)
        torch.nn.Module.__init__(module)
        module.in_features, module.out_features = linear.in_features, linear.out_features
        module.weight = linear.weight
        module.register_parameter("bias", linear.bias)
        module.math = math
        module.train(linear.training)
        return module

    def forward(self, x):
        y = mm(x.reshape(-1, self.in_features), self.weight.t(), self.math)
        y = y.reshape(*x.shape[:-1], self.out_features)
        return y if self.bias is None else y + self.bias

    def extra_repr(self):
        return f"{super().extra_repr()}, math={self.math!r}"


def use_sgemm(module, math="fp32"):
    """Replaces, in place, every nn.Linear in `module`'s tree (exactly nn.Linear, not its
    subclasses, whose forward may differ) by an sgemm Linear sharing its parameters, and
    returns `module`; an nn.Linear passed itself comes back replaced. sgemm Linears already in
    the tree take `math`."""
    if type(module) is torch.nn.Linear:
        return Linear.from_linear(module, math)
    if isinstance(module, Linear):
        module.math = math
        return module
    for name, child in module.named_children():
        setattr(module, name, use_sgemm(child, math))
    return module
