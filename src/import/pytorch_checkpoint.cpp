#include "nmt/import/pytorch_checkpoint.h"

#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "nmt/error.h"
#include "nmt/mapped_file.h"
#include "pickle_reader.h"
#include "refusal.h"
#include "pytorch_pickle.h"
#include "safetensors_format.h"
#include "zip_archive.h"

namespace nmt::import {
namespace {

using detail::fail;
using detail::PickledStorage;
using detail::PickledTensor;
using detail::PickleValue;
using detail::quote;

// 0x1950a86a20f9469cfc6c, the legacy format's first pickle, as LONG1 holds it (little-endian).
constexpr std::string_view kLegacyMagic = "\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";
constexpr int64_t kLegacyProtocol = 1001;
constexpr std::string_view kPickleName = "data.pkl";

// Where one storage's bytes lie in the file.
struct StorageBytes {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

// The state dict's tensors and, by key, where their storages lie.
struct Contents {
  std::vector<PickledTensor> tensors;
  std::map<std::string, StorageBytes> storages;
};

bool fits(std::string_view file, uint64_t offset, uint64_t length) {
  return offset <= file.size() && length <= file.size() - offset;
}

uint64_t storage_bytes(const PickledStorage& storage, const std::string& source) {
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(storage.elements, dtype_size(storage.dtype), &bytes)) {
    fail(source, "storage " + quote(storage.key) + " of " + std::to_string(storage.elements) + " " +
                     std::string(dtype_name(storage.dtype)) + " elements is too large");
  }
  return bytes;
}

void require_stored(const detail::ZipEntry& entry, const std::string& source) {
  if (entry.method != 0) {
    fail(source, "zip entry " + quote(entry.name) + " is compressed (method " +
                     std::to_string(entry.method) +
                     "); torch.save stores its entries uncompressed");
  }
}

std::string_view stored_bytes(std::string_view file,
                              const detail::ZipEntry& entry,
                              const std::string& source) {
  require_stored(entry, source);
  return file.substr(entry.data_offset, entry.size);
}

// The one <prefix>/data.pkl of the archive (torch names the prefix after the file, or "archive").
const detail::ZipEntry& find_pickle(const std::vector<detail::ZipEntry>& entries,
                                    const std::string& source) {
  const detail::ZipEntry* found = nullptr;
  for (const detail::ZipEntry& entry : entries) {
    const std::string& name = entry.name;
    if (name.size() <= kPickleName.size() + 1 ||
        name.compare(name.size() - kPickleName.size(), kPickleName.size(), kPickleName) != 0 ||
        name.find('/') != name.size() - kPickleName.size() - 1) {
      continue;
    }
    if (found != nullptr) {
      fail(source,
           "the zip archive holds two pickles, " + quote(found->name) + " and " + quote(name));
    }
    found = &entry;
  }
  if (found == nullptr) {
    fail(source, "the zip archive has no <prefix>/data.pkl: it is not a torch.save checkpoint");
  }
  return *found;
}

void check_byteorder(std::string_view file,
                     const std::unordered_map<std::string, const detail::ZipEntry*>& entries,
                     const std::string& prefix,
                     const std::string& source) {
  const auto found = entries.find(prefix + "byteorder");
  if (found == entries.end()) return;  // torch before 1.9 wrote none, on little-endian machines
  const std::string_view order = stored_bytes(file, *found->second, source);
  if (order == "little") return;
  fail(source, "byteorder is " + quote(order) + "; nmt reads only little-endian checkpoints");
}

Contents read_zip(std::string_view file, const std::string& source) {
  const std::vector<detail::ZipEntry> entries = detail::read_zip_entries(file, source);
  std::unordered_map<std::string, const detail::ZipEntry*> by_name;
  for (const detail::ZipEntry& entry : entries) by_name.emplace(entry.name, &entry);
  const detail::ZipEntry& pickle = find_pickle(entries, source);
  const std::string prefix = pickle.name.substr(0, pickle.name.size() - kPickleName.size());
  check_byteorder(file, by_name, prefix, source);

  detail::PytorchPickleHooks hooks(source);
  detail::PickleReader reader(stored_bytes(file, pickle, source), source + ": " + pickle.name,
                              hooks);
  Contents contents;
  contents.tensors = hooks.state_dict(reader.load());
  for (const auto& [key, storage] : hooks.storages()) {
    const std::string name = prefix + "data/" + key;
    const auto found = by_name.find(name);
    if (found == by_name.end()) {
      fail(source, "storage " + quote(key) + " has no zip entry " + quote(name));
    }
    const detail::ZipEntry& entry = *found->second;
    require_stored(entry, source);
    const uint64_t bytes = storage_bytes(storage, source);
    if (entry.size != bytes) {
      fail(source, "zip entry " + quote(name) + " holds " + std::to_string(entry.size) +
                       " bytes, but storage " + quote(key) + " of " +
                       std::to_string(storage.elements) + " " +
                       std::string(dtype_name(storage.dtype)) + " elements needs " +
                       std::to_string(bytes));
    }
    contents.storages[key] = {entry.data_offset, bytes};
  }
  return contents;
}

// The legacy format's system info: {"protocol_version": 1001, "little_endian": True, ...}.
void check_little_endian(const PickleValue& info, const std::string& source) {
  if (info.kind == PickleValue::Kind::kDict) {
    for (std::size_t i = 0; i + 1 < info.items.size(); i += 2) {
      const PickleValue& key = *info.items[i];
      const PickleValue& value = *info.items[i + 1];
      if (key.kind != PickleValue::Kind::kString || key.text != "little_endian") continue;
      if (value.kind == PickleValue::Kind::kBool && value.integer == 1) return;
      fail(source,
           "the checkpoint was written on a big-endian machine; nmt reads only "
           "little-endian checkpoints");
    }
  }
  fail(source, "the legacy checkpoint's system info has no little_endian flag");
}

// After the pickles: each storage named in the key list, as an 8-byte element count and data.
void read_legacy_storages(std::string_view file,
                          uint64_t position,
                          const PickleValue& keys,
                          const detail::PytorchPickleHooks& hooks,
                          Contents& contents,
                          const std::string& source) {
  if (keys.kind != PickleValue::Kind::kList) {
    fail(source, "the legacy checkpoint's storage keys are " + detail::describe(keys) +
                     ", expected a list");
  }
  for (const PickleValue* key : keys.items) {
    const auto storage = key->kind == PickleValue::Kind::kString ? hooks.storages().find(key->text)
                                                                 : hooks.storages().end();
    if (storage == hooks.storages().end()) {
      fail(source, "the legacy checkpoint lists a storage key that no tensor names");
    }
    const std::string what = "storage " + quote(key->text);
    const uint64_t bytes = storage_bytes(storage->second, source);
    if (!fits(file, position, 8) || !fits(file, position + 8, bytes)) {
      fail(source, what + " at byte " + std::to_string(position) +
                       " runs past the end of the file (the file is truncated)");
    }
    uint64_t count = 0;  // little-endian
    for (uint64_t i = 8; i-- > 0;)
      count = count << 8 | static_cast<unsigned char>(file[position + i]);
    if (count != storage->second.elements) {
      fail(source, what + " holds " + std::to_string(count) + " elements, but its tensors name " +
                       std::to_string(storage->second.elements));
    }
    if (!contents.storages.emplace(key->text, StorageBytes{position + 8, bytes}).second) {
      fail(source, "the legacy checkpoint lists " + what + " twice");
    }
    position += 8 + bytes;
  }
  for (const auto& [key, storage] : hooks.storages()) {
    if (contents.storages.count(key) == 0) {
      fail(source, "storage " + quote(key) + " has no data in the file");
    }
  }
}

Contents read_legacy(std::string_view file, const std::string& source) {
  detail::PytorchPickleHooks hooks(source);
  detail::PickleReader reader(file, source, hooks);
  const PickleValue& magic = reader.load();
  if (magic.kind != PickleValue::Kind::kBigInt || magic.text != kLegacyMagic) {
    fail(source,
         "not a PyTorch checkpoint: neither a zip archive nor torch.save's legacy format "
         "(its magic number is missing)");
  }
  const PickleValue& protocol = reader.load();
  if (protocol.kind != PickleValue::Kind::kInt || protocol.integer != kLegacyProtocol) {
    fail(source, "the legacy checkpoint's protocol is not 1001, the only one torch.save wrote");
  }
  check_little_endian(reader.load(), source);
  Contents contents;
  contents.tensors = hooks.state_dict(reader.load());
  const PickleValue& keys = reader.load();
  read_legacy_storages(file, reader.position(), keys, hooks, contents, source);
  return contents;
}

// Whether stride lays shape out in C order. Like torch's is_contiguous, a dimension of size 1
// may have any stride, and a tensor without elements is contiguous.
bool is_contiguous(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride) {
  for (const int64_t dim : shape) {
    if (dim == 0) return true;
  }
  int64_t expected = 1;  // no overflow: the product of every dimension fits (count_bytes)
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && stride[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

// tensor's place in the file, checked to lie in its storage.
TensorInfo locate(const PickledTensor& tensor,
                  const std::map<std::string, StorageBytes>& storages,
                  const std::string& source) {
  const auto fail_tensor = [&](const std::string& problem) {
    fail(source, "tensor " + quote(tensor.name) + ": " + problem);
  };
  const PickledStorage& storage = tensor.storage;
  for (const int64_t dim : tensor.shape) {
    if (dim < 0)
      fail_tensor("size " + detail::describe_shape(tensor.shape) + " has a negative dimension");
  }
  const detail::ByteCount count = detail::count_bytes(storage.dtype, tensor.shape);
  if (!count.problem.empty()) fail_tensor(count.problem);
  if (!is_contiguous(tensor.shape, tensor.stride)) {
    fail_tensor("stride " + detail::describe_shape(tensor.stride) + " of size " +
                detail::describe_shape(tensor.shape) +
                " is not C-contiguous; nmt reads only contiguous tensors");
  }
  const uint64_t element_size = dtype_size(storage.dtype);
  const uint64_t elements = count.bytes / element_size;
  const uint64_t first = storage.is_view ? storage.view_offset : 0;
  const uint64_t available = storage.is_view ? storage.view_elements : storage.elements;
  if (tensor.storage_offset < 0) {
    fail_tensor("storage_offset " + std::to_string(tensor.storage_offset) + " is negative");
  }
  const auto offset = static_cast<uint64_t>(tensor.storage_offset);
  if (offset > available || elements > available - offset) {
    fail_tensor("its elements [" + std::to_string(offset) + ", " +
                std::to_string(offset + elements) + ") lie outside its storage " +
                quote(storage.key) + ", which holds " + std::to_string(available));
  }
  TensorInfo info;
  info.name = tensor.name;
  info.dtype = storage.dtype;
  info.shape = tensor.shape;
  info.offset = storages.at(storage.key).offset + (first + offset) * element_size;
  info.bytes = count.bytes;
  return info;
}

}  // namespace

// The mapping of an opened file (nmt/mapped_file.h), under the name the header declares.
class PytorchCheckpoint::Mapping : public MappedFile {
 public:
  using MappedFile::MappedFile;
};

PytorchCheckpoint::PytorchCheckpoint() = default;
PytorchCheckpoint::~PytorchCheckpoint() = default;
PytorchCheckpoint::PytorchCheckpoint(PytorchCheckpoint&& other) noexcept = default;
PytorchCheckpoint& PytorchCheckpoint::operator=(PytorchCheckpoint&& other) noexcept = default;

PytorchCheckpoint PytorchCheckpoint::open(const std::string& path) {
  PytorchCheckpoint checkpoint;
  checkpoint.source_ = path;
  checkpoint.mapping_ = std::make_unique<Mapping>(path);
  checkpoint.read();
  return checkpoint;
}

PytorchCheckpoint PytorchCheckpoint::from_bytes(std::string bytes, std::string source) {
  PytorchCheckpoint checkpoint;
  checkpoint.source_ = std::move(source);
  checkpoint.owned_bytes_ = std::move(bytes);
  checkpoint.read();
  return checkpoint;
}

std::string_view PytorchCheckpoint::file() const {
  if (mapping_) return {mapping_->data(), mapping_->size()};
  return owned_bytes_;
}

void PytorchCheckpoint::read() {
  const std::string_view content = file();
  Contents contents;
  if (content.substr(0, 2) == "PK") {
    contents = read_zip(content, source_);
  } else if (!content.empty() && static_cast<unsigned char>(content[0]) == 0x80) {  // PROTO
    contents = read_legacy(content, source_);
  } else {
    fail(source_, "not a PyTorch checkpoint: neither a zip archive nor torch.save's legacy format");
  }
  for (const PickledTensor& tensor : contents.tensors) {
    tensors_.push_back(locate(tensor, contents.storages, source_));
    index_.emplace(tensors_.back().name, tensors_.size() - 1);
  }
}

const TensorInfo* PytorchCheckpoint::find(const std::string& name) const {
  const auto found = index_.find(name);
  return found == index_.end() ? nullptr : &tensors_[found->second];
}

std::string_view PytorchCheckpoint::bytes(const TensorInfo& tensor) const {
  const std::string_view content = file();
  if (!fits(content, tensor.offset, tensor.bytes)) {
    throw std::out_of_range(source_ + ": tensor " + quote(tensor.name) + " lies outside the file");
  }
  return content.substr(tensor.offset, tensor.bytes);
}

std::vector<float> PytorchCheckpoint::to_float(const TensorInfo& tensor) const {
  return detail::tensor_floats(source_, tensor, bytes(tensor));
}

}  // namespace nmt::import
