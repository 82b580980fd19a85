// ZIP archives as Python's zipfile and every unzip read them: what an Argos Translate package
// (.argosmodel) is. Each file deflated (or stored where deflating does not make it smaller), names
// in UTF-8, Unix permissions, and every timestamp 1980-01-01 00:00 so that the same files make the
// same archive. No ZIP64: an archive whose files or offsets pass 4 GiB is refused.
#pragma once

#include <string>
#include <vector>

namespace nmt::import {

struct ZipMember {
  std::string name;  // inside the archive, '/'-separated; a directory's ends with '/'
  std::string path;  // the file on disk whose bytes it holds; "" for a directory
};

// Writes members to archive atomically (AtomicFile): archive is either what it was or complete.
// Throws nmt::Error naming the member or archive for a file it cannot read, a member over the
// format's limits, or a failed write.
void write_zip(const std::string& archive, const std::vector<ZipMember>& members);

}  // namespace nmt::import
