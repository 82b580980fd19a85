# Sanitizer flags for NMT_SANITIZE (scripts/sanitize.sh) and NMT_FUZZ (scripts/fuzz.sh), applied to
# every target so that the libraries under test and the code calling them agree.
#
# AddressSanitizer + UndefinedBehaviorSanitizer, every report fatal (-fno-sanitize-recover=all):
# a test or fuzz input that triggers undefined behaviour fails instead of printing and going on.
# NMT_FUZZ also adds libFuzzer's coverage instrumentation (fuzzer-no-link) to the libraries; the
# fuzz targets link libFuzzer itself (tests/fuzz/CMakeLists.txt).
if(NOT NMT_SANITIZE AND NOT NMT_FUZZ)
  return()
endif()
if(NMT_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "NMT_FUZZ needs clang (libFuzzer): configure with "
                      "-DCMAKE_CXX_COMPILER=clang++-14 (Debian: clang-14, libclang-rt-14-dev)")
endif()
add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_link_options(-fsanitize=address,undefined)
add_compile_definitions(NMT_ASAN)  # src/text/sentencepiece_loader.cpp: no RTLD_DEEPBIND under ASan
if(NMT_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
