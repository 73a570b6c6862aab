"""sgemm: single-precision matrix multiplication on NVIDIA Hopper GPUs, for CUDA arrays.

    c = sgemm.matmul(a, b)                                   # a @ b, a new array
    sgemm.gemm(a, b, c, alpha=2.0, beta=1.0, trans_b=True)   # c = 2 a b^T + c, in place
    sgemm.gemm(a, b, math="tf32x3")                          # FP32 accuracy on tensor cores

Arrays are float32 in CUDA device memory: PyTorch tensors, CuPy arrays, or any object with
``__cuda_array_interface__`` (Numba's, for one). A matrix is 2-D, or 3-D as a batch
(batch, rows, cols), with unit stride along its rows or its columns (row- or column-major, any
leading dimension); a 2-D operand against a 3-D one, or a batch of one, is broadcast. Calls are
enqueued on the arrays' framework's current stream (other arrays: the legacy default stream),
or on ``stream``, and never synchronize. ``import sgemm.torch`` adds PyTorch custom ops and an
``nn.Linear`` that runs on sgemm.

Errors: TypeError for what is not a float32 CUDA array, ValueError for shapes, strides and
arguments, and ``sgemm.Error`` (a RuntimeError) when the library fails a call, with its message;
``sgemm.InvalidValueError`` (also a ValueError) and ``sgemm.NotSupportedError`` (also a
NotImplementedError) narrow it; ``error.status`` names the library's status.
"""

import contextlib
import sys
from typing import NamedTuple, Optional

from . import _sgemm
from ._sgemm import (
    Error,
    InvalidValueError,
    NotSupportedError,
    release_workspace_cache,
    set_workspace_cache_limit,
)

__version__ = "0.1.0"
__all__ = [
    "Error",
    "InvalidValueError",
    "NotSupportedError",
    "gemm",
    "kernels",
    "matmul",
    "release_workspace_cache",
    "set_workspace_cache_limit",
]

_MATH = {
    "fp32": _sgemm.MATH_FP32,
    "tf32x3": _sgemm.MATH_FP32_TF32X3,
    "fp32_tf32x3": _sgemm.MATH_FP32_TF32X3,
    "tf32": _sgemm.MATH_TF32,
}
_DLPACK_CUDA = 2  # DLPack's device type of CUDA memory


class _Matrix(NamedTuple):
    """One operand as the library takes it; strides and leading dimension in elements."""

    array: object
    framework: str  # "torch", "cupy", or "cai" for any other __cuda_array_interface__
    device: Optional[int]  # None where the array names none (ask the driver)
    ptr: int
    batch: Optional[int]  # None for a 2-D array
    batch_stride: int  # 0 for a 2-D array or a batch of one: broadcast
    rows: int
    cols: int
    ld: int
    col_major: bool  # unit stride down the columns (the row-major layout of its transpose)
    readonly: bool


def kernels():
    """The library's kernel registry, in ladder order: a dict per kernel with slug, track,
    rung, title, math, source, requirements and unit (``kernel=`` takes a slug)."""
    return _sgemm.kernels()


def matmul(a, b, *, math="fp32", kernel="auto", stream=None):
    """a @ b as a new array of a's framework (2-D, or batched 3-D with broadcasting)."""
    return gemm(a, b, math=math, kernel=kernel, stream=stream)


def gemm(a, b, c=None, *, alpha=1.0, beta=0.0, trans_a=False, trans_b=False, math="fp32",
         kernel="auto", stream=None):
    """c = alpha * op(a) @ op(b) + beta * c, where op(x) is x, or x transposed with trans_x.

    Without ``c`` the result is a new C-contiguous array of a's (else b's) framework, PyTorch or
    CuPy, on their device, and beta must be 0. ``math``: "fp32" (FMA on CUDA cores), "tf32x3"
    (also "fp32_tf32x3": tensor cores, FP32 accuracy) or "tf32" (tensor cores, ~1e-3 relative
    error). ``kernel``: "auto" or a registry slug (see kernels()). ``stream``: a stream pointer
    (int) or an object with ``.cuda_stream`` (torch) or ``.ptr`` (CuPy). Returns c.
    """
    math_code = _math_code(math)
    if not isinstance(kernel, str):
        raise TypeError(f"kernel: expected a registry slug or 'auto', got {type(kernel).__name__}")
    a_matrix = _describe(a, "a")
    b_matrix = _describe(b, "b")
    m, k = (a_matrix.cols, a_matrix.rows) if trans_a else (a_matrix.rows, a_matrix.cols)
    b_k, n = (b_matrix.cols, b_matrix.rows) if trans_b else (b_matrix.rows, b_matrix.cols)
    if k != b_k:
        raise ValueError(f"inner dimensions differ: op(a) is {m} x {k}, op(b) is {b_k} x {n}")
    batch = _batch(a_matrix, b_matrix)
    shape = (m, n) if batch is None else (batch, m, n)
    if c is None:
        if beta != 0:
            raise ValueError(f"beta = {beta} needs c: without it C is new and uninitialized")
        c = _empty(shape, a_matrix, b_matrix)
    c_matrix = _describe(c, "c")
    c_shape = (c_matrix.rows, c_matrix.cols)
    if c_matrix.batch is not None:
        c_shape = (c_matrix.batch,) + c_shape
    if c_shape != shape:
        raise ValueError(f"c: shape {c_shape}, but the product's is {shape}")
    if c_matrix.readonly:
        raise ValueError("c: the array is read-only")
    if m == 0 or n == 0 or batch == 0:
        return c
    device = _common_device(a_matrix, b_matrix, c_matrix)

    # Every call is row-major: a column-major operand is its transpose stored row-major, with
    # the op flipped; a column-major C is C^T = op(b)^T op(a)^T, stored row-major.
    op_a = _sgemm.OP_T if a_matrix.col_major != bool(trans_a) else _sgemm.OP_N
    op_b = _sgemm.OP_T if b_matrix.col_major != bool(trans_b) else _sgemm.OP_N
    first, second = a_matrix, b_matrix
    if c_matrix.col_major:
        flip = {_sgemm.OP_N: _sgemm.OP_T, _sgemm.OP_T: _sgemm.OP_N}
        m, n, first, second, op_a, op_b = n, m, b_matrix, a_matrix, flip[op_b], flip[op_a]
    framework = _framework(a_matrix, b_matrix, c_matrix)
    with _current_device(framework, device):
        stream_ptr = _stream_pointer(stream, framework, device)
        if batch is None:
            _sgemm.gemm(_sgemm.ROW_MAJOR, op_a, op_b, m, n, k, float(alpha), first.ptr, first.ld,
                        second.ptr, second.ld, float(beta), c_matrix.ptr, c_matrix.ld,
                        stream_ptr, kernel, math_code)
        else:
            _sgemm.gemm_strided_batched(
                _sgemm.ROW_MAJOR, op_a, op_b, m, n, k, float(alpha), first.ptr, first.ld,
                first.batch_stride, second.ptr, second.ld, second.batch_stride, float(beta),
                c_matrix.ptr, c_matrix.ld, c_matrix.batch_stride, batch, stream_ptr, kernel,
                math_code)
    return c


def _math_code(math):
    try:
        return _MATH[math]
    except (KeyError, TypeError):
        raise ValueError(f"math={math!r}: expected one of {', '.join(map(repr, _MATH))}") from None


def _torch():
    """PyTorch if the program has imported it (sgemm itself never imports it)."""
    return sys.modules.get("torch")


def _describe(x, name):
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        if x.dtype != torch.float32:
            raise TypeError(f"{name}: dtype {x.dtype}, but sgemm computes on torch.float32")
        if x.device.type != "cuda":
            raise TypeError(f"{name}: a tensor on {x.device}, but sgemm needs a CUDA tensor")
        framework, device, ptr, readonly = "torch", x.device.index, x.data_ptr(), False
        shape, strides = tuple(x.shape), tuple(x.stride())
    elif hasattr(x, "__cuda_array_interface__"):
        interface = x.__cuda_array_interface__
        if interface["typestr"] != "<f4":
            raise TypeError(f"{name}: typestr {interface['typestr']!r}, but sgemm computes on "
                            "float32 ('<f4')")
        shape = tuple(interface["shape"])
        ptr, readonly = interface["data"]
        strides = _element_strides(shape, interface.get("strides"), name)
        framework = "cupy" if type(x).__module__.split(".")[0] == "cupy" else "cai"
        device = x.device.id if framework == "cupy" else None
    elif hasattr(x, "__dlpack_device__"):
        where = ("is on a CUDA device but has no __cuda_array_interface__ (convert it, e.g. "
                 "with torch.from_dlpack or cupy.from_dlpack)"
                 if x.__dlpack_device__()[0] == _DLPACK_CUDA else
                 "is not in CUDA device memory")
        raise TypeError(f"{name}: the {type(x).__name__} {where}; sgemm takes float32 CUDA arrays")
    else:
        raise TypeError(f"{name}: {type(x).__name__} is not a CUDA array; sgemm takes float32 "
                        "arrays with __cuda_array_interface__ (PyTorch, CuPy, Numba)")

    if len(shape) not in (2, 3):
        raise ValueError(f"{name}: {len(shape)}-D, but sgemm takes 2-D matrices or 3-D batches "
                         "(batch, rows, cols)")
    rows, cols = shape[-2:]
    storage = _storage(rows, cols, strides[-2], strides[-1])
    if storage is None:
        raise ValueError(f"{name}: strides {strides} (elements) for shape {shape}: a matrix needs "
                         "unit stride along its rows or its columns, and no overlap")
    col_major, ld = storage
    batch, batch_stride = None, 0
    if len(shape) == 3:
        batch = shape[0]
        batch_stride = strides[0] if batch > 1 else 0
        if batch_stride < 0:
            raise ValueError(f"{name}: negative batch stride {batch_stride}")
    return _Matrix(x, framework, device, ptr, batch, batch_stride, rows, cols, ld, col_major,
                   bool(readonly))


def _element_strides(shape, byte_strides, name):
    if byte_strides is None:  # C-contiguous
        strides, step = [], 1
        for extent in reversed(shape):
            strides.append(step)
            step *= extent
        return tuple(reversed(strides))
    if any(s % 4 for s in byte_strides):
        raise ValueError(f"{name}: byte strides {tuple(byte_strides)} are not whole floats")
    return tuple(s // 4 for s in byte_strides)


def _storage(rows, cols, row_stride, col_stride):
    """(col_major, ld) of a rows x cols matrix with these element strides, or None. A stride
    along an extent of one does not matter."""
    if (cols <= 1 or col_stride == 1) and (rows <= 1 or row_stride >= max(1, cols)):
        return False, row_stride if rows > 1 else max(1, cols)
    if (rows <= 1 or row_stride == 1) and (cols <= 1 or col_stride >= max(1, rows)):
        return True, col_stride if cols > 1 else max(1, rows)
    return None


def _batch(a, b):
    """The product's batch size: None when both operands are 2-D."""
    if a.batch is None and b.batch is None:
        return None
    sizes = {x.batch for x in (a, b) if x.batch is not None and x.batch != 1}
    if len(sizes) > 1:
        raise ValueError(f"batch sizes differ: a has {a.batch}, b has {b.batch}")
    return sizes.pop() if sizes else 1


def _common_device(*matrices):
    devices = {}
    for name, matrix in zip("abc", matrices):
        device = matrix.device
        if device is None and matrix.ptr:
            device = _sgemm.pointer_device(matrix.ptr)
        if device is not None:
            devices[name] = device
    if len(set(devices.values())) > 1:
        where = ", ".join(f"{name} on cuda:{device}" for name, device in devices.items())
        raise ValueError(f"the arrays are on different devices: {where}")
    return next(iter(devices.values()), None)


def _framework(*matrices):
    """The framework whose current stream and device the call takes: the first operand's that
    is PyTorch's or CuPy's."""
    return next((m.framework for m in matrices if m.framework != "cai"), "cai")


def _empty(shape, *matrices):
    """A new C-contiguous float32 array of the first PyTorch or CuPy operand's kind, on its
    device (a device mismatch is reported once C is checked with the others)."""
    owner = next((m for m in matrices if m.framework != "cai"), None)
    if owner is None:
        raise TypeError("c: sgemm allocates the result only for PyTorch and CuPy arrays; pass c=")
    if owner.framework == "torch":
        torch = _torch()
        return torch.empty(shape, dtype=torch.float32, device=torch.device("cuda", owner.device))
    import cupy

    with cupy.cuda.Device(owner.device):
        return cupy.empty(shape, dtype=cupy.float32)


def _current_device(framework, device):
    """Makes the arrays' device current, which is the device of the legacy default stream."""
    if device is None:
        return contextlib.nullcontext()
    if framework == "torch":
        return _torch().cuda.device(device)
    if framework == "cupy":
        import cupy

        return cupy.cuda.Device(device)
    return contextlib.nullcontext()


def _stream_pointer(stream, framework, device):
    if stream is None:
        if framework == "torch":
            return _torch().cuda.current_stream(device).cuda_stream
        if framework == "cupy":
            import cupy

            return cupy.cuda.get_current_stream().ptr
        return 0
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise TypeError(f"stream: expected a stream pointer (int), or an object with .cuda_stream or "
                    f".ptr, got {type(stream).__name__}")
