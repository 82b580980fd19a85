#include "nmt/text/marian_tokenizer.h"

#include <algorithm>

#include "nmt/check.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "text/sentencepiece_loader.h"

namespace nmt::text {
namespace {

// ">>spa<<": Marian's multi-target models read the output language from such a token.
bool is_language_tag(std::string_view piece) {
  return piece.size() > 4 && piece.substr(0, 2) == ">>" && piece.substr(piece.size() - 2) == "<<" &&
         piece.find_first_of("<>", 2) == piece.size() - 2;
}

}  // namespace

MarianTokenizer::MarianTokenizer(std::shared_ptr<SentencePieceBackend> backend,
                                 std::string serialized,
                                 Vocab vocabulary,
                                 Side side)
    : backend_(std::move(backend)),
      serialized_(std::move(serialized)),
      vocabulary_(std::move(vocabulary)),
      side_(side) {}

MarianTokenizer MarianTokenizer::from_parts(const std::string& spm_bytes,
                                            Vocab vocabulary,
                                            Side side,
                                            const std::string& name) {
  auto backend = make_sentencepiece_backend();
  const std::string error = backend->load(spm_bytes);
  if (!error.empty()) throw DataError(name, "not a SentencePiece model: " + error);
  return MarianTokenizer(std::move(backend), spm_bytes, std::move(vocabulary), side);
}

MarianTokenizer MarianTokenizer::load(const std::string& spm_path,
                                      const std::string& vocab_path,
                                      Side side) {
  return from_parts(read_text_file(spm_path), Vocab::load(vocab_path), side, spm_path);
}

void MarianTokenizer::append_pieces(const std::string& text, std::vector<int64_t>& ids) const {
  for (const int spm_id : backend_->encode(text))
    ids.push_back(vocabulary_.id(backend_->piece(spm_id)));
}

std::vector<int64_t> MarianTokenizer::encode(std::string_view cleaned) const {
  std::vector<int64_t> ids;
  std::string_view rest = cleaned;
  // As transformers' MarianTokenizer (its pattern ">>.+<<" matched at the start, greedily): the
  // tag is one token, <UNK> when the vocabulary lacks it, and SentencePiece cuts what follows.
  const std::size_t tag_end = rest.rfind("<<");
  if (side_ == Side::kSource && rest.substr(0, 2) == ">>" && tag_end != std::string_view::npos &&
      tag_end >= 3) {
    ids.push_back(vocabulary_.id(rest.substr(0, tag_end + 2)));
    rest.remove_prefix(tag_end + 2);
  }
  append_pieces(std::string(rest), ids);
  if (side_ == Side::kSource) ids.push_back(kEosId);
  return ids;
}

std::string MarianTokenizer::decode(const std::vector<int64_t>& ids) const {
  // As transformers' MarianTokenizer with skip_special_tokens: <UNK> is dropped too.
  std::vector<std::string> pieces;
  pieces.reserve(ids.size());
  for (const int64_t id : ids) {
    if (id < kNumSpecials || id >= size()) continue;
    pieces.push_back(vocabulary_.token(id));
  }
  // SentencePiece keeps the word marks of pieces it does not know; transformers then turns every
  // mark into a space and strips the ends.
  std::string text = backend_->decode_pieces(pieces);
  const std::string_view mark = "\xe2\x96\x81";  // U+2581
  for (std::size_t at = text.find(mark); at != std::string::npos; at = text.find(mark, at)) {
    text.replace(at, mark.size(), " ");
  }
  const std::size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

std::vector<std::string> MarianTokenizer::pieces(const std::vector<int64_t>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (const int64_t id : ids)
    out.push_back(id >= 0 && id < size() ? vocabulary_.token(id) : "<?>");
  return out;
}

std::vector<std::string> MarianTokenizer::save(const std::string& dir,
                                               const std::string& stem) const {
  const std::string model_path = dir + "/" + stem + ".spm";
  const std::string vocab_path = dir + "/" + stem + ".vocab";
  write_text_atomically(model_path, serialized_);
  vocabulary_.save(vocab_path);
  return {model_path, vocab_path};
}

std::vector<std::string> MarianTokenizer::language_tags() const {
  std::vector<std::string> tags;
  for (int64_t id = kNumSpecials; id < size(); ++id) {
    if (is_language_tag(vocabulary_.token(id))) tags.push_back(vocabulary_.token(id));
  }
  std::sort(tags.begin(), tags.end());
  return tags;
}

std::vector<std::string> language_tags(const Tokenizer& source) {
  const auto* marian = dynamic_cast<const MarianTokenizer*>(&source);
  return marian != nullptr ? marian->language_tags() : std::vector<std::string>{};
}

std::string language_tag(const Tokenizer& source, const std::string& target_lang) {
  const std::string tag = is_language_tag(target_lang) ? target_lang : ">>" + target_lang + "<<";
  const std::vector<std::string> tags = language_tags(source);
  if (std::find(tags.begin(), tags.end(), tag) != tags.end()) return tag;
  if (tags.empty()) {
    throw ConfigError("target_lang",
                      "\"" + check::shorten(target_lang) +
                          "\": this model has no target-language tags; it translates into one "
                          "language");
  }
  std::string listed;
  for (const std::string& known : tags) {
    listed += (listed.empty() ? "" : " ") + known.substr(2, known.size() - 4);
  }
  throw ConfigError("target_lang", "the model has no tag " + check::shorten(tag) +
                                       "; its target languages: " + listed);
}

}  // namespace nmt::text
