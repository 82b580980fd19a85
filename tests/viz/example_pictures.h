// A small fixed attention picture and training run shared by the viz tests: tokens that need
// escaping
// (<SOS>, <EOS>, &, quotes) and smooth, row-normalised weights (causal for the decoder).
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/viz/attention_page.h"
#include "nmt/viz/report_page.h"

namespace nmt::testing {

// rows x cols weights peaking near the diagonal with the given width; each row sums to 1. With
// is_causal, row r attends only to columns <= r.
inline viz::Matrix peaked_matrix(int64_t rows, int64_t cols, double width, bool is_causal = false) {
  viz::Matrix m{rows, cols, std::vector<float>(static_cast<std::size_t>(rows * cols))};
  for (int64_t r = 0; r < rows; ++r) {
    const double centre =
        rows > 1 ? static_cast<double>(r) * static_cast<double>(cols - 1) / (rows - 1) : 0.0;
    double sum = 0.0;
    std::vector<double> row(static_cast<std::size_t>(cols));
    for (int64_t c = 0; c < cols; ++c) {
      const double d = (static_cast<double>(c) - centre) / width;
      row[static_cast<std::size_t>(c)] = is_causal && c > r ? 0.0 : std::exp(-0.5 * d * d) + 0.02;
      sum += row[static_cast<std::size_t>(c)];
    }
    for (int64_t c = 0; c < cols; ++c) {
      m.values[static_cast<std::size_t>(r * cols + c)] =
          static_cast<float>(row[static_cast<std::size_t>(c)] / sum);
    }
  }
  return m;
}

// layers x heads matrices, head h a little wider than head h - 1.
inline std::vector<std::vector<viz::Matrix>> example_layers(int64_t rows,
                                                            int64_t cols,
                                                            bool is_causal) {
  std::vector<std::vector<viz::Matrix>> layers(2);
  for (std::size_t layer = 0; layer < layers.size(); ++layer) {
    for (int head = 0; head < 2; ++head) {
      layers[layer].push_back(peaked_matrix(
          rows, cols, 0.5 + 0.6 * head + 0.4 * static_cast<double>(layer), is_causal));
    }
  }
  return layers;
}

// 2 layers, 2 heads, S = 6 source tokens, T = 7 decoder positions.
inline viz::AttentionPicture example_picture() {
  viz::AttentionPicture picture;
  picture.source_text = "The cat & the \"dog\" <3";
  picture.translation = "El gato y el «perro» <3";
  picture.source_tokens = {"the", "cat", "&", "\"dog\"", "<3", "<EOS>"};
  picture.target_tokens = {"<SOS>", "el", "gato", "y", "«perro»", "it's", "<3"};
  const auto s = static_cast<int64_t>(picture.source_tokens.size());
  const auto t = static_cast<int64_t>(picture.target_tokens.size());
  picture.encoder_self = example_layers(s, s, /*is_causal=*/false);
  picture.decoder_self = example_layers(t, t, /*is_causal=*/true);
  picture.cross = example_layers(t, s, /*is_causal=*/false);
  return picture;
}

// A train record at step, with the loss and training time given.
inline TrainRecord train_record(int64_t step, double loss, double seconds) {
  TrainRecord record;
  record.epoch = step / 100;
  record.step = step;
  record.loss = loss;
  record.lr = 5e-4;
  record.train_seconds = seconds;
  record.time = 1.7e9 + static_cast<double>(step);
  return record;
}

// An epoch record; valid_loss < 0 means the run had no validation split. Validation translated,
// with BLEU and chrF growing by epoch.
inline EpochRecord epoch_record(
    int64_t epoch, int64_t step, double train_loss, double valid_loss, double seconds) {
  EpochRecord record;
  record.epoch = epoch;
  record.step = step;
  record.train_loss = train_loss;
  record.train_seconds = seconds;
  record.is_best = valid_loss >= 0;
  if (valid_loss >= 0) {
    record.valid_loss = valid_loss;
    record.valid_ppl = std::exp(valid_loss);
    record.valid_bleu = 12.0 + 6.5 * static_cast<double>(epoch);
    record.valid_chrf = 30.0 + 7.25 * static_cast<double>(epoch);
  }
  record.time = 1.7e9 + static_cast<double>(step);
  return record;
}

inline EvalRecord eval_record(const std::string& data, double bleu, double chrf) {
  EvalRecord record;
  record.data = data;
  record.checkpoint = "runs/example/best.pt";
  record.decoding = "beam 5, length penalty 1";
  record.bleu = bleu;
  record.chrf = chrf;
  return record;
}

// metrics.jsonl records of a short run with 2 epochs and a final evaluation.
inline std::vector<MetricsRecord> example_records() {
  std::vector<MetricsRecord> records = {StartRecord{0, 0, 1000, 100, "cpu", 1.7e9}};
  for (int step = 10; step <= 200; step += 10) {
    records.push_back(train_record(step, 8.0 * std::exp(-step / 80.0) + 1.5, step * 0.9));
    if (step % 100 == 0) {
      records.push_back(epoch_record(step / 100, step, 8.0 * std::exp(-step / 80.0) + 1.6,
                                     2.9 - step / 400.0, step * 0.9));
    }
  }
  records.push_back(
      EndRecord{"finished", "trained 2 epochs", 2, 200, 180.0, 2.4, "loss", 2.4, 200, 1.7e9});
  records.push_back(eval_record("test split of runs/example", 21.5, 44.2));
  return records;
}

inline nlohmann::json example_config() {
  return {{"data", {{"path", "data/en&es.tsv"}, {"max_words", 15}}},
          {"model", {{"d_model", 256}, {"layers", 6}, {"norm", "pre"}}},
          {"train", {{"lr", 0.0005}, {"schedule", "inverse_sqrt"}}}};
}

}  // namespace nmt::testing
