// Appending to a file on another thread while the caller fills the next buffer: the data phase
// writes gigabytes of splits and token ids, and on a machine of two cores the write calls (copying
// into the page cache) took a tenth of its time on the thread that cleans and tokenizes between
// chunks. Torch-free.
#pragma once

#include <future>
#include <utility>

#include "nmt/io.h"

namespace nmt {

// Appends buffers to an AtomicFile on a background thread, one write in flight at a time.
// AtomicFile::append never throws (a failed write shows at commit), so nothing is lost in flight;
// call finish() before the file's commit(). Buffer: std::string or std::vector<unsigned char>.
template <class Buffer>
class WriteBehind {
 public:
  explicit WriteBehind(AtomicFile& file) : file_(file) {}
  ~WriteBehind() {
    if (in_flight_.valid()) in_flight_.wait();
  }
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  // Takes buffer's bytes to append after those handed over before; buffer comes back empty, with
  // the capacity of an earlier one. Waits for the write before it to end first.
  void append(Buffer& buffer) {
    finish();
    writing_.swap(buffer);
    buffer.clear();
    in_flight_ = std::async(std::launch::async,
                            [this] { file_.append(writing_.data(), writing_.size()); });
  }

  // Returns when everything handed over is appended.
  void finish() {
    if (in_flight_.valid()) in_flight_.get();
  }

 private:
  AtomicFile& file_;
  Buffer writing_;
  std::future<void> in_flight_;
};

}  // namespace nmt
