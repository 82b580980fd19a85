// Hugging Face's safetensors files (https://github.com/huggingface/safetensors), read and written
// without LibTorch: the weights of `nmt import --format marian` and of `nmt export --format
// huggingface`. Layout:
//
//   u64 N (little-endian) | N bytes of JSON header | data section
//
// The header maps each tensor name to {"dtype": "F32", "shape": [d0, ...], "data_offsets":
// [begin, end]} (offsets into the data section, end exclusive) and may hold "__metadata__", a map
// of strings. Tensors are little-endian and in C order.
//
// Reading validates the whole header before any tensor is returned, as strictly as the safetensors
// library (0.4) does: the tensors must cover the data section exactly, with no overlap, no unused
// byte and nothing after the last one; a key given twice is refused too. Every problem of the file
// is a ConfigError (exit status 2) whose message starts with the file's path and names the tensor,
// e.g.
//   model.safetensors: tensor "model.shared.weight": data_offsets [0, 100] hold 100 bytes, but F32
//   [5, 6] needs 120
// and quotes at most 60 bytes of any offending string. Torch-free; never logs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace nmt::import {

// Element types, spelled in headers as "BOOL", "U8", ..., "F8_E4M3". The 8-bit floats are read
// and written as bytes only.
enum class Dtype {
  kBool,
  kU8,
  kI8,
  kI16,
  kU16,
  kF16,
  kBF16,
  kI32,
  kU32,
  kF32,
  kF64,
  kI64,
  kU64,
  kF8E4M3,
  kF8E5M2,
};

// Bytes per element: 1 for BOOL (one byte per value) and the 8-bit types, up to 8 for F64/I64/U64.
std::size_t dtype_size(Dtype dtype);
// The header's name of dtype: "F32", "BF16", "F8_E4M3".
std::string_view dtype_name(Dtype dtype);

// One tensor of a file.
struct TensorInfo {
  std::string name;
  Dtype dtype = Dtype::kF32;
  std::vector<int64_t> shape;  // empty for a scalar
  uint64_t offset = 0;         // of the first byte in the whole file (not in the data section)
  uint64_t bytes = 0;          // elements() * dtype_size(dtype); 0 for a zero-element tensor

  // Product of shape (1 for a scalar).
  int64_t elements() const;
};

// A validated safetensors file, memory-mapped (a 300 MB model is not copied) and unmapped when
// destroyed. Movable, not copyable. The file must not be truncated while it is open: reading a
// page that is gone raises SIGBUS, as with any mapping.
class SafetensorsFile {
 public:
  // Maps path and validates it. Throws nmt::Error when it cannot be opened or is not a regular
  // file, ConfigError (above) when its content is not a valid safetensors file.
  static SafetensorsFile open(const std::string& path);
  // The same checks on a whole file held in memory; `source` stands for its path in messages.
  static SafetensorsFile from_bytes(std::string bytes, std::string source);

  ~SafetensorsFile();
  SafetensorsFile(SafetensorsFile&& other) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&& other) noexcept;

  // Every tensor, in the order of their data (by offset; zero-element tensors at one offset by
  // name).
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  // The tensor called name, or nullptr.
  const TensorInfo* find(const std::string& name) const;
  // "__metadata__" (empty when absent), e.g. {"format": "pt"}.
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // The path (or from_bytes' source) that messages name.
  const std::string& source() const { return source_; }

  // The raw little-endian bytes of tensor, valid while this object lives. tensor must be one of
  // tensors(); throws std::out_of_range when it lies outside the file.
  std::string_view bytes(const TensorInfo& tensor) const;
  // The values of an F32, F16 (IEEE half: subnormals, infinities and NaN kept) or BF16 tensor as
  // floats, in C order. Throws ConfigError naming the tensor and its dtype for any other dtype.
  std::vector<float> to_float(const TensorInfo& tensor) const;

 private:
  class Mapping;

  SafetensorsFile();
  void read_header();
  const char* data() const;
  std::size_t size() const;

  std::string source_;
  std::unique_ptr<Mapping> mapping_;  // null for from_bytes
  std::string owned_bytes_;           // from_bytes' content
  std::vector<TensorInfo> tensors_;
  std::unordered_map<std::string, std::size_t> index_;  // name -> position in tensors_
  std::map<std::string, std::string> metadata_;
};

// A tensor to write: bytes little-endian in C order, exactly elements × dtype_size long. The bytes
// are not copied and must outlive the call.
struct TensorToWrite {
  std::string name;
  Dtype dtype = Dtype::kF32;
  std::vector<int64_t> shape;
  std::string_view bytes;
};

// The bytes a file starts with, before the tensor data: the 8-byte length and the header JSON
// (compact, "__metadata__" first when not empty, then the tensors in the given order, laid out one
// after another), padded with spaces to a multiple of 8 bytes as the safetensors library pads it.
// Throws nmt::Error whose message starts with `where` for a duplicate name or one called
// "__metadata__", a name or metadata string that is not UTF-8, a negative dimension, bytes whose
// size disagrees with shape and dtype, or a header over the 100 MB that readers accept.
std::string encode_safetensors_header(const std::vector<TensorToWrite>& tensors,
                                      const std::map<std::string, std::string>& metadata,
                                      const std::string& where);

// Writes tensors and metadata as a safetensors file at path, atomically (nmt::AtomicFile): after a
// failure, path holds what it held before. Hugging Face exports pass metadata {"format": "pt"},
// which older transformers require. Throws as encode_safetensors_header (before any file is made)
// and nmt::Error when the file cannot be written.
void write_safetensors(const std::string& path,
                       const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata);

}  // namespace nmt::import
