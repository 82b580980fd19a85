// The writing half of nmt/import/safetensors.h.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>

#include "nmt/error.h"
#include "nmt/import/safetensors.h"
#include "nmt/io.h"
#include "safetensors_format.h"

namespace nmt::import {
namespace {

using json = nlohmann::json;
using detail::quote;

void check_tensor_to_write(const TensorToWrite& tensor,
                           const std::set<std::string_view>& earlier_names,
                           const std::string& where) {
  const auto refuse = [&](const std::string& problem) {
    throw Error(where + ": tensor " + quote(tensor.name) + ": " + problem);
  };
  if (tensor.name == detail::kMetadataKey) refuse("the name is reserved for the metadata");
  if (earlier_names.count(tensor.name) != 0) refuse("the name is given twice");
  for (const int64_t dim : tensor.shape) {
    if (dim < 0)
      refuse("shape " + detail::describe_shape(tensor.shape) + " has a negative dimension");
  }
  const detail::ByteCount needed = detail::count_bytes(tensor.dtype, tensor.shape);
  if (!needed.problem.empty()) refuse(needed.problem);
  if (tensor.bytes.size() != needed.bytes) {
    refuse(std::to_string(tensor.bytes.size()) + " bytes given, but " +
           std::string(dtype_name(tensor.dtype)) + " " + detail::describe_shape(tensor.shape) +
           " needs " + std::to_string(needed.bytes));
  }
}

}  // namespace

std::string encode_safetensors_header(const std::vector<TensorToWrite>& tensors,
                                      const std::map<std::string, std::string>& metadata,
                                      const std::string& where) {
  // Written entry by entry, in the safetensors library's order: metadata, then the tensors, each
  // as {"dtype", "shape", "data_offsets"} (nlohmann's objects would sort the keys).
  std::string text = "{";
  const auto add = [&text](const std::string& key, const std::string& value) {
    text += (text.size() > 1 ? "," : "") + json(key).dump() + ":" + value;
  };
  std::set<std::string_view> names;
  uint64_t offset = 0;
  try {
    if (!metadata.empty()) add(detail::kMetadataKey, json(metadata).dump());
    for (const TensorToWrite& tensor : tensors) {
      check_tensor_to_write(tensor, names, where);
      names.insert(tensor.name);
      const uint64_t end = offset + tensor.bytes.size();
      const nlohmann::ordered_json entry = {{"dtype", std::string(dtype_name(tensor.dtype))},
                                            {"shape", tensor.shape},
                                            {"data_offsets", {offset, end}}};
      add(tensor.name, entry.dump());
      offset = end;
    }
  } catch (const json::type_error&) {  // dump() meeting invalid UTF-8
    throw Error(where + ": a tensor name or metadata string is not valid UTF-8");
  }
  text += "}";
  text.append((8 - text.size() % 8) % 8, ' ');
  if (text.size() > detail::kMaxHeaderBytes) {
    throw Error(where + ": header would be " + std::to_string(text.size()) +
                " bytes, over the limit of " + std::to_string(detail::kMaxHeaderBytes) +
                " that readers accept");
  }
  std::string encoded(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) encoded[i] = static_cast<char>(text.size() >> (8 * i));
  return encoded + text;
}

void write_safetensors(const std::string& path,
                       const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  const std::string header = encode_safetensors_header(tensors, metadata, path);
  AtomicFile file(path);
  file.append(header.data(), header.size());
  for (const TensorToWrite& tensor : tensors) file.append(tensor.bytes.data(), tensor.bytes.size());
  file.commit();
}

}  // namespace nmt::import
