// CTranslate2's model.bin, the file its runtime loads (CTranslate2: src/models/model.cc reads it,
// python/ctranslate2/specs/model_spec.py writes it). Little-endian throughout:
//
//   u32 binary version (6) | string spec name | u32 spec revision | u32 variable count
//   per variable, sorted by name: string name | u8 rank | u32 dims[rank] | u8 dtype | u32 byte
//   count
//                                 | the values, row-major
//   u32 alias count | per alias: string alias | string target
//
// where a string is a u16 length (NUL included), its bytes and a NUL. As CTranslate2's own writer
// does, a variable whose dtype, shape and bytes equal those of a variable earlier in name order
// (tied or shared embeddings, identical position tables) is stored once and written as an alias
// of that first one; scalars are never aliased.
//
// Torch-free; throws nmt::Error naming the variable when it does not fit the format (a name over
// 65,534 bytes, more than 255 dimensions, a dimension or a payload over 4 GiB); never logs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nmt::exporter {

inline constexpr uint32_t kModelBinVersion = 6;

// Element types, numbered as CTranslate2's DataType enum (include/ctranslate2/types.h).
enum class Ct2Type : uint8_t { kFloat32 = 0, kInt8 = 1, kInt16 = 2 };

// Bytes per element of type.
std::size_t type_size(Ct2Type type);

// One named array (or scalar, with an empty shape) of a model.
struct Ct2Variable {
  std::string name;            // e.g. "encoder/layer_0/ffn/linear_0/weight"
  std::vector<int64_t> shape;  // empty for a scalar
  Ct2Type type = Ct2Type::kFloat32;
  std::string bytes;  // little-endian values, row-major

  // A scalar: int8 for booleans and enums, int16 for head counts (as CTranslate2's specs).
  static Ct2Variable int8_scalar(std::string name, int8_t value);
  static Ct2Variable int16_scalar(std::string name, int16_t value);
  // An fp32 array of shape whose values are data (count = product of shape).
  static Ct2Variable float32(std::string name, std::vector<int64_t> shape, const float* data);
};

// What write_model_bin stored: variables by value, the others as aliases.
struct ModelBinSummary {
  int64_t variables = 0;
  int64_t aliases = 0;
  int64_t bytes = 0;  // the whole file
};

// Receives the file's bytes in order.
using ByteSink = std::function<void(const void* data, std::size_t size)>;

// Writes spec (e.g. "TransformerSpec") at revision with the variables, sorted and aliased as
// above. Throws nmt::Error for two variables of one name or one that does not fit the format.
ModelBinSummary write_model_bin(const std::string& spec,
                                uint32_t revision,
                                std::vector<Ct2Variable> variables,
                                const ByteSink& sink);

}  // namespace nmt::exporter
