// File helpers shared by every module that writes results: atomic writes (temporary file in the
// same directory, then rename, so a crash never leaves a half-written file in place of a good one),
// whole-file reads and line-by-line reads of plain or gzip-compressed files in bounded memory.
// Torch-free; throws nmt::Error with the path in the message; never logs.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
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

// Writes the bytes of parts, one after the other, to path atomically: a file written in parts
// that were each kept as they were finished. Throws nmt::Error naming the part that cannot be
// read or path when it cannot be written.
void join_files(const std::vector<std::string>& parts, const std::string& path);

// Deletes a directory tree (or a file); true when nothing is left. Used instead of
// std::filesystem::remove_all, whose copy exported by the PyTorch wheel's libtorch.so crashes
// when calls bind to it. Never throws.
bool remove_tree(const std::string& path);

// A fresh directory beside a destination directory, where a command writes everything it makes
// (an export, an imported run); removed when destroyed unless published. Nothing half-written ever
// stands at the destination.
class StagingDir {
 public:
  // Removes what a killed command left at path, then creates it.
  explicit StagingDir(std::string path);
  ~StagingDir();
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;

  const std::string& path() const { return path_; }

  // Puts the directory in destination's place: renamed when destination does not exist, else
  // exchanged with it in one step (renameat2 RENAME_EXCHANGE), so that destination is always
  // either what it held or the complete new directory; what it held is then removed with the
  // staging path. Throws nmt::Error naming both paths.
  void publish(const std::string& destination) const;

 private:
  std::string path_;
};

// Whole file as a string; throws nmt::Error when it cannot be opened.
std::string read_text_file(const std::string& path);

// A file read line by line, decompressed on the fly when it is gzip data (recognised by its first
// bytes, whatever its name; concatenated members read as one stream), in memory bounded by
// max_line_bytes plus two 64 KiB buffers however large the file or its decompressed content: a
// gzip bomb, or a file of one 4 GiB line, is read through without being held. Throws nmt::Error
// naming the file when it cannot be opened or read, or its compressed data is damaged or
// truncated ("x.gz: damaged or truncated gzip data").
class LineReader {
 public:
  LineReader(const std::string& path, std::size_t max_line_bytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Reads the next line: false at the end of the file. The line is line() without its "\n" (and
  // a "\r" before it, or at the very end); a final line end adds no line. A line longer than
  // max_line_bytes is not kept: is_too_long() is set, line() is empty, line_bytes() says how long
  // it was.
  bool next();
  // Passes over up to `lines` lines as next() would, without keeping them (a search for line
  // ends, no copy): what picking a few lines of a large file costs. Returns the lines passed,
  // fewer at the end of the file; line_number() counts them.
  std::size_t skip(std::size_t lines);
  const std::string& line() const { return line_; }
  bool is_too_long() const { return is_too_long_; }
  std::size_t line_bytes() const { return line_bytes_; }
  // 1-based number of the line just read.
  std::size_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

 private:
  struct Inflater;
  // Refills text_ with the next decompressed (or plain) bytes; false at the end of the file.
  bool fill();
  bool read_raw();

  std::string path_;
  std::size_t max_line_bytes_;
  int fd_ = -1;
  std::unique_ptr<Inflater> inflater_;  // null for plain files
  std::vector<char> raw_;               // bytes read from the file, not yet consumed
  std::size_t raw_begin_ = 0;
  std::size_t raw_end_ = 0;
  bool is_raw_at_end_ = false;
  std::vector<char> text_;  // decompressed (or plain) bytes not yet split into lines
  std::size_t text_begin_ = 0;
  std::size_t text_end_ = 0;
  std::string line_;
  bool is_too_long_ = false;
  std::size_t line_bytes_ = 0;
  std::size_t line_number_ = 0;
};

// Lines of a file without their "\n" (and "\r" before it).
std::vector<std::string> read_lines(const std::string& path);

}  // namespace nmt
