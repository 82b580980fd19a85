#include "pytorch_pickle.h"

#include <string_view>
#include <unordered_set>
#include <utility>

#include "nmt/error.h"
#include "safetensors_format.h"

namespace nmt::import::detail {
namespace {

using Kind = PickleValue::Kind;

// torch.<name> for each storage class a state dict's tensors may have. The others (complex,
// quantized, unsigned beyond 8 bits) have no Dtype of nmt's and are refused.
struct StorageClass {
  std::string_view name;
  Dtype dtype;
};
constexpr StorageClass kStorageClasses[] = {
    {"FloatStorage", Dtype::kF32},  {"HalfStorage", Dtype::kF16}, {"BFloat16Storage", Dtype::kBF16},
    {"DoubleStorage", Dtype::kF64}, {"LongStorage", Dtype::kI64}, {"IntStorage", Dtype::kI32},
    {"ShortStorage", Dtype::kI16},  {"CharStorage", Dtype::kI8},  {"ByteStorage", Dtype::kU8},
    {"BoolStorage", Dtype::kBool},
};

// More than any tensor has: a cap on what each tensor and storage key copies, so that one large
// tuple or string referenced from many places (the memo) does not multiply a pickle's size.
constexpr std::size_t kMaxDimensions = 32;
constexpr std::size_t kMaxKeyBytes = 1024;

bool is_string(const PickleValue& value) { return value.kind == Kind::kString; }
bool is_natural(const PickleValue& value) { return value.kind == Kind::kInt && value.integer >= 0; }

// A tuple of at most kMaxDimensions ints, or false.
bool read_int_tuple(const PickleValue& value, std::vector<int64_t>& ints) {
  if (value.kind != Kind::kTuple || value.items.size() > kMaxDimensions) return false;
  for (const PickleValue* item : value.items) {
    if (item->kind != Kind::kInt) return false;
    ints.push_back(item->integer);
  }
  return true;
}

}  // namespace

PickleValue PytorchPickleHooks::find_global(const std::string& module, const std::string& name) {
  using K = Object::Kind;
  if (module == "collections" && name == "OrderedDict") return make_object({K::kOrderedDict});
  if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
    return make_object({K::kRebuildTensor});
  }
  // Parameters (state dicts saved with keep_vars=True); the _with_state variant adds attributes.
  if (module == "torch._utils" &&
      (name == "_rebuild_parameter" || name == "_rebuild_parameter_with_state")) {
    return make_object({K::kRebuildParameter});
  }
  if (module == "torch") {
    for (const StorageClass& storage_class : kStorageClasses) {
      if (name == storage_class.name) return make_object({K::kStorageType, storage_class.dtype});
    }
  }
  const std::string global = quote(module + "." + name);
  if (module == "torch" && name.size() > 7 && name.compare(name.size() - 7, 7, "Storage") == 0) {
    fail("pickle global " + global + ": nmt does not read tensors of this storage class");
  }
  fail("pickle global " + global + " is not allowed; nmt reads only tensors");
}

PickleValue PytorchPickleHooks::reduce(const PickleValue& callable, const PickleValue& arguments) {
  using K = Object::Kind;
  if (object_of(callable, K::kOrderedDict) != nullptr) {
    if (!arguments.items.empty()) {
      fail("pickle calls collections.OrderedDict with arguments (a state dict's is made empty)");
    }
    PickleValue dict;
    dict.kind = Kind::kDict;
    return dict;
  }
  if (object_of(callable, K::kRebuildTensor) != nullptr) return rebuild_tensor(arguments);
  if (object_of(callable, K::kRebuildParameter) != nullptr) {
    if (arguments.items.size() < 3 || arguments.items.size() > 4 ||
        object_of(*arguments.items[0], K::kTensor) == nullptr) {
      fail("pickle calls torch._utils._rebuild_parameter with " + describe_items(arguments) +
           ", expected (tensor, requires_grad, backward_hooks[, state])");
    }
    return *arguments.items[0];  // the parameter is its tensor
  }
  fail("pickle calls " + describe_value(callable) + ", which is not a function nmt allows");
}

// _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[,
// metadata]); gradients, hooks and metadata do not matter to weights.
PickleValue PytorchPickleHooks::rebuild_tensor(const PickleValue& arguments) {
  const std::vector<const PickleValue*>& items = arguments.items;
  PickledTensor tensor;
  const Object* storage = items.size() == 6 || items.size() == 7
                              ? object_of(*items[0], Object::Kind::kStorage)
                              : nullptr;
  if (storage == nullptr || items[1]->kind != Kind::kInt ||
      !read_int_tuple(*items[2], tensor.shape) || !read_int_tuple(*items[3], tensor.stride) ||
      tensor.shape.size() != tensor.stride.size()) {
    fail("pickle calls torch._utils._rebuild_tensor_v2 with " + describe_items(arguments) +
         ", expected (storage, storage_offset, size, stride, requires_grad, backward_hooks"
         "[, metadata]) with up to " +
         std::to_string(kMaxDimensions) + " dimensions in size and as many in stride");
  }
  tensor.storage = pickled_storages_[storage->index];
  tensor.storage_offset = items[1]->integer;
  tensors_.push_back(std::move(tensor));
  return make_object({Object::Kind::kTensor, Dtype::kU8, tensors_.size() - 1});
}

PickleValue PytorchPickleHooks::persistent_load(const PickleValue& pid) {
  PickledStorage storage = read_storage_id(pid);
  PickledStorage whole = storage;
  whole.is_view = false;
  const auto [known, added] = storages_.emplace(storage.key, whole);
  if (!added &&
      (known->second.dtype != storage.dtype || known->second.elements != storage.elements)) {
    fail("storage " + quote(storage.key) + " is named as " +
         std::string(dtype_name(known->second.dtype)) + " of " +
         std::to_string(known->second.elements) + " elements and then as " +
         std::string(dtype_name(storage.dtype)) + " of " + std::to_string(storage.elements));
  }
  if (storage.is_view && (storage.view_offset > storage.elements ||
                          storage.view_elements > storage.elements - storage.view_offset)) {
    fail("a view of " + std::to_string(storage.view_elements) + " elements from offset " +
         std::to_string(storage.view_offset) + " lies outside storage " + quote(storage.key) +
         " of " + std::to_string(storage.elements) + " elements");
  }
  pickled_storages_.push_back(std::move(storage));
  return make_object({Object::Kind::kStorage, Dtype::kU8, pickled_storages_.size() - 1});
}

// ('storage', torch.<Type>Storage, key, location, elements[, view_metadata]); the location
// ('cpu', 'cuda:0') does not matter: every storage is read from the file.
PickledStorage PytorchPickleHooks::read_storage_id(const PickleValue& pid) const {
  const std::vector<const PickleValue*>& items = pid.items;
  const bool shaped = pid.kind == Kind::kTuple && (items.size() == 5 || items.size() == 6);
  const Object* type = shaped ? object_of(*items[1], Object::Kind::kStorageType) : nullptr;
  if (type == nullptr || !is_string(*items[0]) || items[0]->text != "storage" ||
      !is_string(*items[2]) || items[2]->text.size() > kMaxKeyBytes || !is_string(*items[3]) ||
      !is_natural(*items[4])) {
    fail("pickle persistent id " + describe_items(pid) +
         " is not a storage's ('storage', storage class, key, location, size[, view])");
  }
  PickledStorage storage;
  storage.key = items[2]->text;
  storage.dtype = type->dtype;
  storage.elements = static_cast<uint64_t>(items[4]->integer);
  if (items.size() == 6 && items[5]->kind != Kind::kNone) {
    const PickleValue& view = *items[5];
    if (view.kind != Kind::kTuple || view.items.size() != 3 || !is_string(*view.items[0]) ||
        !is_natural(*view.items[1]) || !is_natural(*view.items[2])) {
      fail("pickle persistent id of storage " + quote(storage.key) + " has the view " +
           describe_items(view) + ", expected (view key, offset, size)");
    }
    storage.is_view = true;
    storage.view_offset = static_cast<uint64_t>(view.items[1]->integer);
    storage.view_elements = static_cast<uint64_t>(view.items[2]->integer);
  }
  return storage;
}

// BUILD sets attributes; on an OrderedDict it is the state dict's _metadata (module versions),
// which weights do not need.
void PytorchPickleHooks::build(const PickleValue& object, const PickleValue& /*state*/) {
  if (object.kind == Kind::kDict) return;
  fail("pickle BUILD sets the state of " + describe_value(object) +
       "; nmt allows it only on the state dict (its _metadata)");
}

std::vector<PickledTensor> PytorchPickleHooks::state_dict(const PickleValue& value) const {
  if (value.kind != Kind::kDict) {
    fail("the pickle holds " + describe_value(value) +
         ", expected a state dict (a dict of names to tensors)");
  }
  std::vector<PickledTensor> tensors;
  std::unordered_set<std::string_view> names;
  for (std::size_t i = 0; i + 1 < value.items.size(); i += 2) {
    const PickleValue& key = *value.items[i];
    const PickleValue& entry = *value.items[i + 1];
    if (!is_string(key)) {
      fail("state dict key " + std::to_string(i / 2) + " is " + describe_value(key) +
           ", expected a string");
    }
    const Object* tensor = object_of(entry, Object::Kind::kTensor);
    if (tensor == nullptr) {
      fail("state dict entry " + quote(key.text) + " is " + describe_value(entry) +
           ", expected a tensor");
    }
    if (!names.insert(key.text).second) fail("state dict names " + quote(key.text) + " twice");
    tensors.push_back(tensors_[tensor->index]);
    tensors.back().name = key.text;
  }
  return tensors;
}

PickleValue PytorchPickleHooks::make_object(Object object) {
  objects_.push_back(object);
  PickleValue value;
  value.kind = Kind::kObject;
  value.integer = static_cast<int64_t>(objects_.size() - 1);
  return value;
}

const PytorchPickleHooks::Object* PytorchPickleHooks::object_of(const PickleValue& value,
                                                                Object::Kind kind) const {
  if (value.kind != Kind::kObject) return nullptr;
  const Object& object = objects_.at(static_cast<std::size_t>(value.integer));
  return object.kind == kind ? &object : nullptr;
}

std::string PytorchPickleHooks::describe_value(const PickleValue& value) const {
  if (value.kind != Kind::kObject) return describe(value);
  switch (objects_.at(static_cast<std::size_t>(value.integer)).kind) {
    case Object::Kind::kOrderedDict:
      return "collections.OrderedDict";
    case Object::Kind::kRebuildTensor:
      return "torch._utils._rebuild_tensor_v2";
    case Object::Kind::kRebuildParameter:
      return "torch._utils._rebuild_parameter";
    case Object::Kind::kStorageType:
      return "a storage class";
    case Object::Kind::kStorage:
      return "a storage";
    case Object::Kind::kTensor:
      return "a tensor";
  }
  return "an object";
}

// "(a string, a storage class, an int)": a tuple's items, described (not quoted: they may be
// huge); "a list" for anything else.
std::string PytorchPickleHooks::describe_items(const PickleValue& value) const {
  if (value.kind != Kind::kTuple) return describe_value(value);
  std::string text = "(";
  for (std::size_t i = 0; i < value.items.size() && i < kMaxDimensions; ++i) {
    text += (i == 0 ? "" : ", ") + describe_value(*value.items[i]);
  }
  return text + (value.items.size() > kMaxDimensions ? ", ...)" : ")");
}

void PytorchPickleHooks::fail(const std::string& problem) const {
  throw ConfigError(source_ + ": " + problem);
}

}  // namespace nmt::import::detail
