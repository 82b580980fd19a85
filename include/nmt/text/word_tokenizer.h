// The notebook's word tokenizer: the cleaned sentence split on spaces, each word looked up in a
// Vocab. Torch-free; never logs.
#pragma once

#include "nmt/text/tokenizer.h"
#include "nmt/text/vocab.h"

namespace nmt::text {

class WordTokenizer final : public Tokenizer {
 public:
  explicit WordTokenizer(Vocab vocab);

  std::vector<int64_t> encode(std::string_view cleaned) const override;
  std::string decode(const std::vector<int64_t>& ids) const override;
  std::string render(const std::vector<int64_t>& ids) const override;
  std::vector<std::string> pieces(const std::vector<int64_t>& ids) const override;
  int64_t size() const override { return vocab_.size(); }
  std::vector<std::string> save(const std::string& dir, const std::string& stem) const override;

  const Vocab& vocab() const { return vocab_; }

 private:
  Vocab vocab_;
};

}  // namespace nmt::text
