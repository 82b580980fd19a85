// Whether the modules built on this thread draw their parameters from the random generator, as a
// model about to be trained needs, or leave them uninitialised, as one about to be loaded can: a
// checkpoint overwrites every parameter or fails (train::load_checkpoint), and drawing the
// recommended model's 9.4M values took about 50 ms of a translation's 0.7 s start (record
// startup-2026-12-03-zen3).
#pragma once

namespace nmt::model {

// While one lives, modules built on this thread leave their parameters uninitialised (nmt's
// Linear and the Transformer's embeddings; the ones and zeros of LayerNorm and of a tied output's
// bias cost nothing and stay).
class ParametersToBeLoaded {
 public:
  ParametersToBeLoaded() : previous_(flag()) { flag() = true; }
  ~ParametersToBeLoaded() { flag() = previous_; }
  ParametersToBeLoaded(const ParametersToBeLoaded&) = delete;
  ParametersToBeLoaded& operator=(const ParametersToBeLoaded&) = delete;

  // True while one lives on this thread.
  static bool active() { return flag(); }

 private:
  static bool& flag() {
    static thread_local bool to_be_loaded = false;
    return to_be_loaded;
  }
  bool previous_;
};

}  // namespace nmt::model
