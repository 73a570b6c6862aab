// sgemm._sgemm: the library's C++ API for Python, on raw device pointers passed as integers.
// python/sgemm/__init__.py turns framework arrays into these calls; this module only converts
// arguments, releases the GIL around the library call, and turns a failed Status into an
// exception that carries sgemm::last_error().
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "sgemm/sgemm.hpp"

namespace nb = nanobind;

namespace {

// The exception types, created once at import and kept for the interpreter's lifetime.
PyObject* error_type = nullptr;               // sgemm.Error(RuntimeError): every failed status
PyObject* invalid_value_error_type = nullptr;  // sgemm.InvalidValueError(Error, ValueError)
PyObject* not_supported_error_type = nullptr;  // sgemm.NotSupportedError(Error, NotImplementedError)

PyObject* new_exception_type(const char* name, const char* doc, PyObject* bases) {
  PyObject* type = PyErr_NewExceptionWithDoc(name, doc, bases, nullptr);
  if (!type) throw nb::python_error();
  return type;
}

// Raises `type` with the text "<status>: <detail>" and the status' name in its `status` attribute.
[[noreturn]] void raise_error(PyObject* type, const char* status, std::string_view detail) {
  nb::object exception = nb::handle(type)(std::string(status) + ": " + std::string(detail));
  exception.attr("status") = status;
  PyErr_SetObject(type, exception.ptr());
  throw nb::python_error();
}

[[noreturn]] void raise_status(sgemm::Status status) {
  PyObject* type = error_type;
  if (status == sgemm::Status::InvalidValue) type = invalid_value_error_type;
  if (status == sgemm::Status::NotSupported) type = not_supported_error_type;
  raise_error(type, sgemm::to_string(status), sgemm::last_error());
}

const float* as_matrix(std::uintptr_t pointer) { return reinterpret_cast<const float*>(pointer); }

sgemm::Options options_of(const std::string& kernel, int math) {
  return {.kernel = kernel, .math = static_cast<sgemm::Math>(math)};
}

void gemm(int layout, int op_a, int op_b, std::int64_t m, std::int64_t n, std::int64_t k,
          float alpha, std::uintptr_t a, std::int64_t lda, std::uintptr_t b, std::int64_t ldb,
          float beta, std::uintptr_t c, std::int64_t ldc, std::uintptr_t stream,
          const std::string& kernel, int math) {
  sgemm::Status status;
  {
    nb::gil_scoped_release released;
    status = sgemm::gemm(static_cast<sgemm::Layout>(layout), static_cast<sgemm::Op>(op_a),
                         static_cast<sgemm::Op>(op_b), m, n, k, alpha, as_matrix(a), lda,
                         as_matrix(b), ldb, beta, reinterpret_cast<float*>(c), ldc,
                         reinterpret_cast<cudaStream_t>(stream), options_of(kernel, math));
  }
  if (status != sgemm::Status::Success) raise_status(status);
}

void gemm_strided_batched(int layout, int op_a, int op_b, std::int64_t m, std::int64_t n,
                          std::int64_t k, float alpha, std::uintptr_t a, std::int64_t lda,
                          std::int64_t stride_a, std::uintptr_t b, std::int64_t ldb,
                          std::int64_t stride_b, float beta, std::uintptr_t c, std::int64_t ldc,
                          std::int64_t stride_c, std::int64_t batch, std::uintptr_t stream,
                          const std::string& kernel, int math) {
  sgemm::Status status;
  {
    nb::gil_scoped_release released;
    status = sgemm::gemm_strided_batched(
        static_cast<sgemm::Layout>(layout), static_cast<sgemm::Op>(op_a),
        static_cast<sgemm::Op>(op_b), m, n, k, alpha, as_matrix(a), lda, stride_a, as_matrix(b),
        ldb, stride_b, beta, reinterpret_cast<float*>(c), ldc, stride_c, batch,
        reinterpret_cast<cudaStream_t>(stream), options_of(kernel, math));
  }
  if (status != sgemm::Status::Success) raise_status(status);
}

nb::list kernels() {
  nb::list list;
  for (const sgemm::KernelInfo& info : sgemm::kernels()) {
    nb::dict entry;
    entry["slug"] = std::string(info.slug);
    entry["track"] = sgemm::to_string(info.track);
    entry["rung"] = info.rung;
    entry["title"] = std::string(info.title);
    entry["math"] = sgemm::to_string(info.math);
    entry["source"] = std::string(info.source);
    entry["requirements"] = std::string(info.requirements);
    entry["unit"] = sgemm::to_string(info.unit);
    list.append(entry);
  }
  return list;
}

// The device that holds `pointer`, for arrays that name no device of their own (a
// __cuda_array_interface__ has no device field).
int pointer_device(std::uintptr_t pointer) {
  cudaPointerAttributes attributes{};
  const cudaError_t err =
      cudaPointerGetAttributes(&attributes, reinterpret_cast<const void*>(pointer));
  if (err != cudaSuccess) {
    cudaGetLastError();  // reported here; later CUDA calls of this thread must not see it
    raise_error(error_type, "CudaError",
                std::string("the device of a pointer: ") + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ")");
  }
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
    throw nb::type_error("the array's memory is not CUDA device memory");
  return attributes.device;
}

}  // namespace

NB_MODULE(_sgemm, m) {
  m.doc() = "sgemm's C++ API on raw device pointers; the sgemm package wraps it for arrays";

  error_type = new_exception_type(
      "sgemm.Error", "A call of the sgemm library failed; `status` names the library's Status.",
      PyExc_RuntimeError);
  invalid_value_error_type = new_exception_type(
      "sgemm.InvalidValueError", "The library refused an argument (Status InvalidValue).",
      nb::make_tuple(nb::handle(error_type), nb::handle(PyExc_ValueError)).ptr());
  not_supported_error_type = new_exception_type(
      "sgemm.NotSupportedError",
      "No kernel computes the call, or the named one does not (Status NotSupported).",
      nb::make_tuple(nb::handle(error_type), nb::handle(PyExc_NotImplementedError)).ptr());
  m.attr("Error") = nb::handle(error_type);
  m.attr("InvalidValueError") = nb::handle(invalid_value_error_type);
  m.attr("NotSupportedError") = nb::handle(not_supported_error_type);

  m.attr("ROW_MAJOR") = static_cast<int>(sgemm::Layout::RowMajor);
  m.attr("COL_MAJOR") = static_cast<int>(sgemm::Layout::ColMajor);
  m.attr("OP_N") = static_cast<int>(sgemm::Op::N);
  m.attr("OP_T") = static_cast<int>(sgemm::Op::T);
  m.attr("MATH_FP32") = static_cast<int>(sgemm::Math::Fp32);
  m.attr("MATH_FP32_TF32X3") = static_cast<int>(sgemm::Math::Fp32Tf32x3);
  m.attr("MATH_TF32") = static_cast<int>(sgemm::Math::Tf32);

  m.def("gemm", &gemm, nb::arg("layout"), nb::arg("op_a"), nb::arg("op_b"), nb::arg("m"),
        nb::arg("n"), nb::arg("k"), nb::arg("alpha"), nb::arg("a_ptr"), nb::arg("lda"),
        nb::arg("b_ptr"), nb::arg("ldb"), nb::arg("beta"), nb::arg("c_ptr"), nb::arg("ldc"),
        nb::arg("stream_ptr"), nb::arg("kernel") = "auto", nb::arg("math") = 0,
        "sgemm::gemm on device pointers: C = alpha * op(A) * op(B) + beta * C, enqueued on "
        "the stream, on the stream's device. Raises sgemm.Error on a failed status.");
  m.def("gemm_strided_batched", &gemm_strided_batched, nb::arg("layout"), nb::arg("op_a"),
        nb::arg("op_b"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("alpha"),
        nb::arg("a_ptr"), nb::arg("lda"), nb::arg("stride_a"), nb::arg("b_ptr"), nb::arg("ldb"),
        nb::arg("stride_b"), nb::arg("beta"), nb::arg("c_ptr"), nb::arg("ldc"),
        nb::arg("stride_c"), nb::arg("batch"), nb::arg("stream_ptr"), nb::arg("kernel") = "auto",
        nb::arg("math") = 0,
        "sgemm::gemm_strided_batched on device pointers: `batch` products, matrix i of X at "
        "x + i * stride_x elements. Raises sgemm.Error on a failed status.");
  m.def("kernels", &kernels,
        "The registry, in ladder order: a dict per kernel (slug, track, rung, title, math, "
        "source, requirements, unit).");
  m.def("pointer_device", &pointer_device, nb::arg("pointer"),
        "The ordinal of the CUDA device whose memory holds `pointer`.");
  m.def("set_workspace_cache_limit", &sgemm::set_workspace_cache_limit, nb::arg("bytes"),
        "Bytes of freed scratch the per-device pools keep for later calls (1 GiB by default).");
  m.def(
      "release_workspace_cache",
      [] {
        if (sgemm::Status status = sgemm::release_workspace_cache();
            status != sgemm::Status::Success)
          raise_status(status);
      },
      "Gives every pool's unused scratch back to the driver.");
}
