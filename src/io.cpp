#include "nmt/io.h"

#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
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

void join_files(const std::vector<std::string>& parts, const std::string& path) {
  AtomicFile joined(path);
  std::vector<char> buffer(std::size_t{1} << 20);
  for (const std::string& part : parts) {
    const int fd = ::open(part.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("cannot read " + part + ": " + std::strerror(errno));
    while (true) {
      const ssize_t got = ::read(fd, buffer.data(), buffer.size());
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        const int error = errno;
        ::close(fd);
        throw Error("cannot read " + part + ": " + std::strerror(error));
      }
      if (got == 0) break;
      joined.append(buffer.data(), static_cast<std::size_t>(got));
    }
    ::close(fd);
  }
  joined.commit();
}

bool remove_tree(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0) return true;
  // Depth first (FTW_DEPTH), without following symbolic links (FTW_PHYS).
  const auto remove_entry = [](const char* entry, const struct stat*, int, struct FTW*) {
    return ::remove(entry);
  };
  return ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0;
}

StagingDir::StagingDir(std::string path) : path_(std::move(path)) {
  remove_tree(path_);
  std::filesystem::create_directories(path_);
}

StagingDir::~StagingDir() { remove_tree(path_); }

void StagingDir::publish(const std::string& destination) const {
  if (::access(destination.c_str(), F_OK) != 0) {
    if (std::rename(path_.c_str(), destination.c_str()) != 0) {
      throw Error("cannot rename " + path_ + " to " + destination + ": " + std::strerror(errno));
    }
    return;
  }
  if (::renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, destination.c_str(), RENAME_EXCHANGE) != 0) {
    throw Error("cannot replace " + destination + " with " + path_ + ": " + std::strerror(errno));
  }
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 16;

bool starts_as_gzip(const std::vector<char>& bytes, std::size_t size) {
  return size >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

}  // namespace

// zlib's decompression state; input goes in at most kChunkBytes at a time, so that zlib's 32-bit
// lengths never limit the size of a file.
struct LineReader::Inflater {
  z_stream stream{};
  bool is_at_member_end = false;  // the last call ended a gzip member

  explicit Inflater(const std::string& path) {
    // 15 + 32: a window of 2^15 and automatic gzip/zlib header detection.
    if (inflateInit2(&stream, 15 + 32) != Z_OK) throw Error(path + ": cannot start decompressing");
  }
  ~Inflater() { inflateEnd(&stream); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
};

LineReader::LineReader(const std::string& path, std::size_t max_line_bytes)
    : path_(path), max_line_bytes_(max_line_bytes), raw_(kChunkBytes), text_(kChunkBytes) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error("cannot open " + path + ": " + std::strerror(errno));
  try {
    while (raw_end_ < 2 && read_raw()) {
    }
    if (starts_as_gzip(raw_, raw_end_)) inflater_ = std::make_unique<Inflater>(path_);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

LineReader::~LineReader() { ::close(fd_); }

bool LineReader::read_raw() {
  if (raw_begin_ == raw_end_) raw_begin_ = raw_end_ = 0;
  while (true) {
    const ssize_t count = ::read(fd_, raw_.data() + raw_end_, raw_.size() - raw_end_);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) throw Error("cannot read " + path_ + ": " + std::strerror(errno));
    if (count == 0) is_raw_at_end_ = true;
    raw_end_ += static_cast<std::size_t>(count);
    return count > 0;
  }
}

bool LineReader::fill() {
  text_begin_ = text_end_ = 0;
  if (!inflater_) {
    if (raw_begin_ == raw_end_ && (is_raw_at_end_ || !read_raw())) return false;
    std::swap(text_, raw_);  // plain bytes need no copy: the raw buffer becomes the text
    text_begin_ = raw_begin_;
    text_end_ = raw_end_;
    raw_begin_ = raw_end_ = 0;
    return true;
  }
  z_stream& stream = inflater_->stream;
  const auto damaged = [&] {
    const std::string reason = stream.msg ? stream.msg : "";
    return Error(path_ + ": damaged or truncated gzip data" +
                 (reason.empty() ? std::string() : " (" + reason + ")"));
  };
  stream.next_out = reinterpret_cast<Bytef*>(text_.data());
  stream.avail_out = static_cast<uInt>(text_.size());
  while (stream.avail_out == text_.size()) {
    if (raw_begin_ == raw_end_ && !is_raw_at_end_) read_raw();
    const bool has_input = raw_begin_ < raw_end_;
    if (inflater_->is_at_member_end) {
      if (!has_input) return false;  // the last member ended with the file
      // Concatenated gzip members, as `cat a.gz b.gz` makes.
      if (inflateReset(&stream) != Z_OK) throw damaged();
      inflater_->is_at_member_end = false;
    }
    if (!has_input) throw damaged();  // the file ended mid-stream
    stream.next_in = reinterpret_cast<Bytef*>(raw_.data() + raw_begin_);
    stream.avail_in = static_cast<uInt>(raw_end_ - raw_begin_);
    const int status = inflate(&stream, Z_NO_FLUSH);
    raw_begin_ = raw_end_ - stream.avail_in;
    if (status == Z_STREAM_END) {
      inflater_->is_at_member_end = true;
    } else if (status == Z_MEM_ERROR) {
      throw std::bad_alloc();
    } else if (status != Z_OK) {
      throw damaged();
    }
  }
  text_end_ = text_.size() - stream.avail_out;
  return true;
}

bool LineReader::next() {
  line_.clear();
  is_too_long_ = false;
  line_bytes_ = 0;
  bool has_bytes = false;
  while (true) {
    if (text_begin_ == text_end_ && !fill()) {
      if (!has_bytes) return false;
      break;  // an unterminated last line
    }
    has_bytes = true;
    const char* begin = text_.data() + text_begin_;
    const std::size_t available = text_end_ - text_begin_;
    const auto* newline = static_cast<const char*>(std::memchr(begin, '\n', available));
    const std::size_t length = newline ? static_cast<std::size_t>(newline - begin) : available;
    line_bytes_ += length;
    if (line_bytes_ > max_line_bytes_) {
      is_too_long_ = true;
      line_.clear();
    } else {
      line_.append(begin, length);
    }
    text_begin_ += length + (newline ? 1 : 0);
    if (newline) break;
  }
  ++line_number_;
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  return true;
}

std::size_t LineReader::skip(std::size_t lines) {
  std::size_t passed = 0;
  bool is_in_line = false;  // bytes of the line being passed were seen
  while (passed < lines) {
    if (text_begin_ == text_end_ && !fill()) {
      if (is_in_line) ++passed;  // an unterminated last line
      break;
    }
    const char* begin = text_.data() + text_begin_;
    const auto* newline =
        static_cast<const char*>(std::memchr(begin, '\n', text_end_ - text_begin_));
    if (!newline) {
      text_begin_ = text_end_;
      is_in_line = true;
      continue;
    }
    text_begin_ += static_cast<std::size_t>(newline - begin) + 1;
    is_in_line = false;
    ++passed;
  }
  line_number_ += passed;
  return passed;
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
