// A restricted unpickler: the opcodes that torch.save emits for a state dict (protocols 2 to 5),
// plain data built in place, and everything a pickle could execute (globals, calls, persistent
// ids, BUILD) handed to PickleHooks, which allow only what they know. It never recurses (the
// values are never walked), bounds-checks every read and caps its stack, marks, memo and values,
// so a hostile pickle costs at most memory in proportion to its size, then a ConfigError. Private
// to src/import/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace nmt::import::detail {

// One value of a pickle, owned by the PickleReader that made it. A dict's items alternate keys
// and values, in insertion order (a key set twice appears twice; this reader does not hash).
struct PickleValue {
  enum class Kind { kNone, kBool, kInt, kBigInt, kFloat, kString, kTuple, kList, kDict, kObject };
  Kind kind = Kind::kNone;
  int64_t integer = 0;  // kBool (0, 1), kInt; kObject: the handle the hooks gave it
  double number = 0;    // kFloat
  std::string text;     // kString; kBigInt: its LONG1 bytes, little-endian two's complement
  std::vector<const PickleValue*> items;  // kTuple, kList; kDict: key, value, key, value, ...
};

// "a tuple", "an int", ...: what value is, for messages that must not quote a hostile value.
std::string describe(const PickleValue& value);

// The meaning of what a pickle could execute. An object the hooks make (a global, a storage, a
// tensor) is a kObject value whose integer is the hooks' own handle for it; the hooks throw
// ConfigError for whatever they do not allow.
class PickleHooks {
 public:
  virtual ~PickleHooks() = default;
  // GLOBAL and STACK_GLOBAL: the object that module.name stands for.
  virtual PickleValue find_global(const std::string& module, const std::string& name) = 0;
  // REDUCE: callable(*arguments), arguments being a tuple.
  virtual PickleValue reduce(const PickleValue& callable, const PickleValue& arguments) = 0;
  // BINPERSID: the object persistent id pid stands for.
  virtual PickleValue persistent_load(const PickleValue& pid) = 0;
  // BUILD: sets state on object, which stays on the stack.
  virtual void build(const PickleValue& object, const PickleValue& state) = 0;
};

class PickleReader {
 public:
  // source starts the messages: "<source>: pickle ..." (so it holds the path, and the entry).
  PickleReader(std::string_view bytes, std::string source, PickleHooks& hooks);
  PickleReader(const PickleReader&) = delete;
  PickleReader& operator=(const PickleReader&) = delete;

  // The value of the pickle that starts at position(), which then moves past its STOP. The value
  // lives as long as this reader. Throws ConfigError for an opcode outside the supported set,
  // a pickle that ends without STOP, a malformed stack or a limit passed.
  const PickleValue& load();
  std::size_t position() const { return position_; }

 private:
  // step() runs one opcode (false after STOP) through the step_* that knows it: each returns
  // false for the opcodes it does not know.
  bool step();
  bool step_framing(unsigned char opcode);
  bool step_data(unsigned char opcode);
  bool step_container(unsigned char opcode);
  bool step_memo(unsigned char opcode);
  bool step_call(unsigned char opcode);

  PickleValue* make(PickleValue value);
  void push(PickleValue* value);
  PickleValue* pop();
  PickleValue& top_container(PickleValue::Kind kind, const char* opcode);
  std::vector<const PickleValue*> pop_to_mark();
  std::vector<const PickleValue*> pop_items(std::size_t count);
  void memo_put(uint64_t index);

  std::string_view read(uint64_t length);
  uint64_t read_uint(int width);
  std::string read_line();
  [[noreturn]] void fail(const std::string& problem) const;

  std::string_view bytes_;
  std::string source_;
  PickleHooks& hooks_;
  std::size_t position_ = 0;
  std::size_t opcode_position_ = 0;  // of the opcode being run, for messages
  std::deque<PickleValue> values_;   // a deque keeps each value where it is
  std::vector<PickleValue*> stack_;
  std::vector<std::size_t> marks_;  // stack sizes at each MARK
  std::unordered_map<uint64_t, PickleValue*> memo_;
};

}  // namespace nmt::import::detail
