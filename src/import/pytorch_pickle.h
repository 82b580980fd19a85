// What torch.save's pickle of a state dict means: the globals it may name (OrderedDict, the
// tensor and parameter rebuilders, the storage classes), its persistent ids (storages) and the
// state dict of tensors it holds, for PickleReader. Everything else a pickle could call is
// refused. Private to src/import/.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nmt/import/safetensors.h"
#include "pickle_reader.h"

namespace nmt::import::detail {

// A storage as its persistent id names it: ('storage', torch.<Type>Storage, key, location,
// elements) in the zip format, with a sixth item, view_metadata, in the legacy format.
struct PickledStorage {
  std::string key;
  Dtype dtype = Dtype::kU8;
  uint64_t elements = 0;  // of the whole storage called key
  // The legacy format's view_metadata (view_key, offset, size): the tensor's storage is then
  // elements [view_offset, view_offset + view_elements) of key's. Without one, all of key's.
  bool is_view = false;
  uint64_t view_offset = 0;
  uint64_t view_elements = 0;
};

// One tensor of the state dict, as torch._utils._rebuild_tensor_v2 received it.
struct PickledTensor {
  std::string name;
  PickledStorage storage;
  int64_t storage_offset = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> stride;
};

class PytorchPickleHooks : public PickleHooks {
 public:
  // source starts the messages ("<source>: pickle global ...").
  explicit PytorchPickleHooks(std::string source) : source_(std::move(source)) {}

  PickleValue find_global(const std::string& module, const std::string& name) override;
  PickleValue reduce(const PickleValue& callable, const PickleValue& arguments) override;
  PickleValue persistent_load(const PickleValue& pid) override;
  void build(const PickleValue& object, const PickleValue& state) override;

  // The tensors of the state dict that value (a pickle's result) is, in its order. Throws
  // ConfigError unless value is a dict of distinct strings to tensors.
  std::vector<PickledTensor> state_dict(const PickleValue& value) const;
  // Each storage the persistent ids named, by key, as a whole (no view).
  const std::map<std::string, PickledStorage>& storages() const { return storages_; }

 private:
  // What a kObject value's integer indexes.
  struct Object {
    enum class Kind {
      kOrderedDict,
      kRebuildTensor,
      kRebuildParameter,
      kStorageType,
      kStorage,
      kTensor
    };
    Kind kind = Kind::kOrderedDict;
    Dtype dtype = Dtype::kU8;  // kStorageType
    std::size_t index = 0;     // kStorage: in pickled_storages_; kTensor: in tensors_
  };

  PickleValue make_object(Object object);
  const Object* object_of(const PickleValue& value, Object::Kind kind) const;
  PickleValue rebuild_tensor(const PickleValue& arguments);
  PickledStorage read_storage_id(const PickleValue& pid) const;
  // "a tensor", "collections.OrderedDict", "a dict": what value is, for messages.
  std::string describe_value(const PickleValue& value) const;
  std::string describe_items(const PickleValue& value) const;
  [[noreturn]] void fail(const std::string& problem) const;

  std::string source_;
  std::vector<Object> objects_;
  std::vector<PickledStorage> pickled_storages_;
  std::vector<PickledTensor> tensors_;  // names empty until state_dict
  std::map<std::string, PickledStorage> storages_;
};

}  // namespace nmt::import::detail
