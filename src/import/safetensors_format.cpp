#include "safetensors_format.h"

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "nmt/error.h"

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


float bits_to_float(uint32_t bits) {
  float value = 0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// IEEE 754 binary16 to binary32, exactly (every half is a float).
float half_to_float(uint16_t half) {
  const uint32_t sign = uint32_t{half & 0x8000u} << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  const uint32_t mantissa = half & 0x3FFu;
  if (exponent == 0) {  // zero or subnormal: mantissa × 2^-24
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 0x1F) return bits_to_float(sign | 0x7F800000u | mantissa << 13);  // inf, NaN
  return bits_to_float(sign | (exponent + 127 - 15) << 23 | mantissa << 13);
}

uint16_t load_u16(const unsigned char* in) { return static_cast<uint16_t>(in[0] | in[1] << 8); }

uint32_t load_u32(const unsigned char* in) {
  return uint32_t{in[0]} | uint32_t{in[1]} << 8 | uint32_t{in[2]} << 16 | uint32_t{in[3]} << 24;
}

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

std::vector<float> tensor_floats(const std::string& source,
                                 const TensorInfo& tensor,
                                 std::string_view raw) {
  const Dtype dtype = tensor.dtype;
  if (dtype != Dtype::kF32 && dtype != Dtype::kF16 && dtype != Dtype::kBF16) {
    throw ConfigError(source + ": tensor " + quote(tensor.name) + " is " +
                      std::string(dtype_name(dtype)) +
                      ", expected F32, F16 or BF16 to read as floats");
  }
  const auto* in = reinterpret_cast<const unsigned char*>(raw.data());
  std::vector<float> values(raw.size() / dtype_size(dtype));
  // One loop per dtype, so that a 300 MB tensor's loop has no branch to take per element.
  if (dtype == Dtype::kF32) {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = bits_to_float(load_u32(in + 4 * i));
  } else if (dtype == Dtype::kF16) {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = half_to_float(load_u16(in + 2 * i));
  } else {  // BF16: the upper half of an F32
    for (std::size_t i = 0; i < values.size(); ++i) {
      values[i] = bits_to_float(uint32_t{load_u16(in + 2 * i)} << 16);
    }
  }
  return values;
}

}  // namespace detail
}  // namespace nmt::import
