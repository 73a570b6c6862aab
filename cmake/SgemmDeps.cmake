# Finds what scripts/install-deps installs: the CUTLASS/CuTe headers of the pinned PyPI wheel
# nvidia-cutlass, and cuobjdump/nvdisasm (PyPI nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm, or
# the toolkit's own). Everything is searched in .deps/ first, then on the system.
set(_deps "${PROJECT_SOURCE_DIR}/.deps/python")

find_path(SGEMM_CUTLASS_INCLUDE_DIR cute/tensor.hpp
  HINTS "${_deps}/cutlass_library/source/include" ENV CUTLASS_INCLUDE_DIR
  DOC "CUTLASS/CuTe include directory (pip install nvidia-cutlass)")
if(SGEMM_CUTLASS_INCLUDE_DIR)
  message(STATUS "sgemm: CuTe track on, headers in ${SGEMM_CUTLASS_INCLUDE_DIR}")
else()
  message(WARNING "sgemm: CUTLASS/CuTe headers not found (run scripts/install-deps); the CuTe track is not built")
  set(SGEMM_CUTLASS_INCLUDE_DIR "" CACHE PATH "" FORCE)
endif()

find_program(SGEMM_CUOBJDUMP cuobjdump HINTS "${_deps}/nvidia/cu13/bin" "${CUDAToolkit_BIN_DIR}")
find_program(SGEMM_NVDISASM nvdisasm HINTS "${_deps}/nvidia/cu13/bin" "${CUDAToolkit_BIN_DIR}")
