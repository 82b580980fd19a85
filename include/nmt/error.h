// nmt's exception types. Every failure a user can cause (a bad config, a malformed corpus, a
// damaged checkpoint) is reported by throwing one of these with a message that names the thing,
// what was expected and what was found. main.cpp maps ConfigError to exit status 2, Interrupted to
// 130 and the others to 1.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace nmt {

// Base of all errors nmt reports to the user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Invalid configuration or command-line value. Exit status 2. An error about one key keeps the
// key path and where the value came from (a configuration file, "command line") as data beside
// the detail, and reads "origin: key: detail"
// ("run.json: data.max_words: expected a positive integer, got \"x\"").
class ConfigError : public Error {
 public:
  // An error about no single key: the message as given.
  explicit ConfigError(const std::string& message) : Error(message), detail_(message) {}
  // An error about the key path `key`.
  ConfigError(std::string key, std::string detail)
      : ConfigError({}, std::move(key), std::move(detail)) {}

  // The same error seen from the section holding its key ("epochs" in "train": "train.epochs").
  ConfigError in_section(const std::string& section) const {
    return ConfigError(origin_, key_.empty() ? section : section + "." + key_, detail_);
  }
  // The same error attributed to where its value came from.
  ConfigError from(std::string origin) const {
    return ConfigError(std::move(origin), key_, detail_);
  }

  // Empty when the error concerns no single key, or no origin is known.
  const std::string& key() const { return key_; }
  const std::string& origin() const { return origin_; }
  const std::string& detail() const { return detail_; }

 private:
  ConfigError(std::string origin, std::string key, std::string detail)
      : Error(prefix(origin) + prefix(key) + detail),
        origin_(std::move(origin)),
        key_(std::move(key)),
        detail_(std::move(detail)) {}
  static std::string prefix(const std::string& part) { return part.empty() ? part : part + ": "; }

  std::string origin_;
  std::string key_;
  std::string detail_;
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
