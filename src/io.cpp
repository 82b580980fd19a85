#include "nmt/io.h"

#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>
#include <zlib.h>

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

int write_fully(int fd, const void* data, std::size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(fd, bytes, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
  return 0;
}

void AtomicFile::append(const void* data, std::size_t size) {
  if (first_error_ == 0) first_error_ = write_fully(fd_, data, size);
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

std::string read_maybe_compressed(const std::string& path) {
  std::string bytes = read_text_file(path);
  const bool is_gzip = bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
                       static_cast<unsigned char>(bytes[1]) == 0x8b;
  if (!is_gzip) return bytes;
  z_stream stream{};
  // 15 + 32: a window of 2^15 and automatic gzip/zlib header detection.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) throw Error(path + ": cannot start decompressing");
  stream.next_in = reinterpret_cast<Bytef*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  std::string text;
  char chunk[1 << 16];
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = sizeof chunk;
    status = inflate(&stream, Z_NO_FLUSH);
    text.append(chunk, sizeof chunk - stream.avail_out);
    if (status == Z_STREAM_END && stream.avail_in > 0) {
      status = inflateReset(&stream);  // concatenated gzip members, as `cat a.gz b.gz` makes
      if (status != Z_OK) break;
      continue;
    }
    if (status == Z_BUF_ERROR && stream.avail_in == 0) break;  // input ended mid-stream
    if (status != Z_OK && status != Z_STREAM_END) break;
  }
  const std::string reason = stream.msg ? stream.msg : "";
  inflateEnd(&stream);
  if (status != Z_STREAM_END) {
    throw Error(path + ": damaged or truncated gzip data" +
                (reason.empty() ? std::string() : " (" + reason + ")"));
  }
  return text;
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
