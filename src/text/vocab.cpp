#include "nmt/text/vocab.h"

#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "nmt/error.h"
#include "nmt/io.h"

namespace nmt::text {

Vocab::Vocab(std::vector<std::string> itos) : itos_(std::move(itos)) {
  stoi_.reserve(itos_.size());
  for (std::size_t i = 0; i < itos_.size(); ++i) stoi_.emplace(itos_[i], static_cast<int64_t>(i));
}

Vocab Vocab::build(const std::vector<std::string>& sentences, int64_t min_freq) {
  // Python's Counter keeps first-insertion order, which the notebook's itos inherits.
  std::vector<std::string> order;
  std::unordered_map<std::string, int64_t> counts;
  for (const std::string& sentence : sentences) {
    std::istringstream words(sentence);
    std::string word;
    while (words >> word) {
      auto [it, inserted] = counts.try_emplace(word, 0);
      if (inserted) order.push_back(word);
      ++it->second;
    }
  }
  std::vector<std::string> itos(kSpecialTokens, kSpecialTokens + kNumSpecials);
  for (std::string& word : order) {
    const bool is_special =
        word == "<PAD>" || word == "<SOS>" || word == "<EOS>" || word == "<UNK>";
    if (!is_special && counts[word] >= min_freq) itos.push_back(std::move(word));
  }
  return Vocab(std::move(itos));
}

Vocab Vocab::from_stream(std::istream& in, const std::string& name) {
  std::vector<std::string> itos;
  std::string line;
  std::size_t line_number = 0;
  std::unordered_map<std::string, std::size_t> seen;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Whitespace of any kind, as build() splits on: a token with a carriage return left over
    // ("a\r\r\n") would lose it through save() and come back as another token.
    if (line.empty() || line.find_first_of(" \t\r\v\f") != std::string::npos) {
      throw DataError(name, line_number,
                      "expected one token without whitespace per line, got \"" + line + "\"");
    }
    auto [it, inserted] = seen.emplace(line, line_number);
    if (!inserted) {
      throw DataError(
          name, line_number,
          "token \"" + line + "\" already appears on line " + std::to_string(it->second));
    }
    if (line_number <= static_cast<std::size_t>(kNumSpecials) &&
        line != kSpecialTokens[line_number - 1]) {
      throw DataError(name, line_number,
                      std::string("expected the special token ") + kSpecialTokens[line_number - 1] +
                          ", got \"" + line + "\"");
    }
    itos.push_back(line);
  }
  if (itos.size() < static_cast<std::size_t>(kNumSpecials)) {
    throw DataError(name, "expected at least the 4 special tokens, got " +
                              std::to_string(itos.size()) + " lines");
  }
  return Vocab(std::move(itos));
}

Vocab Vocab::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, "cannot open vocabulary file");
  return from_stream(in, path);
}

void Vocab::save(std::ostream& out) const {
  for (const std::string& token : itos_) out << token << '\n';
}

void Vocab::save(const std::string& path) const {
  write_file_atomically(path, [this](std::ostream& out) { save(out); });
}

int64_t Vocab::id(std::string_view token) const {
  const auto it = stoi_.find(std::string(token));
  return it == stoi_.end() ? kUnkId : it->second;
}

const std::string& Vocab::token(int64_t id) const {
  if (id < 0 || id >= size()) {
    throw std::out_of_range("token id " + std::to_string(id) + " outside the vocabulary of " +
                            std::to_string(size()));
  }
  return itos_[static_cast<std::size_t>(id)];
}

}  // namespace nmt::text
