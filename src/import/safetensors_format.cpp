#include "safetensors_format.h"

#include <nlohmann/json.hpp>

namespace nmt::import {
namespace {

constexpr std::size_t kMaxQuotedBytes = 60;

struct DtypeSpec {
  Dtype dtype;
  std::string_view name;
  std::size_t size;
};

// In the order of enum class Dtype.
constexpr DtypeSpec kDtypes[] = {
    {Dtype::kBool, "BOOL", 1}, {Dtype::kU8, "U8", 1},          {Dtype::kI8, "I8", 1},
    {Dtype::kI16, "I16", 2},   {Dtype::kU16, "U16", 2},        {Dtype::kF16, "F16", 2},
    {Dtype::kBF16, "BF16", 2}, {Dtype::kI32, "I32", 4},        {Dtype::kU32, "U32", 4},
    {Dtype::kF32, "F32", 4},   {Dtype::kF64, "F64", 8},        {Dtype::kI64, "I64", 8},
    {Dtype::kU64, "U64", 8},   {Dtype::kF8E4M3, "F8_E4M3", 1}, {Dtype::kF8E5M2, "F8_E5M2", 1},
};

const DtypeSpec& spec(Dtype dtype) { return kDtypes[static_cast<std::size_t>(dtype)]; }

}  // namespace

std::size_t dtype_size(Dtype dtype) { return spec(dtype).size; }

std::string_view dtype_name(Dtype dtype) { return spec(dtype).name; }

int64_t TensorInfo::elements() const {
  int64_t count = 1;
  for (const int64_t dim : shape) count *= dim;
  return count;
}

namespace detail {

std::optional<Dtype> dtype_from_name(std::string_view name) {
  for (const DtypeSpec& known : kDtypes) {
    if (known.name == name) return known.dtype;
  }
  return std::nullopt;
}

std::string dtype_names() {
  std::string names;
  for (const DtypeSpec& known : kDtypes) {
    names += names.empty() ? "" : ", ";
    names += known.name;
  }
  return names;
}

std::string quote(std::string_view text) {
  using json = nlohmann::json;
  const auto as_json = [](std::string_view part) {
    return json(std::string(part)).dump(-1, ' ', false, json::error_handler_t::replace);
  };
  if (text.size() <= kMaxQuotedBytes) return as_json(text);
  std::size_t cut = kMaxQuotedBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  std::string quoted = as_json(text.substr(0, cut));
  quoted.insert(quoted.size() - 1, "...");
  return quoted + " (" + std::to_string(text.size()) + " bytes)";
}

std::string describe_shape(const std::vector<int64_t>& shape) {
  constexpr std::size_t kMaxShown = 8;
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size() && i < kMaxShown; ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  }
  if (shape.size() <= kMaxShown) return text + "]";
  return text + ", ...] (" + std::to_string(shape.size()) + " dimensions)";
}

ByteCount count_bytes(Dtype dtype, const std::vector<int64_t>& shape) {
  int64_t elements = 1;
  for (const int64_t dim : shape) {
    if (__builtin_mul_overflow(elements, dim, &elements)) {
      return {0, "shape " + describe_shape(shape) + " has more than " +
                     std::to_string(kMaxElements) + " elements"};
    }
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(elements), dtype_size(dtype), &bytes)) {
    return {0, std::string(dtype_name(dtype)) + " " + describe_shape(shape) + " needs more than " +
                   std::to_string(std::numeric_limits<uint64_t>::max()) + " bytes"};
  }
  return {bytes, ""};
}

}  // namespace detail
}  // namespace nmt::import
