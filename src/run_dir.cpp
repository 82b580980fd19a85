#include "nmt/run_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "nmt/error.h"

namespace nmt {

const char* split_name(Split split) {
  switch (split) {
    case Split::kTrain:
      return "train";
    case Split::kValid:
      return "valid";
    case Split::kTest:
      return "test";
  }
  return "?";
}

RunLock::RunLock(const RunDir& run) {
  std::error_code ignored;
  std::filesystem::create_directories(run.path(), ignored);
  fd_ = ::open(run.lock().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("cannot open " + run.lock() + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    char holder[32] = {0};
    const ssize_t read = ::pread(fd_, holder, sizeof holder - 1, 0);
    ::close(fd_);
    fd_ = -1;
    if (error != EWOULDBLOCK)
      throw Error("cannot lock " + run.lock() + ": " + std::strerror(error));
    throw Error(run.path() + " is being trained by another nmt process" +
                (read > 0 ? " (pid " + std::string(holder, static_cast<std::size_t>(read)) + ")"
                          : std::string()) +
                "; wait for it to finish or stop it, or choose another --out");
  }
  // The holder's pid, for the message above; the lock itself is the flock, not this content.
  const std::string pid = std::to_string(::getpid());
  [[maybe_unused]] const bool is_pid_written =  // without it only the message loses the pid
      ::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) > 0;
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace nmt
