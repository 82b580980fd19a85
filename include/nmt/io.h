// File helpers shared by every module that writes results: atomic writes (temporary file in the
// same directory, then rename, so a crash never leaves a half-written file in place of a good one)
// and whole-file reads. Torch-free; throws nmt::Error with the path in the message; never logs.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace nmt {

// Writes every byte to the file descriptor, continuing after interrupted and partial writes;
// returns 0, or the errno of the write that failed.
int write_fully(int fd, const void* data, std::size_t size);

// A file written as "<path>.tmp" and renamed over path by commit() once every byte reached the
// disk (fsync), so path always holds either its previous content or the complete new one. A
// failed write (disk full, I/O error) is remembered and reported by commit(), which then removes
// the temporary file and throws nmt::Error naming path and the system's reason, e.g. "cannot
// write runs/x/checkpoint.pt: No space left on device". Destroyed without commit(), it removes
// the temporary file.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends bytes; after a failure further bytes are dropped and commit() throws.
  void append(const void* data, std::size_t size);
  void commit();

  const std::string& path() const { return path_; }

 private:
  void discard();

  std::string path_;
  std::string tmp_path_;
  int fd_ = -1;
  int first_error_ = 0;  // errno of the first failed write, 0 while all succeeded
};

// Calls write(stream), then stores what it wrote to path through an AtomicFile.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

// Writes text to path atomically.
void write_text_atomically(const std::string& path, const std::string& text);

// Deletes a directory tree (or a file); true when nothing is left. Used instead of
// std::filesystem::remove_all, whose copy exported by the PyTorch wheel's libtorch.so crashes
// when calls bind to it. Never throws.
bool remove_tree(const std::string& path);

// Whole file as a string; throws nmt::Error when it cannot be opened.
std::string read_text_file(const std::string& path);

// Whole file as a string, decompressed when it is gzip-compressed (recognised by its first
// bytes, whatever its name); throws nmt::Error naming the file when it cannot be opened or its
// compressed data is damaged or truncated.
std::string read_maybe_compressed(const std::string& path);

// Lines of a file without their "\n" (and "\r" before it).
std::vector<std::string> read_lines(const std::string& path);

}  // namespace nmt
