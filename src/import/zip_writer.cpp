#include "nmt/import/zip_writer.h"

#include <zlib.h>

#include <cstdint>
#include <limits>

#include "nmt/error.h"
#include "nmt/io.h"

namespace nmt::import {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr uint16_t kVersion = 20;         // 2.0: deflate and directories
constexpr uint16_t kMadeOnUnix = 3 << 8;  // external attributes hold a Unix mode
constexpr uint16_t kUtf8Names = 1 << 11;  // general purpose flag bit 11
constexpr uint16_t kStored = 0;
constexpr uint16_t kDeflated = 8;
constexpr uint16_t kDosDate1980 = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, the format's epoch
constexpr uint32_t kFileMode = 0100644;
constexpr uint32_t kDirectoryMode = 040755;
constexpr uint32_t kMsDosDirectory = 0x10;

class LittleEndian {
 public:
  LittleEndian& u16(uint16_t value) {
    bytes_ += static_cast<char>(value & 0xff);
    bytes_ += static_cast<char>(value >> 8);
    return *this;
  }
  LittleEndian& u32(uint32_t value) {
    return u16(static_cast<uint16_t>(value & 0xffff)).u16(static_cast<uint16_t>(value >> 16));
  }
  LittleEndian& text(const std::string& value) {
    bytes_ += value;
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

struct Written {
  const ZipMember* member = nullptr;
  uint16_t method = kStored;
  uint32_t crc = 0;
  uint32_t stored_size = 0;  // bytes in the archive
  uint32_t size = 0;         // bytes once extracted
  uint32_t offset = 0;       // of its local header
};

uint32_t checked_u32(uint64_t value, const std::string& what) {
  if (value > std::numeric_limits<uint32_t>::max()) {
    throw Error(what + " passes 4 GiB, which a ZIP archive without ZIP64 cannot hold");
  }
  return static_cast<uint32_t>(value);
}

// Raw deflate (no zlib header), as ZIP's method 8 wants it.
std::string deflated(const std::string& data, const std::string& name) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    throw Error("cannot compress " + name + ": zlib's deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(data.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) throw Error("cannot compress " + name + ": zlib's deflate failed");
  return out;
}

LittleEndian local_header(const Written& entry) {
  LittleEndian header;
  header.u32(kLocalHeader).u16(kVersion).u16(kUtf8Names).u16(entry.method).u16(0).u16(kDosDate1980);
  header.u32(entry.crc).u32(entry.stored_size).u32(entry.size);
  header.u16(static_cast<uint16_t>(entry.member->name.size())).u16(0).text(entry.member->name);
  return header;
}

LittleEndian central_header(const Written& entry) {
  const bool is_directory = entry.member->path.empty();
  const uint32_t attributes =
      is_directory ? (kDirectoryMode << 16) | kMsDosDirectory : kFileMode << 16;
  LittleEndian header;
  header.u32(kCentralHeader).u16(kMadeOnUnix | kVersion).u16(kVersion).u16(kUtf8Names);
  header.u16(entry.method).u16(0).u16(kDosDate1980);
  header.u32(entry.crc).u32(entry.stored_size).u32(entry.size);
  header.u16(static_cast<uint16_t>(entry.member->name.size())).u16(0).u16(0).u16(0).u16(0);
  header.u32(attributes).u32(entry.offset).text(entry.member->name);
  return header;
}

void check_name(const ZipMember& member) {
  const bool is_directory = member.path.empty();
  if (member.name.empty() || member.name.size() > std::numeric_limits<uint16_t>::max() ||
      member.name.front() == '/' || (member.name.back() == '/') != is_directory) {
    throw Error("cannot add \"" + member.name +
                "\" to a ZIP archive: a member's name is relative, " +
                "at most 65535 bytes, and ends with '/' exactly when it is a directory");
  }
}

}  // namespace

void write_zip(const std::string& archive, const std::vector<ZipMember>& members) {
  if (members.size() >= std::numeric_limits<uint16_t>::max()) {
    throw Error("cannot write " + archive + ": " + std::to_string(members.size()) +
                " members, more than a ZIP archive without ZIP64 holds");
  }
  AtomicFile file(archive);
  std::vector<Written> written;
  uint64_t offset = 0;
  for (const ZipMember& member : members) {
    check_name(member);
    Written entry;
    entry.member = &member;
    entry.offset = checked_u32(offset, archive);
    std::string stored;
    if (!member.path.empty()) {
      const std::string data = read_text_file(member.path);
      entry.size = checked_u32(data.size(), member.path);
      entry.crc = static_cast<uint32_t>(
          crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
      stored = deflated(data, member.path);
      entry.method = kDeflated;
      if (stored.size() >= data.size()) {
        stored = data;
        entry.method = kStored;
      }
      entry.stored_size = static_cast<uint32_t>(stored.size());
    }
    const std::string header = local_header(entry).bytes();
    file.append(header.data(), header.size());
    file.append(stored.data(), stored.size());
    offset += header.size() + stored.size();
    written.push_back(entry);
  }
  const uint32_t directory_offset = checked_u32(offset, archive);
  LittleEndian directory;
  for (const Written& entry : written) directory.text(central_header(entry).bytes());
  const uint32_t directory_size = checked_u32(directory.bytes().size(), archive);
  const auto count = static_cast<uint16_t>(written.size());
  directory.u32(kEndOfCentralDirectory).u16(0).u16(0).u16(count).u16(count);
  directory.u32(directory_size).u32(directory_offset).u16(0);
  file.append(directory.bytes().data(), directory.bytes().size());
  file.commit();
}

}  // namespace nmt::import
