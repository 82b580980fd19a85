#include "nmt/model/options.h"

#include <string>

#include "nmt/check.h"
#include "nmt/error.h"

namespace nmt::model {

void TransformerOptions::validate() const {
  check::positive("d_model", d_model);
  check::positive("layers", layers);
  check::non_negative("encoder_layers", encoder_layers);
  check::non_negative("decoder_layers", decoder_layers);
  check::positive("heads", heads);
  check::positive("ff_mult", ff_mult);
  check::fraction("dropout", dropout);
  check::fraction("attention_dropout", attention_dropout);
  check::fraction("activation_dropout", activation_dropout);
  if (d_model % heads != 0) {
    throw ConfigError("heads", "expected a divisor of d_model (" + std::to_string(d_model) +
                                   "), got " + std::to_string(heads));
  }
  if (d_model % 2 != 0) {
    throw ConfigError("d_model",
                      "expected an even number (sinusoidal positions pair sin and cos), got " +
                          std::to_string(d_model));
  }
}

int64_t TransformerOptions::parameter_count(int64_t source_vocab, int64_t target_vocab) const {
  const int64_t attention = 4 * d_model * d_model + 4 * d_model;  // q, k, v, out with biases
  const int64_t hidden = ff_mult * d_model;
  const int64_t feed_forward = 2 * d_model * hidden + hidden + d_model;
  const int64_t layer_norm = 2 * d_model;
  const int64_t encoder_layer = attention + feed_forward + 2 * layer_norm;
  const int64_t decoder_layer = 2 * attention + feed_forward + 3 * layer_norm;
  const int64_t embeddings =
      source_vocab * d_model + (share_embeddings ? 0 : target_vocab * d_model);
  const int64_t final_norms = norm == NormPosition::kPre ? 2 * layer_norm : 0;
  const int64_t output = tie_embeddings ? target_vocab : d_model * target_vocab + target_vocab;
  return embeddings + encoder_depth() * encoder_layer + decoder_depth() * decoder_layer +
         final_norms + output;
}

}  // namespace nmt::model
