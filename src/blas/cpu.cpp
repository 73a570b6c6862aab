// The CPU path: the system BLAS this library stands in front of, found once per process.
#include <dlfcn.h>

#include "blas/paths.hpp"

namespace sgemm_blas {
namespace {

using FortranSgemm = void(const char* transa, const char* transb, const int* m, const int* n,
                          const int* k, const float* alpha, const float* a, const int* lda,
                          const float* b, const int* ldb, const float* beta, float* c,
                          const int* ldc, std::size_t transa_len, std::size_t transb_len);

// True when `symbol` lies in libsgemm_blas.so itself: forwarding there would loop forever (say
// libblas.so.3 is an alternative that points back at this library).
bool in_this_library(void* symbol) {
  Dl_info mine{}, theirs{};
  return dladdr(reinterpret_cast<void*>(&in_this_library), &mine) != 0 &&
         dladdr(symbol, &theirs) != 0 && mine.dli_fbase == theirs.dli_fbase;
}

struct SystemBlas {
  FortranSgemm* sgemm = nullptr;
  XerblaFn* xerbla = nullptr;  // only for a dlopened BLAS: a preloaded one's is global already
};

SystemBlas find_system_blas() {
  SystemBlas blas;
  // LD_PRELOADed (or linked ahead of the BLAS): the next sgemm_ in the lookup order is the one
  // this library interposes.
  if (void* next = dlsym(RTLD_NEXT, "sgemm_"); next && !in_this_library(next)) {
    blas.sgemm = reinterpret_cast<FortranSgemm*>(next);
    return blas;
  }
  // Otherwise load the system's BLAS by its soname, privately so that its symbols do not take
  // part in the program's lookups. Never closed: its functions stay in use until exit.
  if (void* handle = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL)) {
    if (void* own = dlsym(handle, "sgemm_"); own && !in_this_library(own)) {
      blas.sgemm = reinterpret_cast<FortranSgemm*>(own);
      blas.xerbla = reinterpret_cast<XerblaFn*>(dlsym(handle, "xerbla_"));
    }
  }
  return blas;
}

const SystemBlas& system_blas() {
  static const SystemBlas blas = find_system_blas();
  return blas;
}

}  // namespace

XerblaFn* system_xerbla() noexcept { return system_blas().xerbla; }

CpuPath run_on_cpu(const Call& call) noexcept {
  // A system BLAS that calls sgemm_ itself reaches this library again (the preloaded symbol
  // wins); the nested call then runs here instead of going round in a circle.
  static thread_local bool inside_system_blas = false;
  FortranSgemm* sgemm = system_blas().sgemm;
  if (sgemm == nullptr || inside_system_blas) {
    reference_sgemm(call);
    return CpuPath::Reference;
  }
  const char transa = call.trans_a ? 'T' : 'N', transb = call.trans_b ? 'T' : 'N';
  inside_system_blas = true;
  sgemm(&transa, &transb, &call.m, &call.n, &call.k, &call.alpha, call.a, &call.lda, call.b,
        &call.ldb, &call.beta, call.c, &call.ldc, 1, 1);
  inside_system_blas = false;
  return CpuPath::System;
}

}  // namespace sgemm_blas
