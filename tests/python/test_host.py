"""The Python package without a GPU: the registry, and argument errors caught before any device
work. Arrays here are stand-ins that expose only __cuda_array_interface__; no call reaches a
kernel."""

import pytest

import sgemm
from sgemm import _sgemm


class FakeDeviceArray:
    """The least an array needs to be read through __cuda_array_interface__."""

    def __init__(self, shape, typestr="<f4", strides=None, ptr=0, readonly=False):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape),
            "typestr": typestr,
            "data": (ptr, readonly),
            "strides": strides,
            "version": 3,
        }


class FakeHostArray:
    """A DLPack producer in host memory, as NumPy's arrays are."""

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def test_version():
    assert sgemm.__version__ == "0.1.0"


def test_kernels_lists_the_registry():
    kernels = sgemm.kernels()
    assert kernels
    fields = {"slug", "track", "rung", "title", "math", "source", "requirements", "unit"}
    for kernel in kernels:
        assert set(kernel) == fields
        assert kernel["math"] in {"Fp32", "Fp32Tf32x3", "Tf32"}
        assert isinstance(kernel["rung"], int) and kernel["rung"] >= 1
    slugs = [kernel["slug"] for kernel in kernels]
    assert "simt-13-tma" in slugs
    assert "fallback-01-any" in slugs
    assert len(slugs) == len(set(slugs))


def test_exception_types():
    assert issubclass(sgemm.Error, RuntimeError)
    assert issubclass(sgemm.InvalidValueError, sgemm.Error)
    assert issubclass(sgemm.InvalidValueError, ValueError)
    assert issubclass(sgemm.NotSupportedError, sgemm.Error)
    assert issubclass(sgemm.NotSupportedError, NotImplementedError)


def test_non_array_is_a_type_error():
    with pytest.raises(TypeError, match="not a CUDA array"):
        sgemm.gemm([[1.0]], [[1.0]])


def test_host_memory_is_a_type_error():
    with pytest.raises(TypeError, match="not in CUDA device memory"):
        sgemm.gemm(FakeHostArray(), FakeDeviceArray((2, 2)))


def test_float64_is_a_type_error():
    with pytest.raises(TypeError, match="float32"):
        sgemm.gemm(FakeDeviceArray((4, 3), typestr="<f8"), FakeDeviceArray((3, 2)))


def test_inner_dimensions_must_match():
    with pytest.raises(ValueError, match="inner dimensions differ"):
        sgemm.gemm(FakeDeviceArray((4, 3)), FakeDeviceArray((5, 2)))
    with pytest.raises(ValueError, match="inner dimensions differ"):
        sgemm.gemm(FakeDeviceArray((4, 3)), FakeDeviceArray((3, 2)), trans_a=True)


def test_bad_math_is_a_value_error():
    with pytest.raises(ValueError, match="math='fp64'"):
        sgemm.gemm(FakeDeviceArray((4, 3)), FakeDeviceArray((3, 2)), math="fp64")


def test_dimensions_and_strides():
    with pytest.raises(ValueError, match="1-D"):
        sgemm.gemm(FakeDeviceArray((4,)), FakeDeviceArray((4, 2)))
    # Element strides (2, 2): unit stride in neither dimension.
    with pytest.raises(ValueError, match="unit stride"):
        sgemm.gemm(FakeDeviceArray((4, 4), strides=(8, 8)), FakeDeviceArray((4, 2)))
    with pytest.raises(ValueError, match="whole floats"):
        sgemm.gemm(FakeDeviceArray((4, 4), strides=(16, 2)), FakeDeviceArray((4, 2)))


def test_batch_sizes_must_match():
    with pytest.raises(ValueError, match="batch sizes differ"):
        sgemm.gemm(FakeDeviceArray((3, 4, 5)), FakeDeviceArray((2, 5, 6)))


def test_c_is_checked():
    a, b = FakeDeviceArray((4, 5)), FakeDeviceArray((5, 6))
    with pytest.raises(ValueError, match=r"c: shape \(4, 7\)"):
        sgemm.gemm(a, b, FakeDeviceArray((4, 7)))
    with pytest.raises(ValueError, match=r"c: shape \(4, 6\), but the product's is \(2, 4, 6\)"):
        sgemm.gemm(FakeDeviceArray((2, 4, 5)), b, FakeDeviceArray((4, 6)))
    with pytest.raises(ValueError, match="read-only"):
        sgemm.gemm(a, b, FakeDeviceArray((4, 6), readonly=True))
    with pytest.raises(ValueError, match="beta"):
        sgemm.gemm(a, b, beta=1.0)
    with pytest.raises(TypeError, match="pass c="):
        sgemm.gemm(a, b)


def test_empty_product_returns_c_untouched():
    c = FakeDeviceArray((0, 6))
    for math in ("fp32", "tf32x3", "fp32_tf32x3", "tf32"):
        assert sgemm.gemm(FakeDeviceArray((0, 5)), FakeDeviceArray((5, 6)), c, math=math) is c
    batched = FakeDeviceArray((0, 4, 6))
    assert sgemm.gemm(FakeDeviceArray((0, 4, 5)), FakeDeviceArray((5, 6)), batched) is batched


def test_library_errors_carry_status_and_message():
    # lda = 3 < k = 4: refused while checking the arguments, before any device is asked for.
    with pytest.raises(sgemm.InvalidValueError, match="lda = 3") as error:
        _sgemm.gemm(_sgemm.ROW_MAJOR, _sgemm.OP_N, _sgemm.OP_N, 4, 4, 4, 1.0, 256, 3, 256, 4,
                    0.0, 256, 4, 0, "auto", _sgemm.MATH_FP32)
    assert error.value.status == "InvalidValue"
    assert isinstance(error.value, ValueError)
    with pytest.raises(sgemm.InvalidValueError, match="no kernel named 'no-such-kernel'"):
        _sgemm.gemm(_sgemm.ROW_MAJOR, _sgemm.OP_N, _sgemm.OP_N, 4, 4, 4, 1.0, 256, 4, 256, 4,
                    0.0, 256, 4, 0, "no-such-kernel", _sgemm.MATH_FP32)
    with pytest.raises(sgemm.InvalidValueError, match="stride"):
        _sgemm.gemm_strided_batched(_sgemm.ROW_MAJOR, _sgemm.OP_N, _sgemm.OP_N, 4, 4, 4, 1.0,
                                    256, 4, -16, 256, 4, 16, 0.0, 256, 4, 16, 2, 0, "auto",
                                    _sgemm.MATH_FP32)


def test_library_quick_returns_need_no_device():
    _sgemm.gemm(_sgemm.ROW_MAJOR, _sgemm.OP_N, _sgemm.OP_N, 0, 4, 4, 1.0, 0, 4, 0, 4, 0.0, 0, 4,
                0, "auto", _sgemm.MATH_FP32)
    _sgemm.gemm_strided_batched(_sgemm.ROW_MAJOR, _sgemm.OP_N, _sgemm.OP_N, 4, 4, 4, 1.0, 256,
                                4, 16, 256, 4, 16, 0.0, 256, 4, 16, 0, 0, "auto",
                                _sgemm.MATH_FP32)
