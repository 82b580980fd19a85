# Every third-party dependency, found once. Debian 12 packages provide all of them
# (scripts/install-deps.sh); on the GPU machine scripts/gpu-build.sh points CMAKE_PREFIX_PATH at
# the PyTorch wheel's LibTorch and at Debian packages unpacked into .deps/. A sanitized build
# (NMT_WITH_TORCH off) stops before LibTorch and oneDNN.
find_package(CLI11 REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(ZLIB REQUIRED)  # gzip-compressed corpora

# SentencePiece and utf8proc ship pkg-config files only; plain find_* calls also work where
# pkg-config is missing (the GPU machine) and honour CMAKE_PREFIX_PATH.
function(nmt_find_c_library target header)
  cmake_parse_arguments(ARG "" "" "NAMES" ${ARGN})
  find_path(${target}_INCLUDE_DIR ${header} REQUIRED)
  add_library(nmt::${target} INTERFACE IMPORTED)
  foreach(name IN LISTS ARG_NAMES)
    find_library(${target}_${name}_LIBRARY ${name} REQUIRED)
    target_link_libraries(nmt::${target} INTERFACE ${${target}_${name}_LIBRARY})
  endforeach()
  target_include_directories(nmt::${target} SYSTEM INTERFACE ${${target}_INCLUDE_DIR})
endfunction()
nmt_find_c_library(utf8proc utf8proc.h NAMES utf8proc)
# ICU's common library (libicu-dev): sentence segmentation of the text nmt translates; libxml2's
# HTML parser (libxml2-dev): the text of HTML it translates.
find_package(ICU 67 REQUIRED COMPONENTS uc)
find_package(LibXml2 2.9 REQUIRED)
nmt_find_c_library(sentencepiece sentencepiece_processor.h NAMES sentencepiece sentencepiece_train)
# Boost.Beast and Asio (libboost-dev, header-only) for nmt serve's HTTP layer.
find_package(Boost 1.74 REQUIRED)
# cpp-httplib (libcpp-httplib-dev): the serve tests' HTTP client. Debian builds the library with OpenSSL, zlib and
# Brotli support, and its declarations change with those switches, so every user of the header
# compiles with the same three (its pkg-config Cflags).
nmt_find_c_library(httplib httplib.h NAMES cpp-httplib)
target_compile_definitions(nmt::httplib INTERFACE
  CPPHTTPLIB_OPENSSL_SUPPORT CPPHTTPLIB_ZLIB_SUPPORT CPPHTTPLIB_BROTLI_SUPPORT)
find_package(Threads REQUIRED)

if(NOT NMT_WITH_TORCH)
  return()
endif()
find_package(Torch REQUIRED)

# tcmalloc (gperftools' minimal library, Debian libtcmalloc-minimal4), the program's malloc: with
# glibc's, bf16 training kept freed memory of oneDNN's varied sizes in its heap and grew to 2.9 GiB
# in 3 minutes where tcmalloc peaks at 1.3 GiB, as fast or faster
# (data/benchmarks/train-memory-bf16-2026-12-04-xeon-167). Only its runtime file is needed: nmt
# calls none of its functions by name.
find_library(NMT_TCMALLOC_LIBRARY NAMES tcmalloc_minimal libtcmalloc_minimal.so.4)
if(NOT NMT_TCMALLOC_LIBRARY)
  message(WARNING "tcmalloc not found (Debian: libtcmalloc-minimal4): nmt keeps glibc's malloc, "
                  "and bf16 training on a CPU may hold twice the memory (docs/corpora.md)")
endif()

# TorchConfig puts its ABI flag in TORCH_CXX_FLAGS; the Debian libraries and the wheel both use the
# C++11 ABI, so every target that sees Torch must agree with it.
add_library(nmt_torch INTERFACE)
target_link_libraries(nmt_torch INTERFACE ${TORCH_LIBRARIES})
# at::parallel_for is a header template whose work-sharing is an OpenMP pragma: compiled without
# OpenMP it runs its whole range on the calling thread. Both LibTorches are built with GNU OpenMP,
# so every target that sees Torch compiles with it too and links the same runtime (the loader keeps
# one libgomp.so.1 per process, whichever directory it came from).
find_package(OpenMP REQUIRED COMPONENTS CXX)
target_link_libraries(nmt_torch INTERFACE OpenMP::OpenMP_CXX)
target_include_directories(nmt_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
# The PyTorch wheel ships fmt 12 headers inside its include directory, where they would shadow the
# fmt that Debian's spdlog 1.10 was built against: the packaged fmt must come first. Where that fmt
# is in a system directory (/usr/include), which no -isystem can move forward, a directory of the
# build holding only a link to its fmt/ goes first instead.
set(_nmt_torch_has_fmt OFF)
foreach(_nmt_dir IN LISTS TORCH_INCLUDE_DIRS)
  if(EXISTS "${_nmt_dir}/fmt/core.h")
    set(_nmt_torch_has_fmt ON)
  endif()
endforeach()
get_target_property(_nmt_fmt_dirs fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
if(_nmt_torch_has_fmt AND _nmt_fmt_dirs)
  list(GET _nmt_fmt_dirs 0 _nmt_fmt_dir)
  if(NOT _nmt_fmt_dir IN_LIST TORCH_INCLUDE_DIRS)
    if(_nmt_fmt_dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
      file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/nmt-fmt-include")
      file(CREATE_LINK "${_nmt_fmt_dir}/fmt" "${CMAKE_BINARY_DIR}/nmt-fmt-include/fmt" SYMBOLIC)
      set(_nmt_fmt_dir "${CMAKE_BINARY_DIR}/nmt-fmt-include")
    endif()
    target_include_directories(nmt_torch SYSTEM BEFORE INTERFACE ${_nmt_fmt_dir})
  endif()
endif()
separate_arguments(_nmt_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
target_compile_options(nmt_torch INTERFACE ${_nmt_torch_flags})

# c10d's Gloo process group: its header includes Gloo's, which Debian ships in libgloo-dev and the
# PyTorch wheel may not. NCCL: in a CUDA LibTorch (the wheel), whose c10d was built with it.
find_path(NMT_GLOO_INCLUDE_DIR gloo/config.h HINTS ${TORCH_INCLUDE_DIRS})
set(NMT_HAVE_GLOO OFF)
if(NMT_GLOO_INCLUDE_DIR)
  set(NMT_HAVE_GLOO ON)
else()
  message(WARNING "Gloo headers not found (Debian: libgloo-dev): CPU ranks cannot train together")
endif()
set(NMT_HAVE_NCCL OFF)
set(NMT_HAVE_CUDA OFF)
if(TORCH_CUDA_LIBRARIES OR CUDA_FOUND)
  set(NMT_HAVE_CUDA ON)
  # c10d's NCCL header includes nccl.h, which the wheel keeps in its nvidia-nccl dependency
  # (scripts/gpu-build.sh passes NMT_NCCL_INCLUDE_HINT).
  find_path(NMT_NCCL_HEADER torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp HINTS ${TORCH_INCLUDE_DIRS})
  find_path(NMT_NCCL_INCLUDE_DIR nccl.h HINTS ${NMT_NCCL_INCLUDE_HINT} ${CUDAToolkit_INCLUDE_DIRS})
  if(NMT_NCCL_HEADER AND NMT_NCCL_INCLUDE_DIR)
    set(NMT_HAVE_NCCL ON)
    target_include_directories(nmt_torch SYSTEM INTERFACE ${NMT_NCCL_INCLUDE_DIR})
  else()
    message(WARNING "NCCL headers not found: CUDA ranks cannot train together (nmt train --nproc)")
  endif()
endif()
