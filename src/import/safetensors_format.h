// What the safetensors reader (safetensors.cpp) and writer (safetensors_writer.cpp) share: the
// format's limits, the dtypes' names, tensor sizes counted as the safetensors library counts them,
// and how messages quote values. Private to src/import/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nmt/import/safetensors.h"

namespace nmt::import::detail {

// The safetensors library's MAX_HEADER_SIZE: a longer header is damage, not a model.
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;
inline constexpr char kMetadataKey[] = "__metadata__";
inline constexpr int64_t kMaxElements = std::numeric_limits<int64_t>::max();

// The dtype a header spells name ("F32"), if there is one: names are case-sensitive.
std::optional<Dtype> dtype_from_name(std::string_view name);
// "BOOL, U8, ..., F8_E5M2": every name, for the message that refuses an unknown one.
std::string dtype_names();

// text as a JSON string for a message, cut after 60 bytes (at a character boundary) and followed
// by its length, "\"xxxx...\" (1000 bytes)": a 10 MB tensor name never becomes a 10 MB message.
std::string quote(std::string_view text);
// "[5, 6]"; after 8 dimensions "[1, 1, 1, 1, 1, 1, 1, 1, ...] (1000 dimensions)".
std::string describe_shape(const std::vector<int64_t>& shape);

// A tensor's size in bytes, or why it has none.
struct ByteCount {
  uint64_t bytes = 0;
  std::string problem;  // empty when bytes holds the size
};

// elements × dtype size of shape (non-negative dimensions), multiplied as the safetensors library
// multiplies (checked, dimension by dimension) so that the same shapes overflow: "shape [...] has
// more than 9223372036854775807 elements", "F64 [...] needs more than 18446744073709551615 bytes".
ByteCount count_bytes(Dtype dtype, const std::vector<int64_t>& shape);

// The values of tensor, whose little-endian bytes in C order are raw, as floats: F32, F16 (IEEE
// half, exactly: subnormals, infinities and NaN kept) or BF16. For any other dtype throws
// ConfigError "<source>: tensor "<name>" is I64, expected F32, F16 or BF16 to read as floats".
std::vector<float> tensor_floats(const std::string& source,
                                 const TensorInfo& tensor,
                                 std::string_view raw);

}  // namespace nmt::import::detail
