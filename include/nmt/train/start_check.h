// Ranks of a data-parallel job must start training from the same state, or their collectives stop
// matching (a hang until the timeout, or token sums of different batches). Each rank resumes its
// own reading of checkpoint.pt and of the prepared splits (rank 0 keeps those of its data phase in
// memory); a run directory that is not one shared file system, or files replaced between two
// reads, make them disagree. This compares, over all ranks, the progress (epoch, batch, step), the
// number of training pairs, a fingerprint of the encoded training data and of the epoch's batch
// plan, and the model's parameters.
//
// Throws nmt::Error on every rank naming each thing that differs, its range over the ranks and
// this rank's value; never logs.
#pragma once

#include "nmt/train/communicator.h"
#include "nmt/train/trainer.h"

namespace nmt::train {

void check_ranks_start_alike(Communicator& communicator, Trainer& trainer);

}  // namespace nmt::train
