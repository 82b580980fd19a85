#include "nmt/metrics_jsonl.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>

#include "nmt/error.h"
#include "nmt/io.h"

namespace nmt {
namespace {

using nlohmann::json;

// One field list per record kind drives both directions: `visit(key, field)` for every field.
template <class Visit>
void fields(Visit& visit, StartRecord& r) {
  visit("epoch", r.epoch);
  visit("step", r.step);
  visit("train_pairs", r.train_pairs);
  visit("valid_pairs", r.valid_pairs);
  visit("device", r.device);
  visit("processor", r.processor);
  visit("time", r.time);
}

template <class Visit>
void fields(Visit& visit, TrainRecord& r) {
  visit("epoch", r.epoch);
  visit("step", r.step);
  visit("loss", r.loss);
  visit("lr", r.lr);
  visit("tgt_tokens_per_s", r.tgt_tokens_per_s);
  visit("train_seconds", r.train_seconds);
  visit("rss_mib", r.rss_mib);
  visit("time", r.time);
}

template <class Visit>
void fields(Visit& visit, EpochRecord& r) {
  visit("epoch", r.epoch);
  visit("step", r.step);
  visit("train_loss", r.train_loss);
  visit("lr", r.lr);
  visit("train_seconds", r.train_seconds);
  visit("target_tokens", r.target_tokens);
  visit("is_best", r.is_best);
  visit("validation_seconds", r.validation_seconds);
  visit("valid_loss", r.valid_loss);
  visit("valid_ppl", r.valid_ppl);
  visit("valid_bleu", r.valid_bleu);
  visit("valid_chrf", r.valid_chrf);
  visit("time", r.time);
}

template <class Visit>
void fields(Visit& visit, ValidRecord& r) {
  visit("epoch", r.epoch);
  visit("step", r.step);
  visit("train_seconds", r.train_seconds);
  visit("is_best", r.is_best);
  visit("validation_seconds", r.validation_seconds);
  visit("valid_loss", r.valid_loss);
  visit("valid_ppl", r.valid_ppl);
  visit("valid_bleu", r.valid_bleu);
  visit("valid_chrf", r.valid_chrf);
  visit("time", r.time);
}

template <class Visit>
void fields(Visit& visit, AverageRecord& r) {
  visit("checkpoints", r.checkpoints);
  visit("valid_loss", r.valid_loss);
  visit("valid_ppl", r.valid_ppl);
  visit("kept", r.kept);
  visit("time", r.time);
}

template <class Visit>
void fields(Visit& visit, EndRecord& r) {
  visit("reason", r.reason);
  visit("message", r.message);
  visit("epoch", r.epoch);
  visit("step", r.step);
  visit("batch", r.batch);
  visit("train_seconds", r.train_seconds);
  visit("best_valid_loss", r.best_valid_loss);
  visit("best_metric", r.best_metric);
  visit("best_score", r.best_score);
  visit("best_step", r.best_step);
  visit("time", r.time);
}

template <class Visit>
void fields(Visit& visit, EvalRecord& r) {
  visit("data", r.data);
  visit("checkpoint", r.checkpoint);
  visit("decoding", r.decoding);
  visit("notebook_form", r.notebook_form);
  visit("bleu", r.bleu);
  visit("chrf", r.chrf);
  visit("loss", r.loss);
  visit("perplexity", r.perplexity);
  visit("by_source_length", r.by_source_length);
  visit("bleu_signature", r.bleu_signature);
  visit("chrf_signature", r.chrf_signature);
  visit("time", r.time);
}

// Indexed like MetricsRecord's alternatives.
constexpr std::array<const char*, std::variant_size_v<MetricsRecord>> kEventNames = {
    "start", "train", "epoch", "average", "end", "eval", "valid"};

class JsonWriter {
 public:
  explicit JsonWriter(json& out) : out_(out) {}
  template <class T>
  void operator()(const char* key, const T& field) {
    out_[key] = field;
  }
  template <class T>
  void operator()(const char* key, const std::optional<T>& field) {
    if (field) out_[key] = *field;
  }
  void operator()(const char* key, const std::vector<LengthScore>& buckets) {
    if (buckets.empty()) return;
    json list = json::array();
    for (const LengthScore& bucket : buckets) {
      json item = {{"words", bucket.words}, {"sentences", bucket.sentences}};
      item["bleu"] = bucket.bleu ? json(*bucket.bleu) : json(nullptr);
      item["chrf"] = bucket.chrf ? json(*bucket.chrf) : json(nullptr);
      list.push_back(std::move(item));
    }
    out_[key] = std::move(list);
  }

 private:
  json& out_;
};

class JsonReader {
 public:
  explicit JsonReader(const json& in) : in_(in) {}

  void operator()(const char* key, int64_t& field) {
    const json* value = find(key);
    if (!value) return;
    if (value->is_number_integer()) {
      field = value->get<int64_t>();
    } else if (value->is_number_float() &&
               std::floor(value->get<double>()) == value->get<double>()) {
      field = static_cast<int64_t>(value->get<double>());
    } else {
      is_valid_ = false;
    }
  }
  void operator()(const char* key, double& field) {
    const json* value = find(key);
    if (value && value->is_number()) {
      field = value->get<double>();
    } else if (value ||
               std::string_view(key) != "time") {  // records written by hand may lack a time
      is_valid_ = false;
    }
  }
  void operator()(const char* key, bool& field) { read_as(key, field, &json::is_boolean); }
  void operator()(const char* key, std::string& field) { read_as(key, field, &json::is_string); }
  void operator()(const char* key, std::optional<double>& field) {
    const auto it = in_.find(key);
    if (it == in_.end() || it->is_null()) return;
    if (!it->is_number()) {
      is_valid_ = false;
      return;
    }
    field = it->get<double>();
  }
  void operator()(const char* key, std::optional<int64_t>& field) {
    const auto it = in_.find(key);
    if (it == in_.end() || it->is_null()) return;
    if (!it->is_number_integer()) {
      is_valid_ = false;
      return;
    }
    field = it->get<int64_t>();
  }
  void operator()(const char* key, std::optional<std::string>& field) {
    const auto it = in_.find(key);
    if (it == in_.end() || it->is_null()) return;
    if (!it->is_string()) {
      is_valid_ = false;
      return;
    }
    field = it->get<std::string>();
  }

  void operator()(const char* key, std::vector<LengthScore>& buckets) {
    const auto it = in_.find(key);
    if (it == in_.end()) return;
    if (!it->is_array()) {
      is_valid_ = false;
      return;
    }
    for (const json& item : *it) {
      LengthScore bucket;
      JsonReader reader(item);
      reader("words", bucket.words);
      reader("sentences", bucket.sentences);
      reader("bleu", bucket.bleu);
      reader("chrf", bucket.chrf);
      if (!item.is_object() || !reader.is_valid()) {
        is_valid_ = false;
        return;
      }
      buckets.push_back(std::move(bucket));
    }
  }

  bool is_valid() const { return is_valid_; }

 private:
  const json* find(const char* key) {
    const auto it = in_.find(key);
    if (it != in_.end()) return &*it;
    if (std::string_view(key) != "time") is_valid_ = false;
    return nullptr;
  }
  template <class T>
  void read_as(const char* key, T& field, bool (json::*is_kind)() const noexcept) {
    const json* value = find(key);
    if (!value) return;
    if (((*value).*is_kind)()) {
      field = value->get<T>();
    } else {
      is_valid_ = false;
    }
  }

  const json& in_;
  bool is_valid_ = true;
};

template <std::size_t I>
std::optional<MetricsRecord> read_alternative(std::size_t index, const json& in) {
  if constexpr (I < std::variant_size_v<MetricsRecord>) {
    if (index != I) return read_alternative<I + 1>(index, in);
    std::variant_alternative_t<I, MetricsRecord> record;
    JsonReader reader(in);
    fields(reader, record);
    if (!reader.is_valid()) return std::nullopt;
    return MetricsRecord(std::move(record));
  } else {
    return std::nullopt;
  }
}

}  // namespace

const char* event_name(const MetricsRecord& record) { return kEventNames[record.index()]; }

json to_json(const MetricsRecord& record) {
  json out = {{"event", event_name(record)}};
  JsonWriter writer(out);
  std::visit(
      [&writer](auto copy) {  // a copy: the field lists take mutable records
        fields(writer, copy);
      },
      record);
  return out;
}

std::optional<MetricsRecord> record_from_json(const json& in) {
  if (!in.is_object()) return std::nullopt;
  const auto event = in.find("event");
  if (event == in.end() || !event->is_string()) return std::nullopt;
  for (std::size_t i = 0; i < kEventNames.size(); ++i) {
    if (*event == kEventNames[i]) return read_alternative<0>(i, in);
  }
  return std::nullopt;
}

MetricsLog::MetricsLog(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("cannot open " + path + " for appending: " + std::strerror(errno));
}

MetricsLog::~MetricsLog() { ::close(fd_); }

void MetricsLog::write(MetricsRecord record) {
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::visit([now](auto& typed) { typed.time = now; }, record);
  const std::string line = to_json(record).dump() + "\n";
  const off_t previous_end = ::lseek(fd_, 0, SEEK_END);
  const int error = write_fully(fd_, line.data(), line.size());
  if (error != 0) {
    const bool is_cut_back = previous_end >= 0 && ::ftruncate(fd_, previous_end) == 0;
    throw Error("cannot append to " + path_ + ": " + std::strerror(error) +
                (is_cut_back ? "" : " (its last line may be incomplete)"));
  }
}

MetricsFile read_metrics(const std::string& path) {
  MetricsFile file;
  std::ifstream probe(path);
  if (!probe) return file;
  std::size_t line_number = 0;
  for (const std::string& line : read_lines(path)) {
    ++line_number;
    if (line.empty()) continue;
    const json parsed = json::parse(line, nullptr, /*allow_exceptions=*/false);
    std::optional<MetricsRecord> record = record_from_json(parsed);
    if (record) {
      file.records.push_back(std::move(*record));
    } else {
      file.skipped_lines.push_back(line_number);
    }
  }
  return file;
}

}  // namespace nmt
