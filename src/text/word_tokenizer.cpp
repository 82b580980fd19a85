#include "nmt/text/word_tokenizer.h"

#include <sstream>

#include "nmt/text/clean.h"

namespace nmt::text {

WordTokenizer::WordTokenizer(Vocab vocab) : vocab_(std::move(vocab)) {}

std::vector<int64_t> WordTokenizer::encode(std::string_view cleaned) const {
  std::vector<int64_t> ids;
  std::size_t start = 0;
  while (start < cleaned.size()) {
    std::size_t end = cleaned.find(' ', start);
    if (end == std::string_view::npos) end = cleaned.size();
    if (end > start) ids.push_back(vocab_.id(cleaned.substr(start, end - start)));
    start = end + 1;
  }
  return ids;
}

std::string WordTokenizer::decode(const std::vector<int64_t>& ids) const {
  std::string out;
  for (const int64_t id : ids) {
    if (id == kPadId || id == kSosId || id == kEosId || id < 0 || id >= vocab_.size()) continue;
    if (!out.empty()) out.push_back(' ');
    out += vocab_.token(id);
  }
  return out;
}

std::string WordTokenizer::render(const std::vector<int64_t>& ids) const {
  return join_punctuation(decode(ids));
}

std::vector<std::string> WordTokenizer::pieces(const std::vector<int64_t>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (const int64_t id : ids)
    out.push_back(id >= 0 && id < vocab_.size() ? vocab_.token(id) : "<?>");
  return out;
}

std::vector<std::string> WordTokenizer::save(const std::string& dir,
                                             const std::string& stem) const {
  const std::string path = dir + "/" + stem + ".txt";
  vocab_.save(path);
  return {path};
}

}  // namespace nmt::text
