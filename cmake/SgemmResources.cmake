# The build-time resource report of every kernel (registers, shared memory, spills, SASS mix).
# tools/sass/resource_report.py reads libsgemm.a with cuobjdump after each link and writes
#   kernel_resources.tsv                  read by tests/host/test_resources.cpp
#   generated/kernel_resources.inc        the same text as a C++ raw string, for sgemm-bench
# A target that includes the .inc needs add_dependencies(<target> sgemm_resources).
set(SGEMM_RESOURCES_TSV "${PROJECT_BINARY_DIR}/kernel_resources.tsv")
set(SGEMM_RESOURCES_INC "${PROJECT_BINARY_DIR}/generated/kernel_resources.inc")

if(NOT Python3_Interpreter_FOUND)  # found in CMakeLists.txt
  message(NOTICE "sgemm: python3 not found: the kernel resource report is empty and its host test fails")
  file(WRITE "${SGEMM_RESOURCES_TSV}" "")
  file(WRITE "${SGEMM_RESOURCES_INC}" "R\"tsv()tsv\"\n")
  add_custom_target(sgemm_resources ALL)
  return()
endif()

set(_report_args "")
if(SGEMM_CUOBJDUMP)
  set(_report_args --cuobjdump "${SGEMM_CUOBJDUMP}")
else()
  message(NOTICE "sgemm: cuobjdump not found (run scripts/install-deps): kernel_resources.tsv will hold its header only and the resource test fails")
endif()

# DEPENDS on the library target re-runs the report whenever libsgemm.a is relinked.
add_custom_command(
  OUTPUT "${SGEMM_RESOURCES_TSV}" "${SGEMM_RESOURCES_INC}"
  COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/tools/sass/resource_report.py"
          $<TARGET_FILE:sgemm> ${_report_args}
          --tsv "${SGEMM_RESOURCES_TSV}" --inc "${SGEMM_RESOURCES_INC}"
  DEPENDS sgemm "${PROJECT_SOURCE_DIR}/tools/sass/resource_report.py"
  COMMENT "Resource report of every kernel (cuobjdump -res-usage -sass libsgemm.a)"
  VERBATIM)
add_custom_target(sgemm_resources ALL DEPENDS "${SGEMM_RESOURCES_TSV}" "${SGEMM_RESOURCES_INC}")
