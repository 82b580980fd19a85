// A reader of CTranslate2's model.bin for the export tests, written from the format's description
// (include/nmt/export/model_bin.h) independently of the writer: it checks every length it reads and
// that nothing follows the aliases.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace nmt::testing {

struct ReadVariable {
  std::string name;
  std::vector<int64_t> shape;
  int type = -1;  // 0 f32, 1 i8, 2 i16, 3 i32, 4 f16, 5 bf16
  std::string bytes;

  float f32(std::size_t index) const {
    float value;
    std::memcpy(&value, bytes.data() + 4 * index, 4);
    return value;
  }
  int64_t scalar() const {
    if (type == 1) return static_cast<int8_t>(bytes.at(0));
    int16_t value;
    std::memcpy(&value, bytes.data(), 2);
    return value;
  }
};

struct ReadModelBin {
  uint32_t version = 0;
  std::string spec;
  uint32_t revision = 0;
  std::vector<ReadVariable> variables;                       // in file order
  std::vector<std::pair<std::string, std::string>> aliases;  // alias -> target, in file order

  const ReadVariable& variable(const std::string& name) const {
    for (const ReadVariable& variable : variables)
      if (variable.name == name) return variable;
    throw std::out_of_range("no variable " + name);
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const ReadVariable& variable : variables) out.push_back(variable.name);
    return out;
  }
};

class ModelBinReader {
 public:
  explicit ModelBinReader(std::string bytes) : bytes_(std::move(bytes)) {}

  ReadModelBin read() {
    ReadModelBin model;
    model.version = number<uint32_t>();
    model.spec = string();
    model.revision = number<uint32_t>();
    const auto count = number<uint32_t>();
    for (uint32_t i = 0; i < count; ++i) {
      ReadVariable variable;
      variable.name = string();
      const auto rank = number<uint8_t>();
      std::size_t elements = 1;
      for (uint8_t d = 0; d < rank; ++d) {
        variable.shape.push_back(number<uint32_t>());
        elements *= static_cast<std::size_t>(variable.shape.back());
      }
      variable.type = number<uint8_t>();
      const auto size = number<uint32_t>();
      const std::size_t item = variable.type == 0 ? 4 : variable.type == 2 ? 2 : 1;
      if (size != elements * item) throw std::runtime_error(variable.name + ": payload size");
      variable.bytes = take(size);
      model.variables.push_back(std::move(variable));
    }
    const auto aliases = number<uint32_t>();
    for (uint32_t i = 0; i < aliases; ++i) {
      std::string alias = string();
      model.aliases.emplace_back(std::move(alias), string());
    }
    if (position_ != bytes_.size()) throw std::runtime_error("bytes after the aliases");
    return model;
  }

 private:
  std::string take(std::size_t size) {
    if (position_ + size > bytes_.size()) throw std::runtime_error("truncated model.bin");
    std::string out = bytes_.substr(position_, size);
    position_ += size;
    return out;
  }
  template <class T>
  T number() {
    T value;
    std::memcpy(&value, take(sizeof value).data(), sizeof value);
    return value;
  }
  std::string string() {
    const auto length = number<uint16_t>();
    std::string text = take(length);
    if (text.empty() || text.back() != '\0') throw std::runtime_error("string without NUL");
    text.pop_back();
    return text;
  }

  std::string bytes_;
  std::size_t position_ = 0;
};

inline ReadModelBin read_model_bin(const std::string& bytes) {
  return ModelBinReader(bytes).read();
}

}  // namespace nmt::testing
