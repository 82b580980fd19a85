#include "nmt/export/model_bin.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "nmt/error.h"

// Values are copied into model.bin as they lie in memory, which is its byte order only here.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "model.bin is little-endian");

namespace nmt::exporter {
namespace {

class Writer {
 public:
  explicit Writer(const ByteSink& sink) : sink_(sink) {}

  void bytes(const void* data, std::size_t size) {
    sink_(data, size);
    written_ += static_cast<int64_t>(size);
  }
  template <class T>
  void integer(T value) {
    bytes(&value, sizeof value);
  }
  void string(const std::string& text) {
    integer(static_cast<uint16_t>(text.size() + 1));
    bytes(text.data(), text.size());
    integer(uint8_t{0});
  }
  int64_t written() const { return written_; }

 private:
  const ByteSink& sink_;
  int64_t written_ = 0;
};

void check_fits(const Ct2Variable& variable) {
  constexpr auto kMaxU32 = std::numeric_limits<uint32_t>::max();
  if (variable.name.empty() || variable.name.size() >= std::numeric_limits<uint16_t>::max()) {
    throw Error("model.bin: variable name '" + variable.name.substr(0, 80) +
                "' must have 1 to 65,534 bytes");
  }
  if (variable.shape.size() > std::numeric_limits<uint8_t>::max()) {
    throw Error("model.bin: " + variable.name + " has more than 255 dimensions");
  }
  std::size_t count = 1;
  for (const int64_t dim : variable.shape) {
    if (dim < 0 || static_cast<uint64_t>(dim) > kMaxU32) {
      throw Error("model.bin: " + variable.name + " has dimension " + std::to_string(dim) +
                  ", outside 0 to 4294967295");
    }
    count *= static_cast<std::size_t>(dim);
  }
  if (variable.bytes.size() != count * type_size(variable.type)) {
    throw Error("model.bin: " + variable.name + " holds " + std::to_string(variable.bytes.size()) +
                " bytes, its shape and type need " +
                std::to_string(count * type_size(variable.type)));
  }
  if (variable.bytes.size() > kMaxU32) {
    throw Error("model.bin: " + variable.name + " has " + std::to_string(variable.bytes.size()) +
                " bytes; the format stores at most 4 GiB per variable");
  }
}

// For each variable, the name of the first variable (in name order) with the same dtype, shape
// and bytes, or "" when it is the first; scalars are never aliased (model_spec.py,
// _alias_variables).
std::vector<std::string> alias_targets(const std::vector<Ct2Variable>& sorted) {
  std::unordered_multimap<std::size_t, std::size_t> seen;  // hash of the bytes -> index
  std::vector<std::string> targets(sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const Ct2Variable& variable = sorted[i];
    if (variable.shape.empty()) continue;
    const std::size_t hash = std::hash<std::string_view>{}(variable.bytes);
    const auto [first, last] = seen.equal_range(hash);
    const auto same = std::find_if(first, last, [&](const auto& entry) {
      const Ct2Variable& other = sorted[entry.second];
      return other.type == variable.type && other.shape == variable.shape &&
             other.bytes == variable.bytes;
    });
    if (same != last) {
      targets[i] = sorted[same->second].name;
    } else {
      seen.emplace(hash, i);
    }
  }
  return targets;
}

}  // namespace

std::size_t type_size(Ct2Type type) {
  switch (type) {
    case Ct2Type::kFloat32:
      return 4;
    case Ct2Type::kInt8:
      return 1;
    case Ct2Type::kInt16:
      return 2;
  }
  return 0;
}

Ct2Variable Ct2Variable::int8_scalar(std::string name, int8_t value) {
  return {std::move(name), {}, Ct2Type::kInt8, std::string(1, static_cast<char>(value))};
}

Ct2Variable Ct2Variable::int16_scalar(std::string name, int16_t value) {
  std::string bytes(sizeof value, '\0');
  std::memcpy(bytes.data(), &value, sizeof value);
  return {std::move(name), {}, Ct2Type::kInt16, std::move(bytes)};
}

Ct2Variable Ct2Variable::float32(std::string name, std::vector<int64_t> shape, const float* data) {
  std::size_t count = 1;
  for (const int64_t dim : shape) count *= static_cast<std::size_t>(dim);
  std::string bytes(count * sizeof(float), '\0');
  if (count > 0) std::memcpy(bytes.data(), data, bytes.size());
  return {std::move(name), std::move(shape), Ct2Type::kFloat32, std::move(bytes)};
}

ModelBinSummary write_model_bin(const std::string& spec,
                                uint32_t revision,
                                std::vector<Ct2Variable> variables,
                                const ByteSink& sink) {
  std::sort(variables.begin(), variables.end(),
            [](const Ct2Variable& a, const Ct2Variable& b) { return a.name < b.name; });
  for (std::size_t i = 0; i < variables.size(); ++i) {
    check_fits(variables[i]);
    if (i > 0 && variables[i].name == variables[i - 1].name) {
      throw Error("model.bin: two variables are named " + variables[i].name);
    }
  }
  const std::vector<std::string> targets = alias_targets(variables);
  const auto alias_count = std::count_if(targets.begin(), targets.end(),
                                         [](const std::string& target) { return !target.empty(); });

  Writer out(sink);
  out.integer(kModelBinVersion);
  out.string(spec);
  out.integer(revision);
  out.integer(static_cast<uint32_t>(variables.size() - static_cast<std::size_t>(alias_count)));
  for (std::size_t i = 0; i < variables.size(); ++i) {
    if (!targets[i].empty()) continue;
    const Ct2Variable& variable = variables[i];
    out.string(variable.name);
    out.integer(static_cast<uint8_t>(variable.shape.size()));
    for (const int64_t dim : variable.shape) out.integer(static_cast<uint32_t>(dim));
    out.integer(static_cast<uint8_t>(variable.type));
    out.integer(static_cast<uint32_t>(variable.bytes.size()));
    out.bytes(variable.bytes.data(), variable.bytes.size());
  }
  out.integer(static_cast<uint32_t>(alias_count));
  for (std::size_t i = 0; i < variables.size(); ++i) {
    if (targets[i].empty()) continue;
    out.string(variables[i].name);
    out.string(targets[i]);
  }
  ModelBinSummary summary;
  summary.variables = static_cast<int64_t>(variables.size()) - alias_count;
  summary.aliases = alias_count;
  summary.bytes = out.written();
  return summary;
}

}  // namespace nmt::exporter
