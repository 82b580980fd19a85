# nmt_warnings: the warning set every nmt target compiles with. NMT_WERROR (scripts/test.sh, hence
# CI) makes them errors under GCC; third-party headers are SYSTEM includes and never warn.
add_library(nmt_warnings INTERFACE)
target_compile_options(nmt_warnings INTERFACE -Wall -Wextra -Wpedantic)
if(NMT_WERROR AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(nmt_warnings INTERFACE -Werror)
endif()

# nmt_add_library(name SOURCES ... DEPS ...): one static library per module.
function(nmt_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE nmt_warnings)
endfunction()

# nmt_share_torch_headers(target...): the targets read LibTorch's headers from one precompiled
# header, built once for nmt_torch_core. Parsing those headers is most of the compile time of a
# file that includes them (22 s of about 30 on an AMD EPYC of Zen 3), and the targets that link
# LibTorch compile some 130 files.
# Every file of such a target sees them, included or not, so only targets that link LibTorch get
# them; the Torch-free modules are targets of their own. -DNMT_PRECOMPILE_HEADERS=OFF compiles
# each file from the headers it includes (to check that it includes what it uses).
set(NMT_TORCH_HEADERS <ATen/ATen.h> <ATen/Parallel.h> <c10/core/Device.h> <c10/core/InferenceMode.h>
    <torch/nn/module.h> <torch/nn/modules/container/modulelist.h> <torch/nn/modules/embedding.h>
    <torch/nn/modules/normalization.h>)
function(nmt_share_torch_headers)
  if(NOT NMT_PRECOMPILE_HEADERS)
    return()
  endif()
  foreach(target IN LISTS ARGN)
    if(target STREQUAL "nmt_torch_core")
      target_precompile_headers(${target} PRIVATE ${NMT_TORCH_HEADERS})
    else()
      target_precompile_headers(${target} REUSE_FROM nmt_torch_core)
    endif()
    # A file compiled with options of its own cannot use the header (-fno-math-errno defines
    # __NO_MATH_ERRNO__), and GCC says so (-Winvalid-pch: an error under NMT_WERROR).
    get_target_property(sources ${target} SOURCES)
    foreach(source IN LISTS sources)
      get_source_file_property(options ${source} COMPILE_OPTIONS)
      if(options)
        set_source_files_properties(${source} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
      endif()
    endforeach()
  endforeach()
endfunction()

# The PyTorch wheel's libtorch.so exports its own copies of some std::filesystem functions, and
# they crash when an executable's calls bind to them (seen: std::filesystem::remove_all jumping to
# address 0). Putting libstdc++ first among an executable's needed libraries makes the dynamic
# linker bind those calls to the C++ runtime's own definitions.
function(nmt_prefer_libstdcxx target)
  target_link_options(${target} BEFORE PRIVATE -Wl,--push-state,--no-as-needed -lstdc++ -Wl,--pop-state)
endfunction()
