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

# The PyTorch wheel's libtorch.so exports its own copies of some std::filesystem functions, and
# they crash when an executable's calls bind to them (seen: std::filesystem::remove_all jumping to
# address 0). Putting libstdc++ first among an executable's needed libraries makes the dynamic
# linker bind those calls to the C++ runtime's own definitions.
function(nmt_prefer_libstdcxx target)
  target_link_options(${target} BEFORE PRIVATE -Wl,--push-state,--no-as-needed -lstdc++ -Wl,--pop-state)
endfunction()
