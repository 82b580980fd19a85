// nmt's exception types. Every failure a user can cause (a bad config, a malformed corpus, a
// damaged checkpoint) is reported by throwing one of these with a message that names the thing,
// what was expected and what was found. main.cpp maps ConfigError to exit status 2, Interrupted to
// 130 and the others to 1.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace nmt {

// Base of all errors nmt reports to the user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Invalid configuration or command-line value; the message starts with the key path
// ("data.max_words: expected a positive integer, got \"x\""). Exit status 2.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// Unusable input data. With a line number the message reads "file:line: what".
class DataError : public Error {
 public:
  DataError(const std::string& file, std::size_t line, const std::string& what)
      : Error(file + ":" + std::to_string(line) + ": " + what), file_(file), line_(line) {}
  DataError(const std::string& file, const std::string& what)
      : Error(file + ": " + what), file_(file) {}

  const std::string& file() const { return file_; }
  // 1-based line of the problem, 0 when it concerns the whole file.
  std::size_t line() const { return line_; }

 private:
  std::string file_;
  std::size_t line_ = 0;
};

// The user stopped a command (Ctrl-C, SIGTERM) at a point with nothing to save; the message says
// how to go on. Exit status 130.
class Interrupted : public Error {
 public:
  using Error::Error;
};

// A checkpoint or run directory that cannot be written or read back.
class CheckpointError : public Error {
 public:
  using Error::Error;
};

}  // namespace nmt
