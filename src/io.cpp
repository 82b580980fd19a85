#include "nmt/io.h"

#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "nmt/error.h"

namespace nmt {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), tmp_path_(path_ + ".tmp") {
  fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("cannot write " + tmp_path_ + ": " + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) discard();
}

void AtomicFile::append(const void* data, std::size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0 && first_error_ == 0) {
    const ssize_t written = ::write(fd_, bytes, size);
    if (written < 0) {
      if (errno != EINTR) first_error_ = errno;
      continue;
    }
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
}

void AtomicFile::commit() {
  if (first_error_ == 0 && ::fsync(fd_) != 0 && errno != EINVAL) first_error_ = errno;
  if (first_error_ != 0) {
    const int error = first_error_;
    discard();
    throw Error("cannot write " + path_ + ": " + std::strerror(error));
  }
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) {
    const int error = errno;
    ::unlink(tmp_path_.c_str());
    throw Error("cannot write " + path_ + ": " + std::strerror(error));
  }
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp_path_.c_str());
    throw Error("cannot move " + tmp_path_ + " to " + path_ + ": " + std::strerror(error));
  }
}

void AtomicFile::discard() {
  ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_path_.c_str());
}

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  std::ostringstream buffer;
  write(buffer);
  const std::string bytes = buffer.str();
  AtomicFile file(path);
  file.append(bytes.data(), bytes.size());
  file.commit();
}

void write_text_atomically(const std::string& path, const std::string& text) {
  write_file_atomically(path, [&text](std::ostream& out) { out << text; });
}

bool remove_tree(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0) return true;
  // Depth first (FTW_DEPTH), without following symbolic links (FTW_PHYS).
  const auto remove_entry = [](const char* entry, const struct stat*, int, struct FTW*) {
    return ::remove(entry);
  };
  return ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path + ": " + std::strerror(errno));
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace nmt
