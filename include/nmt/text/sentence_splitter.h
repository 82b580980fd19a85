// Sentence segmentation of running text, so that a paragraph reaches the model one sentence at a
// time (a model trained on sentences translates a paragraph given as one input as roughly its
// first sentence). The rules are ICU's sentence BreakIterator (Unicode UAX #29) with ICU's
// abbreviation suppressions for the language ("Mr. Smith", "Sr. García", "e.g." do not end a
// sentence; ICU has lists for en, de, es, fr, it, pt and ru; other languages get the rules alone).
//
// Splitting keeps every character of the input: the text is its gaps (whitespace and line breaks,
// possibly empty) around its sentences, so that joining translations back gives the input's layout
// with each sentence replaced. A text that is only whitespace has no sentence. Torch-free.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::text {

// A text cut into sentences: gaps[0] sentences[0] gaps[1] ... sentences[n-1] gaps[n] is the text.
// Sentences begin and end with a character that is not whitespace.
struct SplitText {
  std::vector<std::string> sentences;
  std::vector<std::string> gaps;  // always sentences.size() + 1
};

class SentenceSplitter {
 public:
  // language: an ISO 639 code ("en", "es", "pt_BR"); "" or an unknown code uses the rules without
  // abbreviations. Throws nmt::Error when ICU cannot create the iterator (its data is missing).
  explicit SentenceSplitter(const std::string& language);
  ~SentenceSplitter();
  SentenceSplitter(const SentenceSplitter&) = delete;
  SentenceSplitter& operator=(const SentenceSplitter&) = delete;

  // Safe to call from several threads at once. Bytes that are not UTF-8 stay where they were (ICU
  // reads each as U+FFFD): the sentences and gaps still give back the text byte for byte.
  SplitText split(std::string_view text) const;

 private:
  struct Rules;
  std::unique_ptr<Rules> rules_;
};

// The text that `split` cut, with sentence i replaced by translations[i]. Throws
// std::invalid_argument when the counts differ.
std::string join_sentences(const SplitText& split, const std::vector<std::string>& translations);

// The text cut at its line breaks alone (\n, \r\n, \r), each line one sentence between its outer
// whitespace: for callers that send one sentence per line already (--no-split). The gaps keep the
// breaks, so both ways of cutting answer in the input's layout.
SplitText split_lines(std::string_view text);

}  // namespace nmt::text
