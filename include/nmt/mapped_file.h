// A whole file mapped read-only into memory, for the Torch-free readers of large files: model files
// (import/safetensors.cpp, import/pytorch_checkpoint.cpp), read in place rather than copied, and
// the token files of prepared corpora (data/encoded_corpus.h), paged in as batches need them.
#pragma once

#include <cstddef>
#include <string>

namespace nmt {

// The file's pages, unmapped (and the file closed) on destruction. An empty file has no mapping
// (mmap refuses length 0): data() is null and size() 0. The file must not be truncated while it is
// mapped: reading a page that is gone raises SIGBUS, as with any mapping.
class MappedFile {
 public:
  // Throws nmt::Error "cannot open|read|map <path>: <reason>" when path cannot be opened, is not
  // a regular file or cannot be mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return static_cast<const char*>(address_); }
  std::size_t size() const { return size_; }

  // Drops the pages read so far from the process's resident memory. Never written, they read the
  // same again (from the page cache, or the file): a file larger than the memory a process may
  // hold is read through with its resident set bounded by what is read between two calls.
  void release() const;

  // Copies `bytes` bytes at `offset` into out through the page cache (pread), not through the
  // mapping: nothing of the file joins the process's resident memory, however the kernel maps
  // pages around a fault. Throws nmt::Error "cannot read <path>: <reason>", or naming the byte
  // the file ends before when it has shrunk since it was opened.
  void read(std::size_t offset, std::size_t bytes, void* out) const;

 private:
  std::string path_;
  int fd_ = -1;
  void* address_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace nmt
