#include "nmt/import/safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "nmt/mapped_file.h"
#include "refusal.h"
#include "safetensors_format.h"

namespace nmt::import {
namespace {

using json = nlohmann::json;
using detail::ByteCount;
using detail::count_bytes;
using detail::describe_shape;
using detail::fail;
using detail::kMaxElements;
using detail::kMaxHeaderBytes;
using detail::kMetadataKey;
using detail::quote;

// A header's levels: the top object, a tensor's entry, its shape or data_offsets.
constexpr int kMaxHeaderDepth = 3;

// "an array", "a number": what a JSON value is, never the value itself, which may be huge.
std::string a_type(const json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  return "null";
}

std::string describe_range(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

uint64_t load_u64(const unsigned char* in) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | in[i];
  return value;
}

// Follows nlohmann's parse callback through the header: a key given twice in one object (which
// nlohmann would silently collapse to its last value) or nesting deeper than a header has throws
// while the parser reads, so no such document is built.
class HeaderTracker {
 public:
  explicit HeaderTracker(const std::string& source) : source_(source) {}

  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxHeaderDepth) {
          fail(source_,
               "header is nested deeper than " + std::to_string(kMaxHeaderDepth) + " levels");
        }
        keys_.emplace_back();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        keys_.pop_back();
        break;
      case json::parse_event_t::key:
        add_key(parsed.get_ref<const std::string&>());
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  }

 private:
  void add_key(const std::string& key) {
    if (keys_.size() == 1) entry_ = key;
    if (keys_.back().insert(key).second) return;
    if (keys_.size() == 1) fail(source_, "header names " + quote(key) + " twice");
    fail(source_, "header entry " + quote(entry_) + " has the key " + quote(key) + " twice");
  }

  const std::string& source_;
  std::vector<std::set<std::string>> keys_;  // per open object or array (an array's stays empty)
  std::string entry_;                        // the top-level key being read
};

// nlohmann's message without its "[json.exception.parse_error.101] " tag and without the token it
// stopped in ("; last read: '...'"), which may be a megabyte-long string or hold invalid UTF-8:
// "parse error at line 1, column 2: syntax error while parsing object key - invalid literal".
std::string describe_parse_error(const json::parse_error& error) {
  std::string message = error.what();
  const std::size_t tag_end = message.find("] ");
  if (tag_end != std::string::npos) message.erase(0, tag_end + 2);
  return message.substr(0, message.find("; last read: '"));
}

json parse_header(std::string_view text, const std::string& source) {
  HeaderTracker tracker(source);
  const json::parser_callback_t callback = [&tracker](int depth, json::parse_event_t event,
                                                      json& parsed) {
    return tracker(depth, event, parsed);
  };
  try {
    return json::parse(text.begin(), text.end(), callback);
  } catch (const json::parse_error& error) {
    fail(source, "header is not valid JSON: " + describe_parse_error(error));
  } catch (const json::out_of_range&) {  // "number overflow parsing '<the whole number>'"
    fail(source, "header is not valid JSON: it holds a number too large for a double");
  }
}

// One tensor's entry of the header; every problem names the tensor.
class EntryReader {
 public:
  EntryReader(const std::string& source, const std::string& name, const json& entry)
      : source_(source), name_(name), entry_(entry) {}

  // The tensor, its offset relative to the data section of data_bytes bytes.
  TensorInfo read(uint64_t data_bytes) const {
    if (!entry_.is_object()) {
      fail_entry("expected an object with dtype, shape and data_offsets, got " + a_type(entry_));
    }
    TensorInfo tensor;
    tensor.name = name_;
    tensor.dtype = dtype();
    tensor.shape = shape();
    const ByteCount needed = count_bytes(tensor.dtype, tensor.shape);
    if (!needed.problem.empty()) fail_entry(needed.problem);
    const auto [begin, end] = offsets();
    const std::string range = "data_offsets " + describe_range(begin, end);
    if (end < begin) fail_entry(range + " end before they begin");
    if (end > data_bytes) {
      fail_entry(range + " end past the data section, which holds " + std::to_string(data_bytes) +
                 " bytes");
    }
    if (end - begin != needed.bytes) {
      fail_entry(range + " hold " + std::to_string(end - begin) + " bytes, but " +
                 std::string(dtype_name(tensor.dtype)) + " " + describe_shape(tensor.shape) +
                 " needs " + std::to_string(needed.bytes));
    }
    tensor.offset = begin;
    tensor.bytes = needed.bytes;
    return tensor;
  }

 private:
  [[noreturn]] void fail_entry(const std::string& problem) const {
    fail(source_, "tensor " + quote(name_) + ": " + problem);
  }

  // Keys other than these three are ignored, as the safetensors library ignores them.
  const json& member(const char* key) const {
    const auto found = entry_.find(key);
    if (found == entry_.end()) fail_entry(std::string("has no ") + key);
    return *found;
  }

  Dtype dtype() const {
    const json& value = member("dtype");
    if (!value.is_string()) fail_entry("dtype is " + a_type(value) + ", expected a string");
    const auto& name = value.get_ref<const std::string&>();
    const std::optional<Dtype> dtype = detail::dtype_from_name(name);
    if (!dtype)
      fail_entry("unknown dtype " + quote(name) + " (known: " + detail::dtype_names() + ")");
    return *dtype;
  }

  std::vector<int64_t> shape() const {
    const json& value = member("shape");
    if (!value.is_array()) fail_entry("shape is " + a_type(value) + ", expected an array");
    std::vector<int64_t> dims;
    for (const json& dim : value) {
      if (!dim.is_number_unsigned() || dim.get<uint64_t>() > uint64_t{kMaxElements}) {
        fail_entry("shape[" + std::to_string(dims.size()) + "] is " +
                   (dim.is_number() ? dim.dump() : a_type(dim)) +
                   ", expected an integer from 0 to " + std::to_string(kMaxElements));
      }
      dims.push_back(dim.get<int64_t>());
    }
    return dims;
  }

  std::pair<uint64_t, uint64_t> offsets() const {
    const json& value = member("data_offsets");
    const std::string expected = "expected two unsigned integers [begin, end]";
    if (!value.is_array()) fail_entry("data_offsets is " + a_type(value) + ", " + expected);
    if (value.size() != 2) {
      fail_entry("data_offsets is an array of " + std::to_string(value.size()) + ", " + expected);
    }
    for (std::size_t i = 0; i < 2; ++i) {
      if (!value[i].is_number_unsigned()) {
        fail_entry("data_offsets[" + std::to_string(i) + "] is " +
                   (value[i].is_number() ? value[i].dump() : a_type(value[i])) + ", " + expected);
      }
    }
    return {value[0].get<uint64_t>(), value[1].get<uint64_t>()};
  }

  const std::string& source_;
  const std::string& name_;
  const json& entry_;
};

std::map<std::string, std::string> read_metadata(const json& value, const std::string& source) {
  if (!value.is_object()) {
    fail(source,
         std::string(kMetadataKey) + " is " + a_type(value) + ", expected an object of strings");
  }
  std::map<std::string, std::string> metadata;
  for (const auto& [key, text] : value.items()) {
    if (!text.is_string()) {
      fail(source, std::string(kMetadataKey) + ": " + quote(key) + " is " + a_type(text) +
                       ", expected a string");
    }
    metadata.emplace(key, text.get<std::string>());
  }
  return metadata;
}

std::string unused_bytes(uint64_t from,
                         uint64_t to,
                         const TensorInfo* before,
                         const TensorInfo* after) {
  std::string text = "bytes [" + std::to_string(from) + ", " + std::to_string(to) +
                     ") of the data section belong to no tensor";
  if (before != nullptr && after != nullptr) {
    return text + " (between " + quote(before->name) + " and " + quote(after->name) + ")";
  }
  if (after != nullptr) return text + " (before " + quote(after->name) + ")";
  if (before != nullptr) return text + " (after " + quote(before->name) + ")";
  return text;
}

// The safetensors library's rule (Metadata::validate, and the check that the buffer ends with the
// last tensor): sorted by offset, each tensor begins where the one before ended, the first at 0,
// and the last ends the file. tensors: sorted, offsets relative to the data section.
void check_layout(const std::vector<TensorInfo>& tensors,
                  uint64_t data_bytes,
                  const std::string& source) {
  uint64_t end = 0;
  const TensorInfo* previous = nullptr;
  for (const TensorInfo& tensor : tensors) {
    if (tensor.offset < end) {
      fail(source, "tensors " + quote(previous->name) + " (data_offsets " +
                       describe_range(previous->offset, end) + ") and " + quote(tensor.name) +
                       " (data_offsets " +
                       describe_range(tensor.offset, tensor.offset + tensor.bytes) + ") overlap");
    }
    if (tensor.offset > end) fail(source, unused_bytes(end, tensor.offset, previous, &tensor));
    end = tensor.offset + tensor.bytes;
    previous = &tensor;
  }
  if (end < data_bytes) fail(source, unused_bytes(end, data_bytes, previous, nullptr));
}

}  // namespace

// The mapping of an opened file (nmt/mapped_file.h), under the name the header declares.
class SafetensorsFile::Mapping : public MappedFile {
 public:
  using MappedFile::MappedFile;
};

SafetensorsFile::SafetensorsFile() = default;
SafetensorsFile::~SafetensorsFile() = default;
SafetensorsFile::SafetensorsFile(SafetensorsFile&& other) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&& other) noexcept = default;

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  SafetensorsFile file;
  file.source_ = path;
  file.mapping_ = std::make_unique<Mapping>(path);
  file.read_header();
  return file;
}

SafetensorsFile SafetensorsFile::from_bytes(std::string bytes, std::string source) {
  SafetensorsFile file;
  file.source_ = std::move(source);
  file.owned_bytes_ = std::move(bytes);
  file.read_header();
  return file;
}

const char* SafetensorsFile::data() const {
  return mapping_ ? mapping_->data() : owned_bytes_.data();
}

std::size_t SafetensorsFile::size() const {
  return mapping_ ? mapping_->size() : owned_bytes_.size();
}

void SafetensorsFile::read_header() {
  const uint64_t file_bytes = size();
  if (file_bytes < 8) {
    fail(source_, "file is " + std::to_string(file_bytes) +
                      " bytes long, too short for the 8-byte header length");
  }
  const uint64_t header_bytes = load_u64(reinterpret_cast<const unsigned char*>(data()));
  if (header_bytes > kMaxHeaderBytes) {
    fail(source_, "header length " + std::to_string(header_bytes) + " is over the limit of " +
                      std::to_string(kMaxHeaderBytes) + " bytes");
  }
  if (header_bytes > file_bytes - 8) {
    fail(source_, "header length " + std::to_string(header_bytes) +
                      " runs past the end of the file, which has " +
                      std::to_string(file_bytes - 8) + " bytes after the length");
  }
  const json header = parse_header({data() + 8, header_bytes}, source_);
  if (!header.is_object()) fail(source_, "header is " + a_type(header) + ", expected an object");
  const uint64_t data_start = 8 + header_bytes;
  const uint64_t data_bytes = file_bytes - data_start;
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey) {
      metadata_ = read_metadata(value, source_);
    } else {
      tensors_.push_back(EntryReader(source_, key, value).read(data_bytes));
    }
  }
  std::sort(tensors_.begin(), tensors_.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return std::tie(a.offset, a.bytes, a.name) < std::tie(b.offset, b.bytes, b.name);
  });
  check_layout(tensors_, data_bytes, source_);
  for (std::size_t i = 0; i < tensors_.size(); ++i) {
    tensors_[i].offset += data_start;
    index_.emplace(tensors_[i].name, i);
  }
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
  const auto found = index_.find(name);
  return found == index_.end() ? nullptr : &tensors_[found->second];
}

std::string_view SafetensorsFile::bytes(const TensorInfo& tensor) const {
  if (tensor.offset > size() || tensor.bytes > size() - tensor.offset) {
    throw std::out_of_range(source_ + ": tensor " + quote(tensor.name) + " lies outside the file");
  }
  return {data() + tensor.offset, static_cast<std::size_t>(tensor.bytes)};
}

std::vector<float> SafetensorsFile::to_float(const TensorInfo& tensor) const {
  return detail::tensor_floats(source_, tensor, bytes(tensor));
}

}  // namespace nmt::import
