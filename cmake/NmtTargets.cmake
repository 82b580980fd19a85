# nmt_warnings: the warning set every nmt target compiles with.
add_library(nmt_warnings INTERFACE)
target_compile_options(nmt_warnings INTERFACE -Wall -Wextra -Wpedantic)

# nmt_add_library(name SOURCES ... DEPS ...): one static library per module.
function(nmt_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE nmt_warnings)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# Parsing torch/torch.h costs 15-20 s per translation unit on a 2-core machine; every target that
# compiles against Torch shares one precompiled header instead (nmt_torch_core).
function(nmt_use_torch_pch target)
  if(TARGET nmt_torch_core AND NOT target STREQUAL nmt_torch_core)
    target_precompile_headers(${target} REUSE_FROM nmt_torch_core)
  endif()
endfunction()
