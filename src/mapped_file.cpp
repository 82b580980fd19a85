#include "nmt/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "nmt/error.h"

namespace nmt {

MappedFile::MappedFile(const std::string& path) {
  struct Descriptor {
    int fd;
    ~Descriptor() {
      if (fd >= 0) ::close(fd);
    }
  };
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw Error("cannot open " + path + ": " + std::strerror(errno));
  struct stat status {};
  if (::fstat(file.fd, &status) != 0) {
    throw Error("cannot read " + path + ": " + std::strerror(errno));
  }
  if (!S_ISREG(status.st_mode)) throw Error("cannot read " + path + ": not a regular file");
  size_ = static_cast<std::size_t>(status.st_size);
  if (size_ == 0) return;
  address_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (address_ == MAP_FAILED) {
    address_ = nullptr;
    throw Error("cannot map " + path + ": " + std::strerror(errno));
  }
}

void MappedFile::release() const {
  // MADV_DONTNEED on a private mapping discards private copies of pages; this one is read-only,
  // so it has none, and only the page table entries go.
  if (address_ != nullptr) ::madvise(address_, size_, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (address_ != nullptr) ::munmap(address_, size_);
}

}  // namespace nmt
