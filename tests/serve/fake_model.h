// A scripted stand-in for the model behind the server: "translates" a sentence into its upper-case
// form (n-best: the same with "#2", "#3" ... appended, scores -1, -2, ...), records every batch it
// sees, can be held at a gate to keep a batch busy, and can be made to throw (for every batch, or
// for the batches holding one sentence).
#pragma once

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "nmt/serve/api.h"
#include "nmt/serve/batcher.h"

namespace nmt::testing {

// What the fake model says of itself: English to Spanish, from a run "runs/tiny".
inline serve::ModelInfo en_es_model() {
  serve::ModelInfo model;
  model.source_lang = "en";
  model.target_lang = "es";
  model.run = "runs/tiny";
  model.checkpoint = "runs/tiny/best.pt";
  model.version = "0badc0de";
  static const auto english = std::make_shared<const text::SentenceSplitter>("en");
  model.splitter = english;
  return model;
}

inline std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

// A tiny attention picture of one source and one target token.
inline viz::AttentionPicture tiny_picture(const std::string& sentence) {
  viz::AttentionPicture picture;
  picture.source_text = sentence;
  picture.translation = upper(sentence);
  picture.source_tokens = {sentence};
  picture.target_tokens = {"<SOS>", upper(sentence)};
  picture.encoder_self = {{viz::Matrix{1, 1, {1.0f}}}};
  picture.decoder_self = {{viz::Matrix{2, 2, {1.0f, 0.0f, 0.4f, 0.6f}}}};
  picture.cross = {{viz::Matrix{2, 1, {1.0f, 1.0f}}}};
  return picture;
}

class FakeModel {
 public:
  serve::TranslateFn function() {
    return [this](const serve::Batch& batch) { return translate(batch); };
  }

  std::vector<serve::SentenceResult> translate(const serve::Batch& batch) {
    std::unique_lock<std::mutex> lock(mutex_);
    batches_.push_back(batch);
    ++entered_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return is_open_; });
    if (error_) std::rethrow_exception(error_);
    if (sentence_error_ && std::find(batch.sentences.begin(), batch.sentences.end(),
                                     failing_sentence_) != batch.sentences.end()) {
      std::rethrow_exception(sentence_error_);
    }
    std::vector<serve::SentenceResult> results;
    for (std::size_t i = 0; i < batch.sentences.size(); ++i) {
      serve::SentenceResult result;
      for (int64_t rank = 0; rank < batch.options.n_best; ++rank) {
        result.hypotheses.push_back(
            {upper(batch.sentences[i]) + (rank > 0 ? " #" + std::to_string(rank + 1) : ""),
             -1.0f - static_cast<float>(rank)});
      }
      if (batch.wants_attention[i]) result.attention = tiny_picture(batch.sentences[i]);
      results.push_back(std::move(result));
    }
    return results;
  }

  // While closed, batches wait inside translate().
  void close() {
    const std::lock_guard<std::mutex> lock(mutex_);
    is_open_ = false;
  }
  void open() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      is_open_ = true;
    }
    changed_.notify_all();
  }
  // Waits until `count` batches have entered translate(); false after 10 s.
  bool wait_for_batches(std::size_t count) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10),
                             [this, count] { return entered_ >= count; });
  }
  void fail_with(std::exception_ptr error) {
    const std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::move(error);
  }
  // Every batch that holds `sentence` throws `error` (nullptr: none does).
  void fail_on(const std::string& sentence, std::exception_ptr error) {
    const std::lock_guard<std::mutex> lock(mutex_);
    failing_sentence_ = sentence;
    sentence_error_ = std::move(error);
  }
  std::vector<serve::Batch> batches() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return batches_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<serve::Batch> batches_;
  std::size_t entered_ = 0;
  bool is_open_ = true;
  std::exception_ptr error_;
  std::string failing_sentence_;
  std::exception_ptr sentence_error_;
};

}  // namespace nmt::testing
