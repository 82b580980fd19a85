// Word vocabulary: the notebook's Vocab. Ids 0-3 are the specials <PAD> <SOS> <EOS> <UNK>; the
// other tokens follow in order of first appearance in the training text, keeping those seen at
// least min_freq times. Saved as one token per line (line n = id n-1). Torch-free; throws DataError
// for an unreadable or malformed vocabulary file; never logs.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace nmt::text {

inline constexpr int64_t kPadId = 0;
inline constexpr int64_t kSosId = 1;
inline constexpr int64_t kEosId = 2;
inline constexpr int64_t kUnkId = 3;
inline constexpr int64_t kNumSpecials = 4;
inline constexpr const char* kSpecialTokens[kNumSpecials] = {"<PAD>", "<SOS>", "<EOS>", "<UNK>"};

class Vocab {
 public:
  // Counts the space-separated words of sentences; keeps those with count >= min_freq.
  static Vocab build(const std::vector<std::string>& sentences, int64_t min_freq);
  // Reads one token per line; `name` is used in error messages. The first four lines must be
  // the specials.
  static Vocab from_stream(std::istream& in, const std::string& name);
  static Vocab load(const std::string& path);

  void save(std::ostream& out) const;
  // Writes atomically (temporary file, then rename).
  void save(const std::string& path) const;

  // Id of token, kUnkId when absent.
  int64_t id(std::string_view token) const;
  // Token of id; throws std::out_of_range for an id outside [0, size()).
  const std::string& token(int64_t id) const;
  int64_t size() const { return static_cast<int64_t>(itos_.size()); }

  bool operator==(const Vocab& other) const { return itos_ == other.itos_; }

 private:
  explicit Vocab(std::vector<std::string> itos);

  std::vector<std::string> itos_;
  std::unordered_map<std::string, int64_t> stoi_;
};

}  // namespace nmt::text
