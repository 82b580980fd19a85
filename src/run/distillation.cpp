#include "nmt/run/distillation.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <unordered_set>
#include <vector>

#include "nmt/data/dataset.h"
#include "nmt/decode/translator.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/io.h"
#include "nmt/run/stop_signal.h"
#include "nmt/stopwatch.h"

namespace nmt::run {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct DistilFiles {
  std::string translations, corpus, provenance;

  explicit DistilFiles(const std::string& out)
      : translations((fs::path(out) / "teacher-translations.tsv").string()),
        corpus((fs::path(out) / "distilled.tsv").string()),
        provenance((fs::path(out) / "distil.json").string()) {}
};

// The distinct sources of a training split, in the order they first occur.
struct Sources {
  std::string split;
  std::vector<std::string> texts;
  int64_t training_pairs = 0;
};

Sources distinct_sources(const std::string& split) {
  Sources sources{split, {}, 0};
  std::unordered_set<std::string> seen;
  for (data::SentencePair& pair : data::read_pairs(split)) {
    ++sources.training_pairs;
    if (seen.insert(pair.source).second) sources.texts.push_back(std::move(pair.source));
  }
  return sources;
}

// One source's teacher translation: its mean log-probability per target token (the end of the
// sentence included) and its text.
struct Distilled {
  bool is_done = false;
  double score = 0.0;
  std::string text;
};

// What makes a distillation's translations what they are; a directory made by other teachers or
// settings is refused rather than continued. How many threads translated is not part of it.
json identity(const OpenedRun& teachers, const Sources& sources) {
  json models = json::array();
  for (const std::string& checkpoint : teachers.checkpoint_files()) {
    models.push_back({{"checkpoint", fs::weakly_canonical(checkpoint).string()},
                      {"bytes", fs::file_size(checkpoint)}});
  }
  json decoding = config_to_json(teachers.config)["decode"];
  for (const char* how_fast : {"threads", "translators", "batch_size"}) decoding.erase(how_fast);
  return {{"teachers", models},
          {"decoding", decoding},
          {"source_split", fs::weakly_canonical(sources.split).string()},
          {"sources", sources.texts.size()}};
}

// The key of the first difference between two identities, empty when they agree.
std::string first_difference(const json& recorded, const json& wanted) {
  for (const auto& item : wanted.items()) {
    if (!recorded.contains(item.key()) || recorded[item.key()] != item.value()) return item.key();
  }
  return "";
}

// The translations an earlier run wrote (all of them, or those of a killed one). A last line
// without its newline (the process died while writing it) is cut off the file.
std::vector<Distilled> read_translations(const std::string& path, std::size_t sources) {
  std::vector<Distilled> done(sources);
  if (!fs::exists(path)) return done;
  std::string text = read_text_file(path);
  const std::size_t complete = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  if (complete < text.size()) {
    fs::resize_file(path, complete);
    text.resize(complete);
  }
  std::size_t line_number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    ++line_number;
    const std::size_t tab = line.find('\t');
    const std::size_t second_tab = tab == std::string::npos ? tab : line.find('\t', tab + 1);
    std::size_t index = sources;
    try {
      index = std::stoul(line.substr(0, tab));
      if (second_tab == std::string::npos || index >= sources) throw std::invalid_argument(line);
      done[index] = {true, std::stod(line.substr(tab + 1, second_tab - tab - 1)),
                     line.substr(second_tab + 1)};
    } catch (const std::logic_error&) {
      throw DataError(path + ":" + std::to_string(line_number),
                      "expected \"index<TAB>score<TAB>translation\" with an index below " +
                          std::to_string(sources) + "; remove the file to translate again");
    }
  }
  return done;
}

// The translations file, appended a chunk at a time and synced before the chunk counts as done.
class TranslationsFile {
 public:
  explicit TranslationsFile(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) fail(errno);
  }
  ~TranslationsFile() { ::close(fd_); }
  TranslationsFile(const TranslationsFile&) = delete;
  TranslationsFile& operator=(const TranslationsFile&) = delete;

  void append_synced(const std::string& lines) {
    if (const int error = write_fully(fd_, lines.data(), lines.size())) fail(error);
    if (::fdatasync(fd_) != 0) fail(errno);
  }

 private:
  [[noreturn]] void fail(int error) const {
    throw Error("cannot write " + path_ + ": " + std::strerror(error));
  }

  std::string path_;
  int fd_ = -1;
};

// A translation on one line of a TSV file.
std::string one_line(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  return text;
}

// The sources not yet translated, shortest first, so that each chunk's batches are of like
// lengths.
std::vector<std::size_t> pending_in_length_order(const Sources& sources,
                                                 const std::vector<Distilled>& done) {
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < done.size(); ++i) {
    if (!done[i].is_done) pending.push_back(i);
  }
  std::stable_sort(pending.begin(), pending.end(), [&](std::size_t a, std::size_t b) {
    return sources.texts[a].size() < sources.texts[b].size();
  });
  return pending;
}

// Translates one chunk of sources and appends it to the translations file; returns its bytes of
// source text.
std::size_t translate_chunk(decode::Translator& translator,
                            const OpenedRun& teachers,
                            const Sources& sources,
                            const std::vector<std::size_t>& chunk,
                            std::vector<Distilled>& done,
                            TranslationsFile& out) {
  std::vector<std::string> texts;
  std::size_t bytes = 0;
  for (const std::size_t index : chunk) {
    texts.push_back(sources.texts[index]);
    bytes += sources.texts[index].size();
  }
  const decode::TranslationReport report =
      translator.translate_cleaned(texts, teachers.config.decode);
  std::string lines;
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    const decode::Translation& best = report.results[i].front();
    const double tokens = static_cast<double>(best.ids.size() + 1);  // with the end of sentence
    done[chunk[i]] = {true, best.score / tokens, one_line(best.decoded)};
    lines += fmt::format("{}\t{}\t{}\n", chunk[i], format_number(done[chunk[i]].score, 9),
                         done[chunk[i]].text);
  }
  out.append_synced(lines);
  return bytes;
}

struct TranslationState {
  json provenance;
  double seconds_before = 0.0;  // spent by earlier, interrupted runs
};

void record_progress(const DistilFiles& files,
                     TranslationState& state,
                     std::size_t translated,
                     double seconds) {
  state.provenance["translated"] = translated;
  state.provenance["seconds"] = state.seconds_before + seconds;
  write_text_atomically(files.provenance, state.provenance.dump(2) + "\n");
}

// How often translating says how far it is.
constexpr double kProgressSeconds = 10.0;

void log_progress(std::size_t translated,
                  std::size_t total,
                  std::size_t bytes_done,
                  std::size_t bytes_left,
                  double seconds,
                  std::size_t sentences_done) {
  const double rate = static_cast<double>(bytes_done) / std::max(seconds, 1e-9);
  spdlog::info("distil: {} of {} sources translated ({:.1f}%), {:.0f} sentences/s, {} left",
               translated, total, 100.0 * static_cast<double>(translated) / total,
               static_cast<double>(sentences_done) / std::max(seconds, 1e-9),
               format_clock(static_cast<double>(bytes_left) / std::max(rate, 1e-9)));
}

// Translates every pending source, a chunk at a time; false when a signal stopped it.
bool translate_pending(OpenedRun& teachers,
                       std::size_t chunk_sources,
                       const Sources& sources,
                       std::vector<Distilled>& done,
                       const DistilFiles& files,
                       TranslationState& state) {
  StopOnSignal stop;
  const std::vector<std::size_t> pending = pending_in_length_order(sources, done);
  std::size_t bytes_left = 0;
  for (const std::size_t index : pending) bytes_left += sources.texts[index].size();
  std::size_t translated = sources.texts.size() - pending.size(), bytes_done = 0;
  decode::Translator translator(teachers.models(), teachers.tokenizers, teachers.config.text.clean,
                                teachers.device);
  TranslationsFile out(files.translations);
  const auto start = SteadyClock::now();
  double last_log = 0.0;
  for (std::size_t first = 0; first < pending.size(); first += chunk_sources) {
    if (stop.requested().load()) return false;
    const std::vector<std::size_t> chunk(
        pending.begin() + static_cast<std::ptrdiff_t>(first),
        pending.begin() +
            static_cast<std::ptrdiff_t>(std::min(first + chunk_sources, pending.size())));
    const std::size_t bytes = translate_chunk(translator, teachers, sources, chunk, done, out);
    bytes_done += bytes;
    bytes_left -= bytes;
    translated += chunk.size();
    const double seconds = seconds_since(start);
    record_progress(files, state, translated, seconds);
    if (seconds >= last_log + kProgressSeconds || bytes_left == 0) {
      log_progress(translated, sources.texts.size(), bytes_done, bytes_left, seconds,
                   first + chunk.size());
      last_log = seconds;
    }
  }
  return true;
}

// Writes the corpus from the translations, dropping what the filter refuses; fills the counts.
void write_corpus(const Sources& sources,
                  const std::vector<Distilled>& done,
                  double min_score,
                  const DistilFiles& files,
                  DistilledCorpus& corpus) {
  std::vector<data::SentencePair> pairs;
  for (std::size_t i = 0; i < done.size(); ++i) {
    if (done[i].text.empty()) {
      ++corpus.dropped_empty;
    } else if (done[i].score < min_score) {
      ++corpus.dropped_score;
    } else {
      pairs.push_back({sources.texts[i], done[i].text});
    }
  }
  corpus.kept = static_cast<int64_t>(pairs.size());
  data::write_pairs(files.corpus, pairs);
}

json corpus_counts(const DistilledCorpus& corpus, double min_score) {
  return {
      {"training_pairs", corpus.training_pairs},
      {"min_score", std::isfinite(min_score) ? json(min_score) : json(nullptr)},
      {"kept", corpus.kept},
      {"dropped", {{"empty", corpus.dropped_empty}, {"below_min_score", corpus.dropped_score}}}};
}

// The provenance of an earlier distillation in the same directory, checked against this one.
TranslationState earlier_state(const DistilFiles& files,
                               const json& wanted,
                               const std::string& out) {
  TranslationState state{wanted, 0.0};
  if (!fs::exists(files.provenance)) return state;
  const json recorded = json::parse(read_text_file(files.provenance), nullptr, false);
  const std::string differing =
      recorded.is_object() ? first_difference(recorded, wanted) : std::string("the whole file");
  if (!differing.empty()) {
    throw ConfigError("--out: " + out +
                      " holds a distillation by other teachers or settings (distil.json: " +
                      differing + " differs); choose another --out or remove it");
  }
  state.provenance = recorded;
  state.seconds_before = recorded.value("seconds", 0.0);
  return state;
}

DistilledCorpus make_corpus(const DistilRequest& request) {
  DistilledCorpus corpus;
  const DistilFiles files(request.out);
  corpus.path = files.corpus;
  StopOnSignal stop;
  stop.exit_at_once("interrupted before translating; nothing was lost");
  // Taken before the teachers load, so that a second process on DIR is refused at once.
  const RunLock lock{RunDir(request.out)};
  OpenedRun teachers = open_run(request.teachers, request.decoding);
  const Sources sources = distinct_sources(teachers.dir.split(Split::kTrain));
  corpus.training_pairs = sources.training_pairs;
  corpus.sources = static_cast<int64_t>(sources.texts.size());
  TranslationState state = earlier_state(files, identity(teachers, sources), request.out);
  std::vector<Distilled> done = read_translations(files.translations, sources.texts.size());
  const auto earlier = std::count_if(done.begin(), done.end(), [](auto& d) { return d.is_done; });
  spdlog::info("distil: {} training pairs, {} distinct sources, translated by {} ({}){}",
               sources.training_pairs, sources.texts.size(), teachers.checkpoints(),
               teachers.models().size() > 1 ? "an ensemble" : "one model",
               earlier > 0 ? fmt::format("; {} translated before", earlier) : "");
  stop.request_stop_instead();
  corpus.is_interrupted = !translate_pending(
      teachers, static_cast<std::size_t>(request.chunk_sources), sources, done, files, state);
  corpus.seconds = state.provenance.value("seconds", 0.0);
  if (corpus.is_interrupted) {
    spdlog::warn(
        "distil: interrupted; the translations so far are in {}, and the same command "
        "continues from them",
        files.translations);
    return corpus;
  }
  write_corpus(sources, done, request.min_score, files, corpus);
  state.provenance["corpus"] = corpus_counts(corpus, request.min_score);
  write_text_atomically(files.provenance, state.provenance.dump(2) + "\n");
  spdlog::info(
      "distil: wrote {} pairs to {} (dropped: {} empty, {} below --min-score); "
      "translating took {}",
      corpus.kept, files.corpus, corpus.dropped_empty, corpus.dropped_score,
      format_duration(corpus.seconds));
  return corpus;
}

TrainOutcome train_student(const DistilRequest& request, const DistilledCorpus& corpus) {
  // Absolute paths: the student's config.json must name the same files from any directory.
  const RunDir teacher(fs::absolute(resolve_run_dir(request.teachers.run_dir).path()).string());
  // The distillation's own settings come first, so that --set can still change them (e.g. add the
  // original corpus to data.train).
  ConfigOverrides overrides = {{"data.path", ""},
                               {"data.train", json::array({fs::absolute(corpus.path).string()})},
                               {"data.valid", json::array({teacher.split(Split::kValid)})},
                               {"data.test", json::array({teacher.split(Split::kTest)})},
                               {"text.vocab_from", teacher.path()}};
  overrides.insert(overrides.end(), request.student_overrides.begin(),
                   request.student_overrides.end());
  const RunDir student(request.out);
  const bool is_resume = fs::exists(student.config());
  spdlog::info("distil: {} the student in {}", is_resume ? "continuing" : "training",
               student.path());
  return train_run(
      {request.student_config, student.path(), is_resume, overrides, request.is_terminal});
}

}  // namespace

DistilOutcome distil(const DistilRequest& request) {
  if (request.out.empty()) throw ConfigError("--out: required (the distillation's directory)");
  if (request.min_score > 0.0) {
    throw ConfigError("--min-score: a mean log-probability per token is at most 0, got " +
                      format_number(request.min_score));
  }
  if (request.chunk_sources < 1) {
    throw ConfigError("--chunk: expected a positive number of sources, got " +
                      std::to_string(request.chunk_sources));
  }
  DistilOutcome outcome{make_corpus(request), std::nullopt};
  if (outcome.corpus.is_interrupted || request.student_config.empty()) return outcome;
  outcome.student = train_student(request, outcome.corpus);
  return outcome;
}

int exit_status(const DistilOutcome& outcome) {
  if (outcome.corpus.is_interrupted) return 130;
  return outcome.student ? exit_status(outcome.student->result.reason) : 0;
}

}  // namespace nmt::run
