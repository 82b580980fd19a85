#include "nmt/model/cpu_decoder.h"

#include <ATen/ATen.h>
#include <torch/nn/modules/normalization.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "model/cpu_kernels.h"
#include "model/int8_matmul.h"

namespace nmt::model {
namespace {

// Positions precomputed for outputs of up to twice the longest input nmt accepts.
constexpr int64_t kPrecomputedPositions = 2 * 1024 + 16;

}  // namespace

// The decoder's weights in the forms it computes with. Its parts are nested here, not in an
// anonymous namespace, because Weights is declared in the header: a member of a type with internal
// linkage would make GCC warn (-Wsubobject-linkage) wherever this file is not the main file, as in
// a unity build (scripts/build-torch2.sh).
struct CpuDecoder::Weights {
  // One linear layer in the form the model decodes with.
  struct Linear {
    WeightForm form = WeightForm::kFp32;
    int64_t in = 0;
    int64_t out = 0;
    at::Tensor weight;  // [out, in]: fp32, or bf16 for kBf16
    at::Tensor bias;    // [out]: fp32, or bf16 for kBf16
    std::shared_ptr<const Int8Matrix> int8;

    Linear() = default;
    Linear(const at::Tensor& fp32_weight,
           const at::Tensor& fp32_bias,
           const InferenceWeight& inference)
        : form(inference.form()), in(fp32_weight.size(1)), out(fp32_weight.size(0)) {
      switch (form) {
        case WeightForm::kFp32:
          weight = fp32_weight.detach();
          bias = fp32_bias.detach();
          break;
        case WeightForm::kBf16:
          weight = inference.weight();
          bias = inference.bias();
          break;
        case WeightForm::kInt8:
        case WeightForm::kInt8W7:
          int8 = inference.int8_matrix();
          bias = inference.bias();
          break;
      }
    }

    // y [m, out] = x [m, in] W^T + b.
    void apply(const float* x, int64_t m, float* y, Int8Scratch& scratch) const {
      at::Tensor input = at::from_blob(const_cast<float*>(x), {m, in});
      at::Tensor output = at::from_blob(y, {m, out});
      switch (form) {
        case WeightForm::kFp32:
          at::addmm_out(output, bias, input, weight.t());  // at::linear's own call for 2-d inputs
          break;
        case WeightForm::kBf16:
          output.copy_(at::linear(input.to(at::kBFloat16), weight, bias));
          break;
        case WeightForm::kInt8:
        case WeightForm::kInt8W7:
          int8_gemm(x, m, *int8, bias.data_ptr<float>(), y, scratch);
          break;
      }
    }
  };

  struct Norm {
    at::Tensor gamma;
    at::Tensor beta;
    float eps = 1e-5f;

    // y [rows, n] = LayerNorm(x).
    void apply(const float* x, int64_t rows, float* y) const {
      cpu::layer_norm(x, rows, gamma.size(0), gamma.data_ptr<float>(), beta.data_ptr<float>(), eps,
                      y);
    }
  };

  struct Layer {
    Linear self_qkv;     // [3D, D]: queries, keys, values
    Linear self_out;     // [D, D]
    Linear cross_query;  // [D, D]
    Linear cross_kv;     // [2D, D]: keys, values of the encoder output
    Linear cross_out;    // [D, D]
    Linear expand;       // [F, D]
    Linear contract;     // [D, F]
    Norm norm1, norm2, norm3;
  };

  int64_t d_model = 0;
  int64_t heads = 0;
  int64_t vocab = 0;
  int64_t ff_width = 0;
  Activation activation = Activation::kRelu;
  PositionLayout positions_layout = PositionLayout::kInterleaved;
  bool is_pre_norm = false;
  float embedding_scale = 1.0f;
  at::Tensor embedding;  // [V, D] target embedding
  at::Tensor positions;  // [kPrecomputedPositions, D]
  std::vector<Layer> layers;
  Norm final_norm;  // pre-norm only
  Linear output;
};

struct CpuDecoderState::Buffers {
  // The self-attention keys and values of every layer are appended position by position: position
  // p's block holds the rows alive at step p. Row r's key at position p is row origin[r, p] of the
  // blocks, so reordering or dropping rows (beams) rewrites the small origin table, never the
  // caches.
  struct LayerCache {
    std::vector<float> keys;    // [cache rows, D]
    std::vector<float> values;  // [cache rows, D]
    std::vector<float> memory;  // [sentences, source_length, 2D]: keys, then values, per position
  };

  int64_t rows = 0;
  int64_t position = 0;         // the next target position
  int64_t cache_rows = 0;       // rows appended to each layer's keys and values so far
  int64_t capacity = 0;         // positions origin holds per row
  int64_t source_length = 0;    // padded positions of every sentence's memory
  std::vector<int64_t> origin;  // [rows, capacity]: cache row of row r's position p
  std::vector<int64_t> spare_origin;
  std::vector<int64_t> row_sentence;  // the sentence each row translates
  std::vector<int64_t> sentence_lengths;
  std::vector<LayerCache> layers;
  std::vector<const float*> key_rows, value_rows;  // one row's cache rows, for attention
  std::vector<float> x, normed, projections, attended, sublayer, hidden, scores;
  at::Tensor logits;  // [at least rows, V]: reused, a fresh [R, V] each step faulted in new pages
  Int8Scratch int8;

  // One step of CpuDecoder::step, in order: room for this position in the caches (returning the
  // first cache row of its block), the embeddings of the last tokens into x, each layer on x, and
  // the logits of x.
  int64_t open_position(const CpuDecoder::Weights& w);
  void embed(const CpuDecoder::Weights& w, const at::Tensor& last_ids);
  void decode_layer(const CpuDecoder::Weights& w, std::size_t index, int64_t block);
  at::Tensor output_logits(const CpuDecoder::Weights& w);
  // x = x + sublayer(norm(x)) (pre-norm) or x = norm(x + sublayer(x)) (post-norm): the sublayer's
  // input, and adding its output (in `sublayer`) back.
  const float* sublayer_input(const CpuDecoder::Weights& w, const CpuDecoder::Weights::Norm& norm);
  void add_residual(const CpuDecoder::Weights& w, const CpuDecoder::Weights::Norm& norm);

  // Keeps the rows `kept` (in this order), with room for new_capacity positions per row.
  void rearrange(const std::vector<int64_t>& kept, int64_t new_capacity) {
    spare_origin.resize(kept.size() * static_cast<std::size_t>(new_capacity));
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const int64_t* from = origin.data() + kept[i] * capacity;
      std::copy(from, from + position,
                spare_origin.data() + static_cast<int64_t>(i) * new_capacity);
    }
    origin.swap(spare_origin);
    std::vector<int64_t> sentences;
    sentences.reserve(kept.size());
    for (const int64_t row : kept) sentences.push_back(row_sentence[static_cast<std::size_t>(row)]);
    row_sentence = std::move(sentences);
    rows = static_cast<int64_t>(kept.size());
    capacity = new_capacity;
  }
};

int64_t CpuDecoderState::Buffers::open_position(const CpuDecoder::Weights& w) {
  if (position == capacity) {
    std::vector<int64_t> all(static_cast<std::size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) all[static_cast<std::size_t>(r)] = r;
    rearrange(all, 2 * capacity);
  }
  const auto size = [](int64_t count) { return static_cast<std::size_t>(count); };
  // This position's block: rows cache_rows .. cache_rows + rows - 1, row r's at cache_rows + r.
  const int64_t block = cache_rows;
  cache_rows += rows;
  for (int64_t r = 0; r < rows; ++r) origin[size(r * capacity + position)] = block + r;
  const int64_t d = w.d_model;
  key_rows.resize(size(position + 1));
  value_rows.resize(size(position + 1));
  x.resize(size(rows * d));
  normed.resize(size(rows * d));
  projections.resize(size(rows * 3 * d));
  attended.resize(size(rows * d));
  sublayer.resize(size(rows * d));
  hidden.resize(size(rows * w.ff_width));
  scores.resize(size(std::max(position + 1, source_length)));
  return block;
}

void CpuDecoderState::Buffers::embed(const CpuDecoder::Weights& w, const at::Tensor& last_ids) {
  const int64_t d = w.d_model;
  const at::Tensor ids = last_ids.to(at::kLong).contiguous().cpu();
  const at::Tensor position_row =
      position < kPrecomputedPositions
          ? w.positions[position]
          : sinusoidal_positions(position, 1, d, w.positions_layout, at::kCPU).contiguous()[0];
  const float* position_values = position_row.data_ptr<float>();
  const float* embedding = w.embedding.data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t id = ids.data_ptr<int64_t>()[r];
    TORCH_CHECK(id >= 0 && id < w.vocab, "CpuDecoder: token id ", id, " outside the vocabulary");
    const float* row = embedding + id * d;
    float* out = x.data() + r * d;
    for (int64_t i = 0; i < d; ++i) out[i] = row[i] * w.embedding_scale + position_values[i];
  }
}

const float* CpuDecoderState::Buffers::sublayer_input(const CpuDecoder::Weights& w,
                                                      const CpuDecoder::Weights::Norm& norm) {
  if (!w.is_pre_norm) return x.data();
  norm.apply(x.data(), rows, normed.data());
  return normed.data();
}

void CpuDecoderState::Buffers::add_residual(const CpuDecoder::Weights& w,
                                            const CpuDecoder::Weights::Norm& norm) {
  cpu::add(x.data(), sublayer.data(), rows * w.d_model);
  if (!w.is_pre_norm) norm.apply(x.data(), rows, x.data());
}

void CpuDecoderState::Buffers::decode_layer(const CpuDecoder::Weights& w,
                                            std::size_t index,
                                            int64_t block) {
  const auto size = [](int64_t count) { return static_cast<std::size_t>(count); };
  const CpuDecoder::Weights::Layer& layer = w.layers[index];
  LayerCache& cache = layers[index];
  const int64_t d = w.d_model;
  const int64_t head_dim = d / w.heads;
  // Self-attention over this row's positions so far, this one appended to the cache.
  layer.self_qkv.apply(sublayer_input(w, layer.norm1), rows, projections.data(), int8);
  cache.keys.resize(size(cache_rows * d));
  cache.values.resize(size(cache_rows * d));
  for (int64_t r = 0; r < rows; ++r) {
    const float* qkv = projections.data() + r * 3 * d;
    std::copy(qkv + d, qkv + 2 * d, cache.keys.data() + (block + r) * d);
    std::copy(qkv + 2 * d, qkv + 3 * d, cache.values.data() + (block + r) * d);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* row_origin = origin.data() + r * capacity;
    for (int64_t p = 0; p <= position; ++p) {
      key_rows[size(p)] = cache.keys.data() + row_origin[p] * d;
      value_rows[size(p)] = cache.values.data() + row_origin[p] * d;
    }
    cpu::attend_rows(projections.data() + r * 3 * d, key_rows.data(), value_rows.data(),
                     position + 1, w.heads, head_dim, scores.data(), attended.data() + r * d);
  }
  layer.self_out.apply(attended.data(), rows, sublayer.data(), int8);
  add_residual(w, layer.norm1);
  // Cross-attention over the real positions of the row's sentence.
  layer.cross_query.apply(sublayer_input(w, layer.norm2), rows, projections.data(), int8);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t sentence = row_sentence[size(r)];
    const float* memory = cache.memory.data() + sentence * source_length * 2 * d;
    cpu::attend(projections.data() + r * d, memory, memory + d, sentence_lengths[size(sentence)],
                2 * d, w.heads, head_dim, scores.data(), attended.data() + r * d);
  }
  layer.cross_out.apply(attended.data(), rows, sublayer.data(), int8);
  add_residual(w, layer.norm2);
  // Feed-forward.
  layer.expand.apply(sublayer_input(w, layer.norm3), rows, hidden.data(), int8);
  cpu::activate(w.activation, hidden.data(), rows * w.ff_width);
  layer.contract.apply(hidden.data(), rows, sublayer.data(), int8);
  add_residual(w, layer.norm3);
}

at::Tensor CpuDecoderState::Buffers::output_logits(const CpuDecoder::Weights& w) {
  const float* final_states = x.data();
  if (w.is_pre_norm) {
    w.final_norm.apply(x.data(), rows, normed.data());
    final_states = normed.data();
  }
  if (!logits.defined() || logits.size(0) < rows) logits = at::empty({rows, w.vocab}, at::kFloat);
  at::Tensor out = logits.narrow(0, 0, rows);
  w.output.apply(final_states, rows, out.data_ptr<float>(), int8);
  return out;
}

CpuDecoderState::CpuDecoderState() : buffers_(std::make_unique<Buffers>()) {}
CpuDecoderState::~CpuDecoderState() = default;
CpuDecoderState::CpuDecoderState(CpuDecoderState&&) noexcept = default;
CpuDecoderState& CpuDecoderState::operator=(CpuDecoderState&&) noexcept = default;

int64_t CpuDecoderState::rows() const { return buffers_->rows; }

void CpuDecoderState::keep_rows(const at::Tensor& rows) {
  const at::Tensor indices = rows.to(at::kLong).contiguous().cpu();
  const int64_t* data = indices.data_ptr<int64_t>();
  std::vector<int64_t> kept(data, data + indices.numel());
  for (const int64_t row : kept) {
    TORCH_CHECK(row >= 0 && row < buffers_->rows, "keep_rows: row ", row, " of ", buffers_->rows);
  }
  buffers_->rearrange(kept, buffers_->capacity);
}

CpuDecoder::CpuDecoder(TransformerImpl& model) {
  auto weights = std::make_unique<Weights>();
  const TransformerOptions& options = model.options();
  weights->d_model = options.d_model;
  weights->heads = options.heads;
  weights->vocab = model.target_vocab();
  weights->ff_width = options.ff_mult * options.d_model;
  weights->activation = options.activation;
  weights->is_pre_norm = options.norm == NormPosition::kPre;
  weights->positions_layout = options.positions;
  weights->embedding_scale =
      options.scale_embeddings ? static_cast<float>(std::sqrt(static_cast<double>(options.d_model)))
                               : 1.0f;
  // Modules by their stable names (the checkpoint keys).
  const auto modules = model.named_modules();
  const auto parameters = model.named_parameters();
  const auto module = [&](const std::string& name) {
    const auto* found = modules.find(name);
    TORCH_CHECK(found, "CpuDecoder: the model has no module ", name);
    return *found;
  };
  const auto linear = [&](const std::string& name) {
    const auto* layer = module(name)->as<LinearImpl>();
    TORCH_CHECK(layer, "CpuDecoder: ", name, " is not a linear layer");
    TORCH_CHECK(layer->weight.device().is_cpu(), "CpuDecoder: the model must be on the CPU");
    return Weights::Linear(layer->weight, layer->bias, layer->inference());
  };
  const auto norm = [&](const std::string& name) {
    const auto* layer = module(name)->as<torch::nn::LayerNormImpl>();
    TORCH_CHECK(layer, "CpuDecoder: ", name, " is not a layer norm");
    return Weights::Norm{layer->weight.detach(), layer->bias.detach(),
                         static_cast<float>(layer->options.eps())};
  };
  weights->embedding =
      parameters[options.share_embeddings ? "source_embedding.weight" : "target_embedding.weight"]
          .detach();
  weights->positions =
      sinusoidal_positions(0, kPrecomputedPositions, options.d_model, options.positions, at::kCPU)
          .contiguous();
  for (int64_t i = 0; i < options.decoder_depth(); ++i) {
    const std::string prefix = "decoder." + std::to_string(i) + ".";
    weights->layers.push_back(
        {linear(prefix + "self_attention.in_proj"), linear(prefix + "self_attention.out_proj"),
         linear(prefix + "cross_attention.in_proj"), linear(prefix + "cross_attention.kv_proj"),
         linear(prefix + "cross_attention.out_proj"), linear(prefix + "feed_forward.expand"),
         linear(prefix + "feed_forward.contract"), norm(prefix + "norm1"), norm(prefix + "norm2"),
         norm(prefix + "norm3")});
  }
  if (weights->is_pre_norm) weights->final_norm = norm("decoder_norm");
  weights->output =
      Weights::Linear(model.output_weight(), model.output_bias(), model.output_inference());
  weights_ = std::move(weights);
}

CpuDecoder::~CpuDecoder() = default;

void CpuDecoder::start(CpuDecoderState& state,
                       const at::Tensor& memory,
                       const std::vector<int64_t>& lengths) const {
  TORCH_CHECK(memory.dim() == 3 && memory.size(2) == weights_->d_model,
              "CpuDecoder: memory must be [B, S, ", weights_->d_model, "], got ", memory.sizes());
  TORCH_CHECK(static_cast<int64_t>(lengths.size()) == memory.size(0),
              "CpuDecoder: ", lengths.size(), " lengths for ", memory.size(0), " sentences");
  const at::Tensor encoded = memory.to(at::kFloat).contiguous();
  CpuDecoderState::Buffers& buffers = *state.buffers_;
  buffers.rows = memory.size(0);
  buffers.position = 0;
  buffers.cache_rows = 0;
  buffers.capacity = 16;
  buffers.origin.assign(static_cast<std::size_t>(buffers.rows * buffers.capacity), 0);
  buffers.source_length = memory.size(1);
  buffers.sentence_lengths = lengths;
  buffers.row_sentence.resize(static_cast<std::size_t>(buffers.rows));
  for (int64_t r = 0; r < buffers.rows; ++r) buffers.row_sentence[static_cast<std::size_t>(r)] = r;
  buffers.layers.resize(weights_->layers.size());
  const int64_t positions = memory.size(0) * memory.size(1);
  for (std::size_t i = 0; i < weights_->layers.size(); ++i) {
    CpuDecoderState::Buffers::LayerCache& cache = buffers.layers[i];
    cache.keys.clear();  // keeps the memory of an earlier batch: no fresh pages to fault in
    cache.values.clear();
    cache.memory.resize(static_cast<std::size_t>(positions * 2 * weights_->d_model));
    weights_->layers[i].cross_kv.apply(encoded.data_ptr<float>(), positions, cache.memory.data(),
                                       buffers.int8);
  }
}

at::Tensor CpuDecoder::step(CpuDecoderState& state, const at::Tensor& last_ids) const {
  CpuDecoderState::Buffers& buffers = *state.buffers_;
  TORCH_CHECK(last_ids.numel() == buffers.rows, "CpuDecoder: ", last_ids.numel(), " ids for ",
              buffers.rows, " rows");
  const int64_t block = buffers.open_position(*weights_);
  buffers.embed(*weights_, last_ids);
  for (std::size_t layer = 0; layer < weights_->layers.size(); ++layer) {
    buffers.decode_layer(*weights_, layer, block);
  }
  ++buffers.position;
  return buffers.output_logits(*weights_);
}

}  // namespace nmt::model
