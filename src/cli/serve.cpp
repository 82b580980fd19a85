// nmt serve: a trained run behind an HTTP API (LibreTranslate's and nmt's own) with a page to
// translate in the browser, until SIGINT or SIGTERM.
#include "nmt/run/serve.h"

#include <memory>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"

namespace nmt::cli {

Command add_serve(CLI::App& app) {
  auto* command = app.add_subcommand(
      "serve",
      "Serve a trained run over HTTP: POST /translate (LibreTranslate's API), POST /v1/translate\n"
      "(decoding options, n-best, scores, attention), GET /languages, /health, /metrics\n"
      "(Prometheus) and a page at / to translate as you type. Concurrent requests are decoded\n"
      "together in batches. Binds 127.0.0.1 unless --host says otherwise; SIGINT or SIGTERM stops\n"
      "accepting, answers what was accepted and exits 0. See docs/serving.md.");
  auto request = std::make_shared<run::ServeRequest>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  add_ensemble_model_options(*command, request->model);
  flags->add<std::string>("--host", "serve.host",
                          "Address to listen on (0.0.0.0: every interface)");
  flags->add<int64_t>("--port", "serve.port", "TCP port (0: any free port, named in the log)");
  flags->add<int64_t>("--max-batch", "serve.max_batch", "Sentences decoded together at most");
  flags->add<int64_t>("--max-wait-ms", "serve.max_wait_ms",
                      "Milliseconds the oldest waiting sentence waits for others to join it");
  flags->add<int64_t>("--workers", "serve.workers", "Batches handed to the model at once");
  flags->add<int64_t>("--http-threads", "serve.http_threads",
                      "Translation requests handled at once (idle connections hold no thread)");
  flags->add<int64_t>("--max-connections", "serve.max_connections",
                      "Open connections at most; a new one closes the longest-idle one");
  flags->add<int64_t>("--idle-timeout-ms", "serve.idle_timeout_ms",
                      "Milliseconds a connection may wait before sending a request, then closed");
  flags->add<int64_t>("--read-timeout-ms", "serve.read_timeout_ms",
                      "Milliseconds from a request's first byte to its last, then 408");
  flags->add<int64_t>("--max-queue", "serve.max_queue",
                      "Sentences waiting at most; beyond it 503 with Retry-After");
  flags->add<int64_t>("--timeout-ms", "serve.timeout_ms",
                      "Milliseconds a request waits for its translations, then 504");
  flags->add<int64_t>("--max-body-bytes", "serve.max_body_bytes",
                      "Request body size at most; beyond it 413");
  flags->add<int64_t>("--max-sentences", "serve.max_sentences",
                      "Sentences (lines of texts) per request");
  flags->add<int64_t>("--max-chars", "serve.max_chars", "Characters per text or sentence");
  flags->add<int64_t>("--max-beam-size", "serve.max_beam_size",
                      "Largest beam_size and n_best a request may ask for");
  flags->add<std::string>("--access-log", "serve.access_log",
                          "Append a line per answered request to this file (Combined Log Format, "
                          "then seconds taken, request id, bytes in, sentences; - for stdout, "
                          "off for none)");
  flags->add<std::string>("--source-lang", "data.source_lang",
                          "The model's source language code, where the run records none");
  flags->add<std::string>("--target-lang", "data.target_lang",
                          "The model's target language code, where the run records none");
  command
      ->add_option("--api-key", request->api_key,
                   "Key requests must carry (Authorization: Bearer KEY, or LibreTranslate's "
                   "api_key field); default: none, or $NMT_API_KEY")
      ->envname("NMT_API_KEY");
  add_decode_flags(*flags);
  add_runtime_flags(*flags);
  flags->add_set_option();
  command->footer(
      "Examples:\n"
      "  nmt serve --model runs/tatoeba --port 8080\n"
      "  curl -s localhost:8080/translate -H 'Content-Type: application/json' \\\n"
      "       -d '{\"q\": \"I am hungry.\", \"source\": \"en\", \"target\": \"es\"}'\n"
      "  NMT_API_KEY=secret nmt serve --host 0.0.0.0 --precision bf16 --max-batch 32");
  return {command, [request, flags] {
            run::serve(*request, flags->overrides());
            return 0;
          }};
}

}  // namespace nmt::cli
