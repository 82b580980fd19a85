// The table of contents of a ZIP archive as torch.save (torch >= 1.6) writes it: every entry
// stored (uncompressed), the central directory found through the End Of Central Directory record,
// ZIP64 records and extra fields read so that checkpoints over 4 GB open. Only what the
// checkpoint reader needs: where each entry's bytes lie in the file. Private to src/import/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::import::detail {

struct ZipEntry {
  std::string name;
  uint16_t method = 0;       // 0: stored; anything else is compressed (torch never compresses)
  uint64_t data_offset = 0;  // of the entry's first byte in the archive
  uint64_t size = 0;         // bytes (compressed and uncompressed sizes agree for a stored entry)
};

// The entries of archive, in the central directory's order. Each lies inside the archive: its
// offset is read from its local header (whose extra field, padding that aligns torch's tensor
// data, differs from the central directory's). Throws ConfigError "<source>: ..." for anything
// that is not such an archive: a missing or damaged record, an offset or size outside the file,
// several disks, an encrypted entry, a name given twice.
std::vector<ZipEntry> read_zip_entries(std::string_view archive, const std::string& source);

}  // namespace nmt::import::detail
