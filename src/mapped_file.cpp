#include "nmt/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "nmt/error.h"

namespace nmt {

MappedFile::MappedFile(const std::string& path)
    : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  if (fd_ < 0) throw Error("cannot open " + path + ": " + std::strerror(errno));
  try {
    struct stat status {};
    if (::fstat(fd_, &status) != 0) {
      throw Error("cannot read " + path + ": " + std::strerror(errno));
    }
    if (!S_ISREG(status.st_mode)) throw Error("cannot read " + path + ": not a regular file");
    size_ = static_cast<std::size_t>(status.st_size);
    if (size_ == 0) return;
    address_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (address_ == MAP_FAILED) {
      address_ = nullptr;
      throw Error("cannot map " + path + ": " + std::strerror(errno));
    }
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

void MappedFile::read(std::size_t offset, std::size_t bytes, void* out) const {
  auto* cursor = static_cast<char*>(out);
  while (bytes > 0) {
    const ssize_t got = ::pread(fd_, cursor, bytes, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Error("cannot read " + path_ + ": " + std::strerror(errno));
    if (got == 0) {
      throw Error("cannot read " + path_ + ": it ends before byte " +
                  std::to_string(offset + bytes) + "; it was changed after it was opened");
    }
    cursor += got;
    offset += static_cast<std::size_t>(got);
    bytes -= static_cast<std::size_t>(got);
  }
}

void MappedFile::release() const {
  // MADV_DONTNEED on a private mapping discards private copies of pages; this one is read-only,
  // so it has none, and only the page table entries go.
  if (address_ != nullptr) ::madvise(address_, size_, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (address_ != nullptr) ::munmap(address_, size_);
  ::close(fd_);
}

}  // namespace nmt
