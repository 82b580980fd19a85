// nmt bench: throughput of training (bench train) and translation (bench translate).
#include "cli/app.h"

namespace nmt::cli {

Command add_bench(CLI::App& app) {
  auto* command = app.add_subcommand(
      "bench", "Measure training and translation throughput (see docs/performance.md)");
  command->require_subcommand(1);
  const Command train = add_bench_train(*command);
  const Command translate = add_bench_translate(*command);
  return {command, [train, translate] {
            return train.first->parsed() ? train.second() : translate.second();
          }};
}

}  // namespace nmt::cli
