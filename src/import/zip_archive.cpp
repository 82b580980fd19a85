#include "zip_archive.h"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "nmt/error.h"
#include "refusal.h"
#include "safetensors_format.h"

namespace nmt::import::detail {
namespace {

// The records' signatures and fixed sizes (PKWARE's APPNOTE.TXT, sections 4.3.7 to 4.3.16).
constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kEnd64Signature = 0x06064b50;
constexpr uint32_t kEnd64LocatorSignature = 0x07064b50;
constexpr uint64_t kLocalHeaderBytes = 30;
constexpr uint64_t kCentralHeaderBytes = 46;
constexpr uint64_t kEndBytes = 22;
constexpr uint64_t kEnd64Bytes = 56;
constexpr uint64_t kEnd64LocatorBytes = 20;
constexpr uint64_t kMaxCommentBytes = 0xFFFF;
constexpr uint16_t kZip64ExtraId = 0x0001;
// A 32-bit field holding this value (16-bit: 0xFFFF) has its value in the zip64 extra field.
constexpr uint32_t kInZip64 = 0xFFFFFFFF;
constexpr uint16_t kEncryptedFlag = 0x0001;

// Little-endian fields; the caller has checked that they lie inside bytes.
uint64_t load_le(std::string_view bytes, uint64_t offset, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[offset + static_cast<uint64_t>(i)]);
  }
  return value;
}
uint16_t u16_at(std::string_view bytes, uint64_t offset) {
  return static_cast<uint16_t>(load_le(bytes, offset, 2));
}
uint32_t u32_at(std::string_view bytes, uint64_t offset) {
  return static_cast<uint32_t>(load_le(bytes, offset, 4));
}
uint64_t u64_at(std::string_view bytes, uint64_t offset) { return load_le(bytes, offset, 8); }

// Whether length bytes from offset lie inside bytes, without overflowing.
bool fits(std::string_view bytes, uint64_t offset, uint64_t length) {
  return offset <= bytes.size() && length <= bytes.size() - offset;
}

struct CentralDirectory {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t entries = 0;
};

// The last End Of Central Directory record whose comment ends inside the file: the record is
// searched from the end because a comment (up to 64 KiB) may follow it.
uint64_t find_end_record(std::string_view archive, const std::string& source) {
  if (archive.size() < kEndBytes) {
    fail(source, "file is " + std::to_string(archive.size()) +
                     " bytes long, too short for a zip archive's end record");
  }
  const uint64_t last = archive.size() - kEndBytes;
  const uint64_t first = last - std::min(last, kMaxCommentBytes);
  for (uint64_t at = last + 1; at-- > first;) {
    if (u32_at(archive, at) == kEndSignature && u16_at(archive, at + 20) <= last - at) return at;
  }
  fail(source,
       "no zip end of central directory record (the file is truncated or not a zip archive)");
}

[[noreturn]] void fail_disks(const std::string& source) {
  fail(source, "the zip archive spans several disks, which torch.save never writes");
}

// The ZIP64 end record that the locator before the end record points to: torch.save writes one
// into every archive, and it holds the 64-bit sizes and offsets.
CentralDirectory read_end64_record(std::string_view archive,
                                   uint64_t locator,
                                   const std::string& source) {
  const uint64_t record = u64_at(archive, locator + 8);
  if (!fits(archive, record, kEnd64Bytes) || u32_at(archive, record) != kEnd64Signature) {
    fail(source, "the zip64 end of central directory record at byte " + std::to_string(record) +
                     " is missing or damaged");
  }
  if (u32_at(archive, locator + 4) != 0 || u32_at(archive, locator + 16) > 1 ||
      u32_at(archive, record + 16) != 0 || u32_at(archive, record + 20) != 0 ||
      u64_at(archive, record + 24) != u64_at(archive, record + 32)) {
    fail_disks(source);
  }
  return {u64_at(archive, record + 48), u64_at(archive, record + 40), u64_at(archive, record + 32)};
}

CentralDirectory read_central_directory(std::string_view archive, const std::string& source) {
  const uint64_t end = find_end_record(archive, source);
  CentralDirectory directory;
  if (end >= kEnd64LocatorBytes &&
      u32_at(archive, end - kEnd64LocatorBytes) == kEnd64LocatorSignature) {
    directory = read_end64_record(archive, end - kEnd64LocatorBytes, source);
  } else {
    if (u16_at(archive, end + 4) != 0 || u16_at(archive, end + 6) != 0 ||
        u16_at(archive, end + 8) != u16_at(archive, end + 10)) {
      fail_disks(source);
    }
    directory = {u32_at(archive, end + 16), u32_at(archive, end + 12), u16_at(archive, end + 10)};
  }
  if (!fits(archive, directory.offset, directory.size)) {
    fail(source, "the zip central directory (" + std::to_string(directory.size) +
                     " bytes at byte " + std::to_string(directory.offset) +
                     ") lies outside the file of " + std::to_string(archive.size()) + " bytes");
  }
  if (directory.entries > directory.size / kCentralHeaderBytes) {
    fail(source, "the zip central directory of " + std::to_string(directory.size) +
                     " bytes cannot hold the " + std::to_string(directory.entries) +
                     " entries its end record announces");
  }
  return directory;
}

// One central directory record's fields, before the zip64 extra field replaces the saturated ones.
struct CentralRecord {
  std::string_view name;
  std::string_view extra;
  uint16_t flags = 0;
  uint16_t method = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  uint64_t local_header = 0;
  uint32_t disk = 0;
};

// Replaces the fields that hold kInZip64 by the zip64 extra field's values, which come in this
// order and only for those fields (APPNOTE 4.5.3).
void apply_zip64_extra(CentralRecord& record, const std::string& source) {
  std::string_view extra = record.extra;
  const auto fail_extra = [&] {
    fail(source, "zip entry " + quote(record.name) + ": its zip64 extra field is damaged");
  };
  while (extra.size() >= 4) {
    const uint16_t id = u16_at(extra, 0);
    const uint16_t length = u16_at(extra, 2);
    if (length > extra.size() - 4) fail_extra();
    std::string_view field = extra.substr(4, length);
    extra.remove_prefix(4 + std::size_t{length});
    if (id != kZip64ExtraId) continue;
    const auto take = [&](uint64_t& value, int width) {
      if (field.size() < static_cast<std::size_t>(width)) fail_extra();
      value = load_le(field, 0, width);
      field.remove_prefix(static_cast<std::size_t>(width));
    };
    if (record.size == kInZip64) take(record.size, 8);
    if (record.compressed_size == kInZip64) take(record.compressed_size, 8);
    if (record.local_header == kInZip64) take(record.local_header, 8);
    if (record.disk == 0xFFFF) {
      uint64_t disk = 0;
      take(disk, 4);
      record.disk = static_cast<uint32_t>(disk);
    }
  }
}

// The entry of record: where its bytes begin, after the local header's own name and extra field.
ZipEntry locate(std::string_view archive, const CentralRecord& record, const std::string& source) {
  const std::string entry = "zip entry " + quote(record.name);
  if (record.disk != 0) fail_disks(source);
  if ((record.flags & kEncryptedFlag) != 0) fail(source, entry + " is encrypted");
  if (record.method == 0 && record.compressed_size != record.size) {
    fail(source, entry + " is stored, but its compressed size " +
                     std::to_string(record.compressed_size) + " differs from its size " +
                     std::to_string(record.size));
  }
  const uint64_t header = record.local_header;
  if (!fits(archive, header, kLocalHeaderBytes) ||
      u32_at(archive, header) != kLocalHeaderSignature ||
      !fits(archive, header + kLocalHeaderBytes, u16_at(archive, header + 26)) ||
      archive.substr(header + kLocalHeaderBytes, u16_at(archive, header + 26)) != record.name) {
    fail(source,
         entry + ": its local header at byte " + std::to_string(header) + " is missing or damaged");
  }
  const uint64_t data =
      header + kLocalHeaderBytes + u16_at(archive, header + 26) + u16_at(archive, header + 28);
  if (!fits(archive, data, record.compressed_size)) {
    fail(source, entry + ": its " + std::to_string(record.compressed_size) + " bytes at byte " +
                     std::to_string(data) + " run past the end of the file (" +
                     std::to_string(archive.size()) + " bytes)");
  }
  return {std::string(record.name), record.method, data, record.compressed_size};
}

}  // namespace

std::vector<ZipEntry> read_zip_entries(std::string_view archive, const std::string& source) {
  const CentralDirectory directory = read_central_directory(archive, source);
  const std::string_view records = archive.substr(directory.offset, directory.size);
  std::vector<ZipEntry> entries;
  entries.reserve(directory.entries);
  std::unordered_set<std::string_view> names;
  uint64_t at = 0;
  for (uint64_t i = 0; i < directory.entries; ++i) {
    const auto damaged = [&] {
      fail(source, "zip central directory record " + std::to_string(i) + " (at byte " +
                       std::to_string(directory.offset + at) + ") is damaged");
    };
    if (!fits(records, at, kCentralHeaderBytes) || u32_at(records, at) != kCentralHeaderSignature) {
      damaged();
    }
    const uint64_t name_bytes = u16_at(records, at + 28);
    const uint64_t extra_bytes = u16_at(records, at + 30);
    const uint64_t comment_bytes = u16_at(records, at + 32);
    if (!fits(records, at + kCentralHeaderBytes, name_bytes + extra_bytes + comment_bytes))
      damaged();
    CentralRecord record;
    record.flags = u16_at(records, at + 8);
    record.method = u16_at(records, at + 10);
    record.compressed_size = u32_at(records, at + 20);
    record.size = u32_at(records, at + 24);
    record.disk = u16_at(records, at + 34);
    record.local_header = u32_at(records, at + 42);
    record.name = records.substr(at + kCentralHeaderBytes, name_bytes);
    record.extra = records.substr(at + kCentralHeaderBytes + name_bytes, extra_bytes);
    apply_zip64_extra(record, source);
    if (!names.insert(record.name).second) {
      fail(source, "the zip archive holds two entries named " + quote(record.name));
    }
    entries.push_back(locate(archive, record, source));
    at += kCentralHeaderBytes + name_bytes + extra_bytes + comment_bytes;
  }
  return entries;
}

}  // namespace nmt::import::detail
