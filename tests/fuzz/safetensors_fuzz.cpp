// Fuzzes the safetensors reader (nmt/import/safetensors.h) on arbitrary file content. Only
// ConfigError may escape; an accepted file's tensors lie one after another inside it, its float
// tensors convert to one value per element, and what encode_safetensors_header writes for the
// same tensors and metadata reads back identical.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "nmt/error.h"
#include "nmt/import/safetensors.h"

namespace {

using nmt::import::Dtype;
using nmt::import::SafetensorsFile;
using nmt::import::TensorInfo;

void check_tensors(const SafetensorsFile& file) {
  const std::vector<TensorInfo>& tensors = file.tensors();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& tensor = tensors[i];
    NMT_FUZZ_CHECK(file.find(tensor.name) == &tensor, "find returns the listed tensor");
    NMT_FUZZ_CHECK(tensor.bytes == static_cast<uint64_t>(tensor.elements()) *
                                       nmt::import::dtype_size(tensor.dtype),
                   "a tensor holds elements x dtype size bytes");
    NMT_FUZZ_CHECK(file.bytes(tensor).size() == tensor.bytes, "bytes spans the tensor");
    if (i > 0) {
      NMT_FUZZ_CHECK(tensor.offset == tensors[i - 1].offset + tensors[i - 1].bytes,
                     "tensors lie one after another");
    }
    if (tensor.dtype == Dtype::kF32 || tensor.dtype == Dtype::kF16 ||
        tensor.dtype == Dtype::kBF16) {
      NMT_FUZZ_CHECK(file.to_float(tensor).size() == static_cast<std::size_t>(tensor.elements()),
                     "a float tensor converts to one value per element");
    }
  }
}

void check_round_trip(const SafetensorsFile& file) {
  std::vector<nmt::import::TensorToWrite> tensors;
  std::string data;
  for (const TensorInfo& tensor : file.tensors()) {
    tensors.push_back({tensor.name, tensor.dtype, tensor.shape, file.bytes(tensor)});
    data += file.bytes(tensor);
  }
  std::optional<SafetensorsFile> reread;
  try {
    const std::string header =
        nmt::import::encode_safetensors_header(tensors, file.metadata(), "written.safetensors");
    reread = SafetensorsFile::from_bytes(header + data, "written.safetensors");
  } catch (const nmt::Error& error) {
    std::fprintf(stderr, "written file refused: %s\n", error.what());
    NMT_FUZZ_CHECK(false, "an accepted file can be written and read back");
  }
  NMT_FUZZ_CHECK(reread->metadata() == file.metadata(), "metadata round-trips");
  NMT_FUZZ_CHECK(reread->tensors().size() == file.tensors().size(), "every tensor round-trips");
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& before = file.tensors()[i];
    const TensorInfo& after = reread->tensors()[i];
    NMT_FUZZ_CHECK(after.name == before.name && after.dtype == before.dtype &&
                       after.shape == before.shape && after.bytes == before.bytes,
                   "a tensor's name, dtype, shape and size round-trip in order");
    NMT_FUZZ_CHECK(reread->bytes(after) == file.bytes(before), "a tensor's bytes round-trip");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::optional<SafetensorsFile> file;
  try {
    file = SafetensorsFile::from_bytes(std::string(nmt::fuzz::as_text(data, size)), "fuzz");
  } catch (const nmt::ConfigError&) {
    return 0;
  }
  check_tensors(*file);
  check_round_trip(*file);
  return 0;
}
