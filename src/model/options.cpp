#include "nmt/model/options.h"

#include <string>

#include "nmt/check.h"
#include "nmt/error.h"

namespace nmt::model {

void TransformerOptions::validate() const {
  check::positive("d_model", d_model);
  check::positive("layers", layers);
  check::positive("heads", heads);
  check::positive("ff_mult", ff_mult);
  check::fraction("dropout", dropout);
  check::fraction("attention_dropout", attention_dropout);
  check::fraction("activation_dropout", activation_dropout);
  if (d_model % heads != 0) {
    throw ConfigError("heads: expected a divisor of d_model (" + std::to_string(d_model) +
                      "), got " + std::to_string(heads));
  }
  if (d_model % 2 != 0) {
    throw ConfigError(
        "d_model: expected an even number (sinusoidal positions pair sin and cos), got " +
        std::to_string(d_model));
  }
}

}  // namespace nmt::model
