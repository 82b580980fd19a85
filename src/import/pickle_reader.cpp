#include "pickle_reader.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <utility>

#include "nmt/error.h"

namespace nmt::import::detail {
namespace {

// A state dict of 100,000 tensors needs about 2 million values and a stack of a few thousand;
// these caps only stop a hostile pickle from taking memory without end.
constexpr std::size_t kMaxValues = std::size_t{1} << 22;
constexpr std::size_t kMaxStack = std::size_t{1} << 20;
constexpr std::size_t kMaxMarks = 1024;
constexpr std::size_t kMaxGlobalLine = 1024;
constexpr uint64_t kLowestProtocol = 2;
constexpr uint64_t kHighestProtocol = 5;

// The opcodes read, as pickletools names them.
namespace op {
constexpr unsigned char kProto = 0x80, kFrame = 0x95, kStop = '.', kMark = '(';
constexpr unsigned char kNone = 'N', kNewTrue = 0x88, kNewFalse = 0x89;
constexpr unsigned char kBinInt = 'J', kBinInt1 = 'K', kBinInt2 = 'M', kLong1 = 0x8a,
                        kBinFloat = 'G';
constexpr unsigned char kBinUnicode = 'X', kShortBinUnicode = 0x8c, kBinUnicode8 = 0x8d;
constexpr unsigned char kBinString = 'T', kShortBinString = 'U';
constexpr unsigned char kEmptyDict = '}', kEmptyList = ']', kEmptyTuple = ')';
constexpr unsigned char kTuple = 't', kTuple1 = 0x85, kTuple2 = 0x86, kTuple3 = 0x87;
constexpr unsigned char kSetItem = 's', kSetItems = 'u', kAppend = 'a', kAppends = 'e';
constexpr unsigned char kBinPut = 'q', kLongBinPut = 'r', kMemoize = 0x94;
constexpr unsigned char kBinGet = 'h', kLongBinGet = 'j';
constexpr unsigned char kGlobal = 'c', kStackGlobal = 0x93, kReduce = 'R', kBuild = 'b';
constexpr unsigned char kBinPersId = 'Q';
}  // namespace op

// "0x63 ('c')": an opcode as a byte, with its character when it has one.
std::string describe_opcode(unsigned char opcode) {
  char text[16];
  if (std::isprint(opcode) != 0) {
    std::snprintf(text, sizeof text, "0x%02x ('%c')", opcode, opcode);
  } else {
    std::snprintf(text, sizeof text, "0x%02x", opcode);
  }
  return text;
}

PickleValue value_of(PickleValue::Kind kind, int64_t integer = 0) {
  PickleValue value;
  value.kind = kind;
  value.integer = integer;
  return value;
}

PickleValue string_value(std::string_view text) {
  PickleValue value = value_of(PickleValue::Kind::kString);
  value.text = text;
  return value;
}

// LONG1's little-endian two's complement bytes: an int when they fit 64 bits (torch's sizes and
// offsets), else kept as they are (the legacy format's magic number has 80 bits).
PickleValue long_value(std::string_view digits) {
  if (digits.size() > 8) {
    PickleValue big = value_of(PickleValue::Kind::kBigInt);
    big.text = digits;
    return big;
  }
  uint64_t bits = 0;
  for (std::size_t i = digits.size(); i-- > 0;) {
    bits = bits << 8 | static_cast<unsigned char>(digits[i]);
  }
  const bool negative = !digits.empty() && (static_cast<unsigned char>(digits.back()) & 0x80) != 0;
  if (negative && digits.size() < 8) bits |= ~uint64_t{0} << (8 * digits.size());  // sign-extend
  return value_of(PickleValue::Kind::kInt, static_cast<int64_t>(bits));
}

// BINFLOAT's big-endian IEEE double.
PickleValue float_value(std::string_view big_endian) {
  uint64_t bits = 0;
  for (const char byte : big_endian) bits = bits << 8 | static_cast<unsigned char>(byte);
  PickleValue value = value_of(PickleValue::Kind::kFloat);
  std::memcpy(&value.number, &bits, sizeof bits);
  return value;
}

PickleValue container(PickleValue::Kind kind, std::vector<const PickleValue*> items) {
  PickleValue value = value_of(kind);
  value.items = std::move(items);
  return value;
}

}  // namespace

std::string describe(const PickleValue& value) {
  // In the order of PickleValue::Kind.
  static const char* const kDescriptions[] = {
      "None",   "a bool", "an int",   "an int over 64 bits", "a float", "a string", "a tuple",
      "a list", "a dict", "an object"};
  return kDescriptions[static_cast<std::size_t>(value.kind)];
}

PickleReader::PickleReader(std::string_view bytes, std::string source, PickleHooks& hooks)
    : bytes_(bytes), source_(std::move(source)), hooks_(hooks) {}

const PickleValue& PickleReader::load() {
  stack_.clear();
  marks_.clear();
  memo_.clear();  // each pickle has its own memo
  while (step()) {
  }
  if (stack_.size() != 1 || !marks_.empty()) {
    fail("ends at byte " + std::to_string(opcode_position_) + " with " +
         std::to_string(stack_.size()) + " values and " + std::to_string(marks_.size()) +
         " marks on its stack, expected one value");
  }
  return *stack_.back();
}

// Runs one opcode; false after STOP.
bool PickleReader::step() {
  opcode_position_ = position_;
  if (position_ >= bytes_.size()) {
    fail("ends at byte " + std::to_string(position_) + " without STOP (the file is truncated)");
  }
  const auto opcode = static_cast<unsigned char>(read(1)[0]);
  if (opcode == op::kStop) return false;
  if (!step_framing(opcode) && !step_data(opcode) && !step_container(opcode) &&
      !step_memo(opcode) && !step_call(opcode)) {
    fail("opcode " + describe_opcode(opcode) + " at byte " + std::to_string(opcode_position_) +
         " is not supported (nmt reads only the opcodes torch.save writes for a state dict)");
  }
  return true;
}

// PROTO, FRAME and MARK, which push no value.
bool PickleReader::step_framing(unsigned char opcode) {
  if (opcode == op::kProto) {
    const uint64_t protocol = read_uint(1);
    if (protocol < kLowestProtocol || protocol > kHighestProtocol) {
      fail("protocol " + std::to_string(protocol) + " is not supported (2 to 5 are)");
    }
  } else if (opcode == op::kFrame) {
    read_uint(8);  // a frame only groups opcodes for buffered reads
  } else if (opcode == op::kMark) {
    if (marks_.size() >= kMaxMarks) fail("nests more than " + std::to_string(kMaxMarks) + " marks");
    marks_.push_back(stack_.size());
  } else {
    return false;
  }
  return true;
}

// The opcodes that push one scalar or string.
bool PickleReader::step_data(unsigned char opcode) {
  using Kind = PickleValue::Kind;
  PickleValue value;
  switch (opcode) {
    case op::kNone:
      break;
    case op::kNewTrue:
    case op::kNewFalse:
      value = value_of(Kind::kBool, opcode == op::kNewTrue ? 1 : 0);
      break;
    case op::kBinInt:
      value = value_of(Kind::kInt, static_cast<int32_t>(static_cast<uint32_t>(read_uint(4))));
      break;
    case op::kBinInt1:
    case op::kBinInt2:
      value = value_of(Kind::kInt, static_cast<int64_t>(read_uint(opcode == op::kBinInt1 ? 1 : 2)));
      break;
    case op::kLong1:
      value = long_value(read(read_uint(1)));
      break;
    case op::kBinFloat:
      value = float_value(read(8));
      break;
    case op::kShortBinUnicode:
    case op::kShortBinString:
      value = string_value(read(read_uint(1)));
      break;
    case op::kBinUnicode:
      value = string_value(read(read_uint(4)));
      break;
    case op::kBinUnicode8:
      value = string_value(read(read_uint(8)));
      break;
    case op::kBinString: {
      const auto length = static_cast<int32_t>(static_cast<uint32_t>(read_uint(4)));
      if (length < 0) {
        fail("BINSTRING at byte " + std::to_string(opcode_position_) + " has a negative length");
      }
      value = string_value(read(static_cast<uint64_t>(length)));
      break;
    }
    default:
      return false;
  }
  push(make(std::move(value)));
  return true;
}

// The opcodes that make or fill a tuple, list or dict.
bool PickleReader::step_container(unsigned char opcode) {
  using Kind = PickleValue::Kind;
  const auto extend = [](PickleValue& container, const std::vector<const PickleValue*>& items) {
    container.items.insert(container.items.end(), items.begin(), items.end());
  };
  if (opcode == op::kEmptyDict) {
    push(make(value_of(Kind::kDict)));
  } else if (opcode == op::kEmptyList) {
    push(make(value_of(Kind::kList)));
  } else if (opcode == op::kEmptyTuple) {
    push(make(value_of(Kind::kTuple)));
  } else if (opcode == op::kTuple) {
    push(make(container(Kind::kTuple, pop_to_mark())));
  } else if (opcode == op::kTuple1 || opcode == op::kTuple2 || opcode == op::kTuple3) {
    push(make(container(Kind::kTuple, pop_items(std::size_t{1} + opcode - op::kTuple1))));
  } else if (opcode == op::kSetItem || opcode == op::kSetItems) {
    const bool one = opcode == op::kSetItem;
    const std::vector<const PickleValue*> pairs = one ? pop_items(2) : pop_to_mark();
    if (pairs.size() % 2 != 0) {
      fail("SETITEMS at byte " + std::to_string(opcode_position_) + " has an odd number of items");
    }
    extend(top_container(Kind::kDict, one ? "SETITEM" : "SETITEMS"), pairs);
  } else if (opcode == op::kAppend || opcode == op::kAppends) {
    const bool one = opcode == op::kAppend;
    const std::vector<const PickleValue*> items = one ? pop_items(1) : pop_to_mark();
    extend(top_container(Kind::kList, one ? "APPEND" : "APPENDS"), items);
  } else {
    return false;
  }
  return true;
}

bool PickleReader::step_memo(unsigned char opcode) {
  if (opcode == op::kBinPut || opcode == op::kLongBinPut) {
    memo_put(read_uint(opcode == op::kBinPut ? 1 : 4));
  } else if (opcode == op::kMemoize) {
    memo_put(memo_.size());
  } else if (opcode == op::kBinGet || opcode == op::kLongBinGet) {
    const uint64_t index = read_uint(opcode == op::kBinGet ? 1 : 4);
    const auto found = memo_.find(index);
    if (found == memo_.end()) {
      fail("gets memo entry " + std::to_string(index) + " at byte " +
           std::to_string(opcode_position_) + ", which was never put");
    }
    push(found->second);
  } else {
    return false;
  }
  return true;
}

// The opcodes that would run code in Python: each goes to the hooks.
bool PickleReader::step_call(unsigned char opcode) {
  using Kind = PickleValue::Kind;
  const std::string at = " at byte " + std::to_string(opcode_position_);
  if (opcode == op::kGlobal) {
    const std::string module = read_line();
    const std::string name = read_line();
    push(make(hooks_.find_global(module, name)));
  } else if (opcode == op::kStackGlobal) {
    const PickleValue* name = pop();
    const PickleValue* module = pop();
    if (module->kind != Kind::kString || name->kind != Kind::kString) {
      fail("STACK_GLOBAL" + at + " needs two strings, got " + describe(*module) + " and " +
           describe(*name));
    }
    push(make(hooks_.find_global(module->text, name->text)));
  } else if (opcode == op::kReduce) {
    const PickleValue* arguments = pop();
    const PickleValue* callable = pop();
    if (arguments->kind != Kind::kTuple) {
      fail("REDUCE" + at + " needs a tuple of arguments, got " + describe(*arguments));
    }
    push(make(hooks_.reduce(*callable, *arguments)));
  } else if (opcode == op::kBuild) {
    const PickleValue* state = pop();
    PickleValue* object = pop();
    hooks_.build(*object, *state);
    push(object);
  } else if (opcode == op::kBinPersId) {
    push(make(hooks_.persistent_load(*pop())));
  } else {
    return false;
  }
  return true;
}

PickleValue* PickleReader::make(PickleValue value) {
  if (values_.size() >= kMaxValues)
    fail("holds more than " + std::to_string(kMaxValues) + " values");
  values_.push_back(std::move(value));
  return &values_.back();
}

void PickleReader::push(PickleValue* value) {
  if (stack_.size() >= kMaxStack) fail("stacks more than " + std::to_string(kMaxStack) + " values");
  stack_.push_back(value);
}

// The top of the stack; a value below the last MARK is not the opcode's to take (as in Python).
PickleValue* PickleReader::pop() {
  const std::size_t floor = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() <= floor) {
    fail("opcode at byte " + std::to_string(opcode_position_) + " pops from an empty stack");
  }
  PickleValue* top = stack_.back();
  stack_.pop_back();
  return top;
}

std::vector<const PickleValue*> PickleReader::pop_items(std::size_t count) {
  std::vector<const PickleValue*> items(count);
  for (std::size_t i = count; i-- > 0;) items[i] = pop();
  return items;
}

std::vector<const PickleValue*> PickleReader::pop_to_mark() {
  if (marks_.empty()) {
    fail("opcode at byte " + std::to_string(opcode_position_) + " needs a MARK, and there is none");
  }
  const std::size_t mark = marks_.back();
  marks_.pop_back();
  std::vector<const PickleValue*> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark),
                                        stack_.end());
  stack_.resize(mark);
  return items;
}

PickleValue& PickleReader::top_container(PickleValue::Kind kind, const char* opcode) {
  PickleValue* top = pop();
  stack_.push_back(top);
  if (top->kind != kind) {
    fail(std::string(opcode) + " at byte " + std::to_string(opcode_position_) + " needs " +
         describe(value_of(kind)) + " on the stack, found " + describe(*top));
  }
  return *top;
}

void PickleReader::memo_put(uint64_t index) {
  if (stack_.empty()) {
    fail("puts an empty stack's top into the memo at byte " + std::to_string(opcode_position_));
  }
  if (memo_.size() >= kMaxValues && memo_.count(index) == 0) {
    fail("memo holds more than " + std::to_string(kMaxValues) + " entries");
  }
  memo_[index] = stack_.back();
}

std::string_view PickleReader::read(uint64_t length) {
  if (length > bytes_.size() - position_) {
    fail("opcode at byte " + std::to_string(opcode_position_) +
         " runs past the end of the pickle (byte " + std::to_string(bytes_.size()) +
         "; the file is truncated)");
  }
  const std::string_view part = bytes_.substr(position_, length);
  position_ += length;
  return part;
}

uint64_t PickleReader::read_uint(int width) {
  const std::string_view part = read(static_cast<uint64_t>(width));
  uint64_t value = 0;
  for (std::size_t i = part.size(); i-- > 0;)
    value = value << 8 | static_cast<unsigned char>(part[i]);
  return value;
}

// GLOBAL's module or name: text up to a newline.
std::string PickleReader::read_line() {
  const std::string_view rest = bytes_.substr(position_, kMaxGlobalLine);
  const std::size_t end = rest.find('\n');
  if (end == std::string_view::npos) {
    fail("GLOBAL at byte " + std::to_string(opcode_position_) + " has no newline in its first " +
         std::to_string(kMaxGlobalLine) + " bytes");
  }
  position_ += end + 1;
  return std::string(rest.substr(0, end));
}

void PickleReader::fail(const std::string& problem) const {
  throw ConfigError(source_ + ": pickle " + problem);
}

}  // namespace nmt::import::detail
