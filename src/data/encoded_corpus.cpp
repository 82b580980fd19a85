#include "nmt/data/encoded_corpus.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>

#include "nmt/error.h"
#include "nmt/mapped_file.h"

namespace nmt::data {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "token files are little-endian and read in place");

constexpr char kMagic[8] = {'n', 'm', 't', '-', 'i', 'd', 's', '\n'};
constexpr uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 24;
constexpr std::size_t kTrailerBytes = 16;
constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

std::size_t padded_to_8(std::size_t bytes) { return (bytes + 7) / 8 * 8; }

template <typename T>
T read_at(const char* data, std::size_t offset) {
  T value;
  std::memcpy(&value, data + offset, sizeof(T));
  return value;
}

uint32_t vocabulary_size(std::size_t size, const std::string& path) {
  if (size == 0 || size > std::numeric_limits<uint32_t>::max()) {
    throw Error("cannot write " + path + ": a vocabulary of " + std::to_string(size) +
                " entries does not fit a token file");
  }
  return static_cast<uint32_t>(size);
}

// The fixed fields of a mapped token file, checked.
struct Layout {
  int id_bytes = 0;
  uint32_t source_vocabulary = 0;
  uint32_t target_vocabulary = 0;
  uint64_t pairs = 0;
  uint64_t ids = 0;
  std::size_t offsets_at = 0;  // byte offset of the offsets
};

Layout read_layout(const std::string& path, const char* data, std::size_t size) {
  if (size < kHeaderBytes + kTrailerBytes) {
    throw DataError(path, fmt::format("truncated: {} bytes, fewer than the {} of a token file's "
                                      "header and counts",
                                      size, kHeaderBytes + kTrailerBytes));
  }
  if (std::memcmp(data, kMagic, sizeof kMagic) != 0) {
    throw DataError(path, "not a token file of nmt (bytes 0-7 are not \"nmt-ids\\n\")");
  }
  if (const auto version = read_at<uint32_t>(data, 8); version != kVersion) {
    throw DataError(path, fmt::format("format version {} at byte 8; this nmt reads version {}",
                                      version, kVersion));
  }
  Layout layout;
  const auto id_bytes = read_at<uint32_t>(data, 12);
  if (id_bytes != 2 && id_bytes != 4) {
    throw DataError(path, fmt::format("{} bytes per id at byte 12; token files have 2 or 4",
                                      id_bytes));
  }
  layout.id_bytes = static_cast<int>(id_bytes);
  layout.source_vocabulary = read_at<uint32_t>(data, 16);
  layout.target_vocabulary = read_at<uint32_t>(data, 20);
  const std::size_t counts_at = size - kTrailerBytes;
  layout.pairs = read_at<uint64_t>(data, counts_at);
  layout.ids = read_at<uint64_t>(data, counts_at + 8);
  // Counts beyond what the size could hold would overflow the arithmetic below.
  const bool plausible = layout.pairs < size / 16 && layout.ids <= size / id_bytes;
  const std::size_t id_region = plausible ? padded_to_8(layout.ids * id_bytes) : 0;
  const std::size_t needed =
      kHeaderBytes + id_region + 8 * (2 * layout.pairs + 1) + kTrailerBytes;
  if (!plausible || needed != size) {
    throw DataError(path, fmt::format("{} bytes, but the counts at byte {} ({} pairs, {} ids) "
                                      "need {}: the file is truncated or damaged",
                                      size, counts_at, layout.pairs, layout.ids,
                                      plausible ? std::to_string(needed) : "more"));
  }
  layout.offsets_at = kHeaderBytes + id_region;
  return layout;
}

// Checks every offset, dropping the mapping's pages every 16 MiB of them: 30M pairs have 480 MB.
void check_offsets(const std::string& path,
                   const Layout& layout,
                   const uint64_t* offsets,
                   const MappedFile& mapping) {
  constexpr std::size_t kOffsetsBetweenReleases = std::size_t{1} << 21;
  const std::size_t count = 2 * layout.pairs + 1;
  const auto refuse = [&](std::size_t index, const std::string& why) {
    throw DataError(path, fmt::format("offset {} at byte {} is {}: {}; the file is damaged", index,
                                      layout.offsets_at + 8 * index, offsets[index], why));
  };
  if (offsets[0] != 0) refuse(0, "the first offset is 0");
  for (std::size_t index = 1; index < count; ++index) {
    if (index % kOffsetsBetweenReleases == 0) mapping.release();
    if (offsets[index] < offsets[index - 1]) {
      refuse(index, fmt::format("below the one before it ({})", offsets[index - 1]));
    }
  }
  if (offsets[count - 1] != layout.ids) {
    refuse(count - 1, fmt::format("the last offset is the id count, {}", layout.ids));
  }
}

}  // namespace

struct EncodedCorpus::Storage {
  std::string origin = "memory";
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> ids;
  std::unique_ptr<MappedFile> mapping;
  std::size_t offsets_at = 0;  // in the mapped file
  std::size_t id_count = 0;
};

EncodedCorpus::EncodedCorpus() : EncodedCorpus(std::vector<uint64_t>{0}, {}) {}

EncodedCorpus::EncodedCorpus(const std::vector<EncodedPair>& pairs) : EncodedCorpus() {
  EncodedCorpusBuilder builder;
  for (const EncodedPair& pair : pairs) builder.add(pair.source, pair.target);
  *this = std::move(builder).finish();
}

EncodedCorpus::EncodedCorpus(std::vector<uint64_t> offsets, std::vector<uint32_t> ids) {
  auto storage = std::make_shared<Storage>();
  storage->offsets = std::move(offsets);
  storage->ids = std::move(ids);
  offsets_ = storage->offsets.data();
  ids_ = reinterpret_cast<const unsigned char*>(storage->ids.data());
  pairs_ = (storage->offsets.size() - 1) / 2;
  storage_ = std::move(storage);
}

void EncodedCorpusBuilder::append_side(const std::vector<int64_t>& ids) {
  for (const int64_t id : ids) {
    if (id < 0 || id > std::numeric_limits<uint32_t>::max()) {
      throw Error("token id " + std::to_string(id) + " is outside [0, 2^32)");
    }
    ids_.push_back(static_cast<uint32_t>(id));
  }
  offsets_.push_back(ids_.size());
}

void EncodedCorpusBuilder::add(const std::vector<int64_t>& source,
                               const std::vector<int64_t>& target) {
  append_side(source);
  append_side(target);
}

EncodedCorpus EncodedCorpusBuilder::finish() && {
  return EncodedCorpus(std::move(offsets_), std::move(ids_));
}

EncodedCorpus EncodedCorpus::map(const std::string& path) {
  auto storage = std::make_shared<Storage>();
  storage->origin = path;
  storage->mapping = std::make_unique<MappedFile>(path);
  const char* data = storage->mapping->data();
  const Layout layout = read_layout(path, data, storage->mapping->size());
  const auto* offsets = reinterpret_cast<const uint64_t*>(data + layout.offsets_at);
  check_offsets(path, layout, offsets, *storage->mapping);
  storage->mapping->release();
  storage->offsets_at = layout.offsets_at;
  storage->id_count = static_cast<std::size_t>(layout.ids);

  EncodedCorpus corpus;
  corpus.offsets_ = offsets;
  corpus.ids_ = reinterpret_cast<const unsigned char*>(data + kHeaderBytes);
  corpus.pairs_ = static_cast<std::size_t>(layout.pairs);
  corpus.id_bytes_ = layout.id_bytes;
  corpus.source_vocabulary_ = layout.source_vocabulary;
  corpus.target_vocabulary_ = layout.target_vocabulary;
  corpus.storage_ = std::move(storage);
  return corpus;
}

const std::string& EncodedCorpus::origin() const { return storage_->origin; }

void EncodedCorpus::release_pages() const {
  if (storage_->mapping) storage_->mapping->release();
}

void EncodedCorpus::decode_ids(const unsigned char* bytes,
                               std::size_t begin,
                               std::size_t end,
                               uint32_t vocabulary,
                               int64_t* out) const {
  for (std::size_t index = begin; index < end; ++index) {
    const std::size_t at = (index - begin) * static_cast<std::size_t>(id_bytes_);
    const char* data = reinterpret_cast<const char*>(bytes);
    const uint32_t id = id_bytes_ == 2 ? read_at<uint16_t>(data, at) : read_at<uint32_t>(data, at);
    if (vocabulary != 0 && id >= vocabulary) {
      throw DataError(origin(), fmt::format("id {} at byte {} is not below its vocabulary's size, "
                                            "{}: the file is damaged",
                                            id, kHeaderBytes + index * id_bytes_, vocabulary));
    }
    *out++ = id;
  }
}

// A mapped pair is read with pread, not through the mapping: training reads pairs from all over
// the file, and each page fault maps what the kernel chooses around it (64 KiB of fault-around,
// whole large folios after its readahead), so that 30M prepared pairs held 150-430 MiB of the
// file between two releases every 256 copies (record train-memory-30m-blocks-2026-12-04-xeon-207).
EncodedPair EncodedCorpus::pair(std::size_t index) const {
  std::array<uint64_t, 3> bounds{};  // source [0, 1), target [1, 2)
  std::vector<unsigned char> read;
  const unsigned char* bytes = nullptr;
  if (storage_->mapping) {
    const std::size_t bounds_at = storage_->offsets_at + 16 * index;
    storage_->mapping->read(bounds_at, sizeof bounds, bounds.data());
    if (bounds[0] > bounds[1] || bounds[1] > bounds[2] || bounds[2] > storage_->id_count) {
      throw DataError(origin(), fmt::format("the offsets of pair {} at byte {} changed after the "
                                            "file was opened",
                                            index, bounds_at));
    }
    read.resize((bounds[2] - bounds[0]) * static_cast<std::size_t>(id_bytes_));
    storage_->mapping->read(kHeaderBytes + bounds[0] * id_bytes_, read.size(), read.data());
    bytes = read.data();
  } else {
    bounds = {offsets_[2 * index], offsets_[2 * index + 1], offsets_[2 * index + 2]};
    bytes = ids_ + bounds[0] * static_cast<std::size_t>(id_bytes_);
  }
  EncodedPair pair{std::vector<int64_t>(bounds[1] - bounds[0]),
                   std::vector<int64_t>(bounds[2] - bounds[1])};
  decode_ids(bytes, bounds[0], bounds[1], source_vocabulary_, pair.source.data());
  decode_ids(bytes + pair.source.size() * static_cast<std::size_t>(id_bytes_), bounds[1], bounds[2],
             target_vocabulary_, pair.target.data());
  return pair;
}

TokenFileWriter::TokenFileWriter(std::string path,
                                 std::size_t source_vocabulary,
                                 std::size_t target_vocabulary)
    : file_(path),
      source_vocabulary_(vocabulary_size(source_vocabulary, path)),
      target_vocabulary_(vocabulary_size(target_vocabulary, path)),
      id_bytes_(source_vocabulary <= 65536 && target_vocabulary <= 65536 ? 2 : 4) {
  const std::string scratch = file_.path() + ".offsets";
  offsets_fd_ = ::open(scratch.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (offsets_fd_ < 0) throw Error("cannot write " + scratch + ": " + std::strerror(errno));
  ::unlink(scratch.c_str());  // the open descriptor keeps it until the writer ends
  const uint32_t header[4] = {kVersion, static_cast<uint32_t>(id_bytes_), source_vocabulary_,
                              target_vocabulary_};
  file_.append(kMagic, sizeof kMagic);
  file_.append(header, sizeof header);
}

void TokenFileWriter::append_side(const std::vector<int64_t>& ids,
                                  uint32_t vocabulary,
                                  const char* side) {
  for (const int64_t id : ids) {
    if (id < 0 || id >= vocabulary) {
      throw Error(fmt::format("cannot write {}: {} id {} of pair {} is not below the vocabulary's "
                              "{} entries",
                              file_.path(), side, id, pairs() + 1, vocabulary));
    }
    const auto value = static_cast<uint32_t>(id);
    const auto narrow = static_cast<uint16_t>(value);
    const auto* bytes = id_bytes_ == 2 ? reinterpret_cast<const unsigned char*>(&narrow)
                                       : reinterpret_cast<const unsigned char*>(&value);
    buffer_.insert(buffer_.end(), bytes, bytes + id_bytes_);
  }
  ids_ += ids.size();
  offsets_.push_back(ids_);
}

TokenFileWriter::~TokenFileWriter() {
  if (offsets_fd_ >= 0) ::close(offsets_fd_);
}

void TokenFileWriter::flush_offsets() {
  if (const int error =
          write_fully(offsets_fd_, offsets_.data(), offsets_.size() * sizeof(uint64_t))) {
    throw Error("cannot write " + file_.path() + ": " + std::strerror(error));
  }
  offsets_.clear();
}

void TokenFileWriter::add(const std::vector<int64_t>& source, const std::vector<int64_t>& target) {
  append_side(source, source_vocabulary_, "source");
  append_side(target, target_vocabulary_, "target");
  ++pairs_;
  if (buffer_.size() >= kFlushBytes) behind_.append(buffer_);
  if (offsets_.size() * sizeof(uint64_t) >= kFlushBytes) flush_offsets();
}

void TokenFileWriter::add_all(const EncodedCorpus& corpus) {
  if (corpus.source_vocabulary() != source_vocabulary_ ||
      corpus.target_vocabulary() != target_vocabulary_) {
    throw DataError(corpus.origin(),
                    fmt::format("written for vocabularies of {} and {} entries, not the {} and {} "
                                "of {}",
                                corpus.source_vocabulary(), corpus.target_vocabulary(),
                                source_vocabulary_, target_vocabulary_, file_.path()));
  }
  // Equal vocabulary sizes give equal id widths: the bytes are copied as they are.
  const std::size_t ids = corpus.offset(2 * corpus.size());
  const std::size_t ids_per_flush = kFlushBytes / static_cast<std::size_t>(id_bytes_);
  for (std::size_t done = 0; done < ids; done += ids_per_flush) {
    const std::size_t count = std::min(ids_per_flush, ids - done);
    const unsigned char* bytes = corpus.ids_ + done * static_cast<std::size_t>(id_bytes_);
    buffer_.insert(buffer_.end(), bytes, bytes + count * static_cast<std::size_t>(id_bytes_));
    if (buffer_.size() >= kFlushBytes) behind_.append(buffer_);
    corpus.release_pages();
  }
  for (std::size_t index = 1; index <= 2 * corpus.size(); ++index) {
    offsets_.push_back(ids_ + corpus.offset(index));
    if (offsets_.size() * sizeof(uint64_t) >= kFlushBytes) flush_offsets();
  }
  ids_ += ids;
  pairs_ += corpus.size();
  corpus.release_pages();
}

void TokenFileWriter::commit() {
  behind_.finish();
  const std::size_t id_bytes = static_cast<std::size_t>(ids_) * id_bytes_;
  buffer_.resize(buffer_.size() + (padded_to_8(id_bytes) - id_bytes), 0);
  file_.append(buffer_.data(), buffer_.size());
  flush_offsets();
  buffer_.resize(kFlushBytes);
  if (::lseek(offsets_fd_, 0, SEEK_SET) != 0) {
    throw Error("cannot read back the offsets of " + file_.path() + ": " + std::strerror(errno));
  }
  while (true) {
    const ssize_t got = ::read(offsets_fd_, buffer_.data(), buffer_.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      throw Error("cannot read back the offsets of " + file_.path() + ": " +
                  std::strerror(errno));
    }
    if (got == 0) break;
    file_.append(buffer_.data(), static_cast<std::size_t>(got));
  }
  buffer_.clear();
  const uint64_t counts[2] = {pairs(), ids_};
  file_.append(counts, sizeof counts);
  file_.commit();
}

void join_token_files(const std::vector<std::string>& parts,
                      const std::string& path,
                      std::size_t source_vocabulary,
                      std::size_t target_vocabulary) {
  TokenFileWriter writer(path, source_vocabulary, target_vocabulary);
  for (const std::string& part : parts) writer.add_all(EncodedCorpus::map(part));
  writer.commit();
}

void write_token_file(const std::string& path,
                      const EncodedCorpus& corpus,
                      std::size_t source_vocabulary,
                      std::size_t target_vocabulary) {
  TokenFileWriter writer(path, source_vocabulary, target_vocabulary);
  for (std::size_t index = 0; index < corpus.size(); ++index) {
    const EncodedPair pair = corpus.pair(index);
    writer.add(pair.source, pair.target);
  }
  writer.commit();
}

}  // namespace nmt::data
