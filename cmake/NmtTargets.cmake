# nmt_warnings: the warning set every nmt target compiles with.
add_library(nmt_warnings INTERFACE)
target_compile_options(nmt_warnings INTERFACE -Wall -Wextra -Wpedantic)

# nmt_add_library(name SOURCES ... DEPS ...): one static library per module.
function(nmt_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE nmt_warnings)
endfunction()
