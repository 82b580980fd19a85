// `nmt attention` as library calls: translate one sentence with an opened run, then run the
// source and the translation through the model once more with attention weights requested, and
// copy every layer's and head's weights into a viz::AttentionPicture.
// Throws ConfigError when nothing is left of the sentence after cleaning; never logs.
#pragma once

#include <string>
#include <vector>

#include "nmt/decode/options.h"
#include "nmt/decode/translator.h"
#include "nmt/model/transformer.h"
#include "nmt/run/open_run.h"
#include "nmt/viz/attention_page.h"

namespace nmt::run {

// Attention weights of one teacher-forced pass: source ids [S] and target ids [T] (starting with
// <SOS>) give encoder self [1, H, S, S], decoder self [1, H, T, T] and cross [1, H, T, S] per
// layer. Runs under inference mode on the model's device.
model::AttentionMaps attention_maps(model::Transformer& model,
                                    const std::vector<int64_t>& source_ids,
                                    const std::vector<int64_t>& target_ids);

// The picture of `sentence` and its translation under `options`.
viz::AttentionPicture attention_picture(OpenedRun& run,
                                        const std::string& sentence,
                                        const decode::SearchOptions& options);

// The picture of `sentence` (source_ids: its cleaned and encoded tokens, not empty) translated as
// `translation` (by the run's model, e.g. in a batch of many).
viz::AttentionPicture attention_picture(OpenedRun& run,
                                        const std::string& sentence,
                                        const std::vector<int64_t>& source_ids,
                                        const decode::Translation& translation);

}  // namespace nmt::run
