// A cgroup mount with groups and files, as Linux lays them out, for the readers of cgroup limits.
#pragma once

#include <filesystem>
#include <string>

#include "test_utils.h"

namespace nmt::testing {

class CgroupMount {
 public:
  // Writes text to MOUNT/group/file, making the group's directories.
  void write(const std::string& group, const std::string& file, const std::string& text) const {
    std::filesystem::create_directories(std::filesystem::path(mount_.path()) / group);
    mount_.write(group + "/" + file, text);
  }
  std::string path() const { return mount_.path(); }

 private:
  ScratchDir mount_;
};

}  // namespace nmt::testing
