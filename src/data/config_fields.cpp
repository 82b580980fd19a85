#include "nmt/data/config_fields.h"

#include "nmt/check.h"
#include "nmt/error.h"

namespace nmt::data {
namespace {

using config::fail;
using config::json;

CorpusFile corpus_file(const std::string& where, const json& value) {
  constexpr const char* kExpected =
      "a file name or an object with \"path\" or \"source\" and \"target\"";
  CorpusFile file;
  if (value.is_string()) {
    file.path = value.get<std::string>();
    if (file.path.empty()) fail(where, kExpected, value);
    return file;
  }
  if (!value.is_object()) fail(where, kExpected, value);
  for (const auto& item : value.items()) {
    const std::string at = where + "." + check::shorten(item.key());
    if (item.key() == "weight") {
      if (!item.value().is_number()) fail(at, "a number", item.value());
      file.weight = item.value().get<double>();
      continue;
    }
    std::string* text = item.key() == "path"     ? &file.path
                        : item.key() == "source" ? &file.source
                        : item.key() == "target" ? &file.target
                                                 : nullptr;
    if (!text) throw ConfigError(at, "unknown key (known keys: path, source, target, weight)");
    if (!item.value().is_string()) fail(at, "a file name", item.value());
    *text = item.value().get<std::string>();
  }
  return file;
}

std::vector<CorpusFile> read_corpus_files(const json& value, const std::string& path) {
  if (!value.is_array()) return {corpus_file(path, value)};
  std::vector<CorpusFile> files;
  for (std::size_t i = 0; i < value.size(); ++i) {
    files.push_back(corpus_file(path + "[" + std::to_string(i) + "]", value[i]));
  }
  return files;
}

json corpus_files_json(const std::vector<CorpusFile>& files) {
  json list = json::array();
  for (const CorpusFile& file : files) {
    json entry = file.is_aligned_pair() ? json{{"source", file.source}, {"target", file.target}}
                                        : json{{"path", file.path}};
    if (file.weight != 1.0) entry["weight"] = file.weight;
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace

const config::FieldCodec<std::vector<CorpusFile>>& corpus_files_codec() {
  static const config::FieldCodec<std::vector<CorpusFile>> codec{read_corpus_files,
                                                                 corpus_files_json};
  return codec;
}

}  // namespace nmt::data
