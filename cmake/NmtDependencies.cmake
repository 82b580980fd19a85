# Every third-party dependency, found once. Debian 12 packages provide all of them
# (scripts/install-deps.sh); on the GPU machine scripts/gpu-build.sh points
# CMAKE_PREFIX_PATH at the PyTorch wheel and at unpacked Debian packages.
find_package(Torch REQUIRED)
find_package(CLI11 REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(SENTENCEPIECE REQUIRED IMPORTED_TARGET sentencepiece)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)

# TorchConfig puts its ABI flag in TORCH_CXX_FLAGS; the Debian libraries and the wheel both use the
# C++11 ABI, so every target must agree with it.
add_library(nmt_torch INTERFACE)
target_link_libraries(nmt_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(nmt_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
separate_arguments(_nmt_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
target_compile_options(nmt_torch INTERFACE ${_nmt_torch_flags})
