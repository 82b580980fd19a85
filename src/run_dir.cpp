#include "nmt/run_dir.h"

namespace nmt {

const char* split_name(Split split) {
  switch (split) {
    case Split::kTrain:
      return "train";
    case Split::kValid:
      return "valid";
    case Split::kTest:
      return "test";
  }
  return "?";
}

}  // namespace nmt
