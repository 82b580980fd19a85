#include "nmt/run/serve.h"

#include <spdlog/spdlog.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "nmt/decode/translator.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/run/attention_picture.h"
#include "nmt/run/stop_signal.h"
#include "nmt/serve/server.h"
#include "nmt/text/clean.h"
#include "nmt/text/marian_tokenizer.h"
#include "nmt/text/sentence_splitter.h"

namespace nmt::run {
namespace {

// Attention pictures grow with the square of the length; longer sentences get none.
constexpr std::size_t kMaxAttentionTokens = 64;

// The run's model behind the server: one Translator, entered by one batch at a time.
class ServedModel {
 public:
  explicit ServedModel(OpenedRun run)
      : run_(std::move(run)),
        translator_(run_.models(), run_.tokenizers, run_.config.text.clean, run_.device) {}

  std::vector<serve::SentenceResult> translate(const serve::Batch& batch) {
    const std::lock_guard<std::mutex> lock(mutex_);
    // The number of translators is counted from the server's threads, not from the batcher
    // thread's count; the Translator keeps its workers from one batch to the next.
    decode::SearchOptions options = batch.options;
    if (options.translators == 0) {
      options.translators = decode::translator_count(options, run_.threads);
    }
    decode::TranslationReport report;
    try {
      report = translator_.translate(batch.sentences, options, batch.is_abandoned);
    } catch (const decode::Stopped&) {
      throw serve::ClientLeft("every client of the batch went away; its decoding stopped");
    }
    std::vector<serve::SentenceResult> results(batch.sentences.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
      for (const decode::Translation& translation : report.results[i]) {
        results[i].hypotheses.push_back({translation.text, translation.score});
      }
      if (batch.wants_attention[i] && !report.results[i].empty()) {
        results[i].attention = picture(batch.sentences[i], report.results[i].front());
      }
    }
    return results;
  }

 private:
  std::optional<viz::AttentionPicture> picture(const std::string& sentence,
                                               const decode::Translation& best) {
    const std::vector<int64_t> source_ids =
        run_.tokenizers.source->encode(text::clean(sentence, run_.config.text.clean));
    if (source_ids.empty() || source_ids.size() > kMaxAttentionTokens) return std::nullopt;
    return attention_picture(run_, sentence, source_ids, best);
  }

  OpenedRun run_;
  decode::Translator translator_;
  std::mutex mutex_;
};

std::string direction(const Config& config) {
  const auto side = [](const std::string& code) { return code.empty() ? "?" : code; };
  return std::string(side(config.data.source_lang)) + " -> " + side(config.data.target_lang);
}

}  // namespace

std::string weights_version(const std::vector<std::string>& paths) {
  uLong crc = crc32(0L, Z_NULL, 0);
  std::vector<char> buffer(1 << 20);
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CheckpointError(path + ": cannot open");
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      crc =
          crc32(crc, reinterpret_cast<const Bytef*>(buffer.data()), static_cast<uInt>(in.gcount()));
    }
  }
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08lx", crc);
  return hex;
}

void serve(const ServeRequest& request, const ConfigOverrides& overrides) {
  const StopOnSignal stop;
  const RunDir run_dir = resolve_run_dir(request.model.run_dir);
  const Config config = resolve_config(read_config_json(run_dir.config()), overrides);
  // Declared before the server, so that the server's batches are done before it goes.
  std::unique_ptr<ServedModel> model;
  // Internal errors: the client gets an id, the log the message under it.
  serve::Server server(config.serve, request.api_key,
                       [](const std::string& line) { spdlog::error("{}", line); });
  const int port = server.start();
  const std::string url = "http://" + config.serve.host + ":" + std::to_string(port) + "/";
  spdlog::info("listening on {} (loading {})", url, run_dir.path());
  if (server.max_connections() < config.serve.max_connections) {
    spdlog::warn(
        "serve.max_connections {} lowered to {}: the open-file limit leaves no more sockets "
        "(raise the hard limit, ulimit -Hn)",
        config.serve.max_connections, server.max_connections());
  }
  if (config.data.source_lang.empty() || config.data.target_lang.empty()) {
    spdlog::warn(
        "the run records no language codes (data.source_lang, data.target_lang): /translate "
        "accepts any code; give them with --source-lang and --target-lang");
  }

  OpenedRun opened = open_run(request.model, overrides);
  serve::ModelInfo info;
  info.source_lang = opened.config.data.source_lang;
  info.target_lang = opened.config.data.target_lang;
  info.run = opened.dir.path();
  info.checkpoint = opened.checkpoints();
  info.version = weights_version(opened.checkpoint_files());
  info.defaults = opened.config.decode;
  info.splitter = std::make_shared<const text::SentenceSplitter>(info.source_lang);
  for (const std::string& tag : text::language_tags(*opened.tokenizers.source)) {
    info.target_languages.push_back(tag.substr(2, tag.size() - 4));  // ">>spa<<" -> "spa"
  }
  // A multi-target model: the run's language code (--target-lang), when it is one of its tags, is
  // the output language of requests that choose none.
  const auto& languages = info.target_languages;
  if (std::find(languages.begin(), languages.end(), info.target_lang) != languages.end()) {
    info.defaults.target_lang = info.target_lang;
  }
  const std::string device = describe_device(opened.device);
  model = std::make_unique<ServedModel>(std::move(opened));
  server.set_model(info, [&model](const serve::Batch& batch) { return model->translate(batch); });
  spdlog::info("ready: {} ({}, {}, version {}) on {}, batches of up to {} sentences", info.run,
               info.checkpoint, direction(config), info.version, device, config.serve.max_batch);

  while (!stop.requested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  spdlog::info("stopping: no new connections; answering the requests already accepted");
  server.stop();
  server.wait();
  spdlog::info("stopped");
}

}  // namespace nmt::run
