// PyTorch checkpoints as `torch.save(state_dict)` writes them (transformers' pytorch_model.bin),
// read without LibTorch: the weights of `nmt import --format marian` for the OPUS-MT directories
// that ship no safetensors file. Two layouts:
//
//   zip (torch >= 1.6): a ZIP archive of stored entries <prefix>/data.pkl (the pickled state
//     dict), <prefix>/data/<key> (one storage's bytes each), <prefix>/byteorder ("little"), ...
//   legacy (torch < 1.6, or _use_new_zipfile_serialization=False): consecutive pickles (magic
//     number, protocol 1001, system info, the state dict, its storage keys), then each storage
//     as an 8-byte element count and its bytes.
//
// The pickle is read by a restricted unpickler that knows only what a state dict holds:
// collections.OrderedDict, torch._utils._rebuild_tensor_v2 and _rebuild_parameter, and the
// torch.<Type>Storage classes; any other global (os.system, ...) is refused, and nothing a pickle
// names is ever run, so a hostile download can do no more than fail to load. The top level must be a dict of names
// to C-contiguous tensors; tensors may share a storage (tied embeddings) and so overlap.
//
// Every problem of the file is a ConfigError (exit status 2) whose message starts with the file's
// path and names the tensor where there is one, e.g.
//   pytorch_model.bin: pickle global "os.system" is not allowed; nmt reads only tensors
//   pytorch_model.bin: tensor "weight": stride [1, 3] of size [3, 2] is not C-contiguous; nmt
//   reads only contiguous tensors
// Torch-free; never logs.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "nmt/import/safetensors.h"

namespace nmt::import {

// A validated PyTorch checkpoint, memory-mapped (a 300 MB model is not copied) and unmapped when
// destroyed. Movable, not copyable. The file must not be truncated while it is open: reading a
// page that is gone raises SIGBUS, as with any mapping.
class PytorchCheckpoint {
 public:
  // Maps path and reads it. Throws nmt::Error when it cannot be opened or is not a regular file,
  // ConfigError (above) when its content is not a checkpoint this reader accepts.
  static PytorchCheckpoint open(const std::string& path);
  // The same checks on a whole file held in memory; `source` stands for its path in messages.
  static PytorchCheckpoint from_bytes(std::string bytes, std::string source);

  ~PytorchCheckpoint();
  PytorchCheckpoint(PytorchCheckpoint&& other) noexcept;
  PytorchCheckpoint& operator=(PytorchCheckpoint&& other) noexcept;

  // Every tensor, in the state dict's order. A tensor's offset is that of its first element in
  // the file; tensors that share a storage may overlap.
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  // The tensor called name, or nullptr.
  const TensorInfo* find(const std::string& name) const;
  // The path (or from_bytes' source) that messages name.
  const std::string& source() const { return source_; }

  // The raw little-endian bytes of tensor in C order, valid while this object lives. tensor must
  // be one of tensors(); throws std::out_of_range when it lies outside the file.
  std::string_view bytes(const TensorInfo& tensor) const;
  // The values of an F32, F16 or BF16 tensor as floats, in C order. Throws ConfigError naming the
  // tensor and its dtype for any other dtype.
  std::vector<float> to_float(const TensorInfo& tensor) const;

 private:
  class Mapping;

  PytorchCheckpoint();
  void read();
  std::string_view file() const;

  std::string source_;
  std::unique_ptr<Mapping> mapping_;  // null for from_bytes
  std::string owned_bytes_;           // from_bytes' content
  std::vector<TensorInfo> tensors_;
  std::unordered_map<std::string, std::size_t> index_;  // name -> position in tensors_
};

}  // namespace nmt::import
