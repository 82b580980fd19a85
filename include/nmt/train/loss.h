// Label-smoothed cross-entropy ignoring <PAD>, with exactly the semantics of PyTorch's
// CrossEntropyLoss(label_smoothing=eps, ignore_index=0):
//
//   loss_i = (1 - eps) * -log p_i[y_i] + eps * mean_v(-log p_i[v])     for every y_i != <PAD>
//
// computed from one fp32 buffer of log-probabilities that the backward pass turns, in place, into
// softmax(z) - (1 - eps) onehot(y) - eps / V.
// As in Marian, the loss is a sum with a token count; mean = sum / tokens.
// Shapes: logits [N, V] float (any floating dtype, computed in fp32), targets [N] int64.
// Never logs.
#pragma once

#include <ATen/core/Tensor.h>

namespace nmt::train {

struct LossSum {
  at::Tensor sum;     // scalar, differentiable
  at::Tensor tokens;  // scalar int64: targets that are not <PAD>
};

LossSum label_smoothed_cross_entropy(const at::Tensor& logits,
                                     const at::Tensor& targets,
                                     double smoothing);

}  // namespace nmt::train
