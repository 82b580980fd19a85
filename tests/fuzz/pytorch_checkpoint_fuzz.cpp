// Fuzzes the PyTorch checkpoint reader (nmt/import/pytorch_checkpoint.h) on arbitrary file
// content: the zip archive, the restricted unpickler and the legacy layout. Only ConfigError may
// escape; an accepted checkpoint's tensors have distinct names, lie inside the file and hold
// elements x dtype size bytes, and its float tensors convert to one value per element.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "nmt/error.h"
#include "nmt/import/pytorch_checkpoint.h"

namespace {

using nmt::import::Dtype;
using nmt::import::PytorchCheckpoint;
using nmt::import::TensorInfo;

void check_tensors(const PytorchCheckpoint& checkpoint, std::size_t file_size) {
  for (const TensorInfo& tensor : checkpoint.tensors()) {
    NMT_FUZZ_CHECK(checkpoint.find(tensor.name) == &tensor, "names are distinct; find lists them");
    NMT_FUZZ_CHECK(tensor.bytes == static_cast<uint64_t>(tensor.elements()) *
                                       nmt::import::dtype_size(tensor.dtype),
                   "a tensor holds elements x dtype size bytes");
    NMT_FUZZ_CHECK(tensor.offset <= file_size && tensor.bytes <= file_size - tensor.offset,
                   "a tensor lies inside the file");
    NMT_FUZZ_CHECK(checkpoint.bytes(tensor).size() == tensor.bytes, "bytes spans the tensor");
    if (tensor.dtype == Dtype::kF32 || tensor.dtype == Dtype::kF16 ||
        tensor.dtype == Dtype::kBF16) {
      NMT_FUZZ_CHECK(
          checkpoint.to_float(tensor).size() == static_cast<std::size_t>(tensor.elements()),
          "a float tensor converts to one value per element");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::optional<PytorchCheckpoint> checkpoint;
  try {
    checkpoint = PytorchCheckpoint::from_bytes(std::string(nmt::fuzz::as_text(data, size)), "fuzz");
  } catch (const nmt::ConfigError&) {
    return 0;
  }
  check_tensors(*checkpoint, size);
  return 0;
}
