// The model section: the Transformer's shape. Its keys, their
// types and ranges and its enums' names, listed once for reading and writing
// (nmt/config_fields.h); nmt/run/config.h assembles the sections.
#pragma once

#include "nmt/config_fields.h"
#include "nmt/model/options.h"

namespace nmt::model {

inline const config::Choices<NormPosition> kNorms = {{"post", NormPosition::kPost},
                                                     {"pre", NormPosition::kPre}};
inline const config::Choices<Activation> kActivations = {
    {"relu", Activation::kRelu}, {"gelu", Activation::kGelu}, {"swish", Activation::kSwish}};
inline const config::Choices<PositionLayout> kPositionLayouts = {
    {"interleaved", PositionLayout::kInterleaved}, {"split", PositionLayout::kSplit}};

template <class Fields>
void model_fields(Fields& f, TransformerOptions& o) {
  f("d_model", o.d_model, config::IntKind::kPositive);
  f("layers", o.layers, config::IntKind::kPositive);
  f("encoder_layers", o.encoder_layers, config::IntKind::kNonNegative);
  f("decoder_layers", o.decoder_layers, config::IntKind::kNonNegative);
  f("heads", o.heads, config::IntKind::kPositive);
  f("ff_mult", o.ff_mult, config::IntKind::kPositive);
  f("dropout", o.dropout);
  f("attention_dropout", o.attention_dropout);
  f("activation_dropout", o.activation_dropout);
  f("norm", o.norm, kNorms);
  f("tie_embeddings", o.tie_embeddings);
  f("share_embeddings", o.share_embeddings);
  f("scale_embeddings", o.scale_embeddings);
  f("activation", o.activation, kActivations);
  f("positions", o.positions, kPositionLayouts);
}

}  // namespace nmt::model
