#include "nmt/import/pytorch_checkpoint.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "nmt/error.h"
#include "test_utils.h"
#include "torch_free.h"

namespace {

using namespace std::string_literals;
using nmt::import::Dtype;
using nmt::import::PytorchCheckpoint;
using nmt::import::TensorInfo;

// ---- golden files torch 2.11 wrote (tests/import/data/README.md) -------------------------------

std::string golden_path(const std::string& name) {
  return nmt::testing::source_dir() + "/tests/import/data/" + name;
}

std::vector<std::string> names_of(const PytorchCheckpoint& checkpoint) {
  std::vector<std::string> names;
  for (const TensorInfo& tensor : checkpoint.tensors()) names.push_back(tensor.name);
  return names;
}

std::vector<float> floats(const PytorchCheckpoint& checkpoint, const std::string& name) {
  const TensorInfo* tensor = checkpoint.find(name);
  if (tensor == nullptr) throw std::out_of_range("no tensor " + name);
  return checkpoint.to_float(*tensor);
}

// The state dict of tests/import/data/make_pytorch_checkpoints.py, whichever format holds it.
void expect_golden_state_dict(const PytorchCheckpoint& checkpoint) {
  EXPECT_EQ(names_of(checkpoint),
            (std::vector<std::string>{"embed.weight", "lm_head.weight", "tail", "matrix", "half",
                                      "bfloat", "scalar", "count", "param"}));
  const TensorInfo& matrix = *checkpoint.find("matrix");
  EXPECT_EQ(matrix.dtype, Dtype::kF32);
  EXPECT_EQ(matrix.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(matrix.bytes, 24u);
  EXPECT_EQ(floats(checkpoint, "matrix"),
            (std::vector<float>{1.0f, -2.0f, 3.5f, 0.25f, 0.0f, -7.0f}));
  EXPECT_EQ(checkpoint.find("half")->dtype, Dtype::kF16);
  EXPECT_EQ(floats(checkpoint, "half"), (std::vector<float>{1.0f, -0.5f, 65504.0f, 0x1p-14f}));
  EXPECT_EQ(checkpoint.find("bfloat")->dtype, Dtype::kBF16);
  EXPECT_EQ(floats(checkpoint, "bfloat"), (std::vector<float>{1.0f, -3.0f, 0.15625f}));
  EXPECT_EQ(checkpoint.find("scalar")->shape, std::vector<int64_t>{});
  EXPECT_EQ(floats(checkpoint, "scalar"), std::vector<float>{42.0f});
  const TensorInfo& count = *checkpoint.find("count");
  EXPECT_EQ(count.dtype, Dtype::kI64);
  EXPECT_EQ(checkpoint.bytes(count), "\x07\0\0\0\0\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff"s);
  EXPECT_EQ(floats(checkpoint, "param"), (std::vector<float>{0.5f, 1.5f}));
  EXPECT_EQ(floats(checkpoint, "embed.weight"),
            (std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}));
  EXPECT_EQ(floats(checkpoint, "tail"), (std::vector<float>{2.0f, 2.5f, 3.0f, 3.5f, 4.0f, 4.5f}));
}

TEST(PytorchCheckpointTest, ReadsTheZipFormatTorchWrites) {
  expect_golden_state_dict(PytorchCheckpoint::open(golden_path("pytorch_zip.bin")));
}

TEST(PytorchCheckpointTest, ReadsTheLegacyFormatTorchWrites) {
  expect_golden_state_dict(PytorchCheckpoint::open(golden_path("pytorch_legacy.bin")));
}

TEST(PytorchCheckpointTest, ReadsAProtocol4Pickle) {
  const PytorchCheckpoint checkpoint =
      PytorchCheckpoint::open(golden_path("pytorch_protocol4.bin"));
  EXPECT_EQ(names_of(checkpoint), std::vector<std::string>{"w"});
  EXPECT_EQ(floats(checkpoint, "w"), (std::vector<float>{0.5f, -1.0f}));
}

TEST(PytorchCheckpointTest, TiedTensorsAreViewsOfOneStorage) {
  for (const char* name : {"pytorch_zip.bin", "pytorch_legacy.bin"}) {
    const PytorchCheckpoint checkpoint = PytorchCheckpoint::open(golden_path(name));
    const TensorInfo& embed = *checkpoint.find("embed.weight");
    const TensorInfo& head = *checkpoint.find("lm_head.weight");
    const TensorInfo& tail = *checkpoint.find("tail");
    EXPECT_EQ(head.offset, embed.offset) << name;
    EXPECT_EQ(head.shape, embed.shape) << name;
    EXPECT_EQ(tail.offset, embed.offset + 6 * sizeof(float)) << name;  // storage_offset 6
    EXPECT_EQ(tail.shape, (std::vector<int64_t>{3, 2})) << name;
  }
}

TEST(PytorchCheckpointTest, FromBytesReadsWhatOpenReads) {
  const std::string path = golden_path("pytorch_zip.bin");
  const PytorchCheckpoint opened = PytorchCheckpoint::open(path);
  PytorchCheckpoint read =
      PytorchCheckpoint::from_bytes(nmt::testing::read_file(path), "model.bin");
  const PytorchCheckpoint moved = std::move(read);
  EXPECT_EQ(opened.source(), path);
  EXPECT_EQ(moved.source(), "model.bin");
  ASSERT_EQ(names_of(moved), names_of(opened));
  for (std::size_t i = 0; i < opened.tensors().size(); ++i) {
    EXPECT_EQ(moved.tensors()[i].offset, opened.tensors()[i].offset);
    EXPECT_EQ(moved.bytes(moved.tensors()[i]), opened.bytes(opened.tensors()[i]));
  }
  EXPECT_EQ(moved.find("missing"), nullptr);
  TensorInfo foreign = moved.tensors()[0];
  foreign.offset = 1'000'000;
  EXPECT_THROW((void)moved.bytes(foreign), std::out_of_range);
}

TEST(PytorchCheckpointTest, AMissingFileCannotBeOpened) {
  nmt::testing::ScratchDir dir;
  const std::string missing = dir.file("pytorch_model.bin");
  try {
    PytorchCheckpoint::open(missing);
    FAIL() << "opened a missing file";
  } catch (const nmt::ConfigError&) {
    FAIL() << "a missing file is not a ConfigError";
  } catch (const nmt::Error& error) {
    EXPECT_EQ(std::string(error.what()), "cannot open " + missing + ": No such file or directory");
  }
}

TEST(PytorchCheckpointTest, ToFloatRefusesIntegerTensors) {
  const PytorchCheckpoint checkpoint = PytorchCheckpoint::open(golden_path("pytorch_zip.bin"));
  try {
    checkpoint.to_float(*checkpoint.find("count"));
    FAIL() << "converted I64";
  } catch (const nmt::ConfigError& error) {
    EXPECT_EQ(std::string(error.what()), golden_path("pytorch_zip.bin") +
                                             ": tensor \"count\" is I64, expected F32, F16 or "
                                             "BF16 to read as floats");
  }
}

TEST(PytorchCheckpointTest, EveryTruncationOfAGoldenFileIsRefused) {
  for (const char* name : {"pytorch_zip.bin", "pytorch_legacy.bin"}) {
    const std::string whole = nmt::testing::read_file(golden_path(name));
    for (std::size_t length = 0; length < whole.size(); ++length) {
      try {
        PytorchCheckpoint::from_bytes(whole.substr(0, length), "model.bin");
        ADD_FAILURE() << name << " cut to " << length << " bytes was accepted";
      } catch (const nmt::ConfigError& error) {
        EXPECT_EQ(std::string(error.what()).rfind("model.bin: ", 0), 0u) << error.what();
      }
    }
  }
}

// ---- hand-built files: a stored-zip writer and a pickle writer ----------------------------------

std::string little_endian(uint64_t value, int bytes) {
  std::string text;
  for (int i = 0; i < bytes; ++i) text += static_cast<char>(value >> (8 * i));
  return text;
}
std::string u16(uint64_t value) { return little_endian(value, 2); }
std::string u32(uint64_t value) { return little_endian(value, 4); }
std::string u64(uint64_t value) { return little_endian(value, 8); }

struct Entry {
  std::string name;
  std::string content;
  uint16_t method = 0;  // 0: stored
};

// A ZIP archive of entries as torch.save lays one out (no CRCs: nmt does not check them). With
// zip64, the sizes and offsets are in ZIP64 extra fields and end records, as in a file over 4 GB.
std::string zip_of(const std::vector<Entry>& entries, bool zip64 = false) {
  const uint32_t saturated = 0xFFFFFFFF;
  std::string archive;
  std::string directory;
  for (const Entry& entry : entries) {
    const uint64_t size = entry.content.size();
    const std::string sizes = zip64 ? u32(saturated) + u32(saturated) : u32(size) + u32(size);
    const std::string local_extra = zip64 ? u16(1) + u16(16) + u64(size) + u64(size) : "";
    const std::string central_extra =
        zip64 ? u16(1) + u16(24) + u64(size) + u64(size) + u64(archive.size()) : "";
    directory += u32(0x02014b50) + u16(45) + u16(45) + u16(0) + u16(entry.method) + u32(0) +
                 u32(0) + sizes + u16(entry.name.size()) + u16(central_extra.size()) + u16(0) +
                 u16(0) + u16(0) + u32(0) + u32(zip64 ? saturated : archive.size()) + entry.name +
                 central_extra;
    archive += u32(0x04034b50) + u16(45) + u16(0) + u16(entry.method) + u32(0) + u32(0) + sizes +
               u16(entry.name.size()) + u16(local_extra.size()) + entry.name + local_extra +
               entry.content;
  }
  const uint64_t directory_offset = archive.size();
  archive += directory;
  if (zip64) {
    const uint64_t record = archive.size();
    archive += u32(0x06064b50) + u64(44) + u16(45) + u16(45) + u32(0) + u32(0) +
               u64(entries.size()) + u64(entries.size()) + u64(directory.size()) +
               u64(directory_offset);
    archive += u32(0x07064b50) + u32(0) + u64(record) + u32(1);
  }
  return archive + u32(0x06054b50) + u16(0) + u16(0) + u16(zip64 ? 0xFFFF : entries.size()) +
         u16(zip64 ? 0xFFFF : entries.size()) + u32(zip64 ? saturated : directory.size()) +
         u32(zip64 ? saturated : directory_offset) + u16(0);
}

// Pickle opcodes (protocol 2), as pickletools names them.
namespace pickle {
std::string text(const std::string& value) { return "X" + u32(value.size()) + value; }
std::string integer(int32_t value) { return "J" + u32(static_cast<uint32_t>(value)); }
std::string global(const std::string& module, const std::string& name) {
  return "c" + module + "\n" + name + "\n";
}
std::string tuple(const std::vector<std::string>& items) {
  std::string body = "(";
  for (const std::string& item : items) body += item;
  return body + "t";
}
std::string ints(const std::vector<int32_t>& values) {
  std::vector<std::string> items;
  for (const int32_t value : values) items.push_back(integer(value));
  return tuple(items);
}
// BINPERSID of the zip format's ('storage', torch.<type>, key, 'cpu', elements).
std::string storage(const std::string& type, const std::string& key, int32_t elements) {
  return tuple(
             {text("storage"), global("torch", type), text(key), text("cpu"), integer(elements)}) +
         "Q";
}
std::string tensor(const std::string& storage_id,
                   int32_t offset,
                   const std::vector<int32_t>& shape,
                   const std::vector<int32_t>& stride) {
  return global("torch._utils", "_rebuild_tensor_v2") +
         tuple({storage_id, integer(offset), ints(shape), ints(stride), "\x89",
                global("collections", "OrderedDict") + ")R"}) +
         "R";
}
std::string dict(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string body = "}(";
  for (const auto& [key, value] : items) body += text(key) + value;
  return body + "u";
}
std::string whole(const std::string& body) { return "\x80\x02" + body + "."; }
}  // namespace pickle

// A zip checkpoint: archive/data.pkl holding pickle, archive/data/<key> each storage's bytes.
std::string checkpoint_of(const std::string& pickle,
                          const std::map<std::string, std::string>& storages = {},
                          const std::string& byteorder = "little") {
  std::vector<Entry> entries = {{"archive/data.pkl", pickle}, {"archive/byteorder", byteorder}};
  for (const auto& [key, bytes] : storages) entries.push_back({"archive/data/" + key, bytes});
  entries.push_back({"archive/version", "3\n"});
  return zip_of(entries);
}

// One F32 tensor "w" of shape, stride and storage_offset in a storage "0" of storage_elements.
std::string one_tensor(int32_t storage_elements,
                       int32_t offset,
                       const std::vector<int32_t>& shape,
                       const std::vector<int32_t>& stride) {
  const std::string id = pickle::storage("FloatStorage", "0", storage_elements);
  return checkpoint_of(
      pickle::whole(pickle::dict({{"w", pickle::tensor(id, offset, shape, stride)}})),
      {{"0", std::string(4 * static_cast<std::size_t>(storage_elements), '\0')}});
}

// A legacy file: the magic number, protocol 1001 and system info pickles, state_dict (a pickle),
// the keys, and each storage's element count and bytes.
std::string legacy_of(const std::string& state_dict,
                      const std::vector<std::pair<std::string, std::string>>& storages,
                      std::size_t element_size = 4,
                      bool little_endian = true) {
  std::string file = "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19."s;
  file += pickle::whole("M\xe9\x03");  // BININT2 1001
  file += pickle::whole("}(" + pickle::text("protocol_version") + "M\xe9\x03" +
                        pickle::text("little_endian") + (little_endian ? "\x88" : "\x89") + "u");
  file += state_dict;
  std::string keys = "](";
  for (const auto& storage : storages) keys += pickle::text(storage.first);
  file += pickle::whole(keys + "e");
  for (const auto& [key, bytes] : storages) file += u64(bytes.size() / element_size) + bytes;
  return file;
}

std::string checkpoint_refusal(const std::string& content) {
  try {
    PytorchCheckpoint::from_bytes(content, "model.bin");
  } catch (const nmt::ConfigError& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

std::string floats_as_bytes(const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(PytorchCheckpointTest, ReadsZip64RecordsAndExtraFields) {
  const std::string id = pickle::storage("FloatStorage", "0", 2);
  const std::string pkl = pickle::whole(pickle::dict({{"w", pickle::tensor(id, 0, {2}, {1})}}));
  const std::string archive =
      zip_of({{"model/data.pkl", pkl}, {"model/data/0", floats_as_bytes({1.5f, -2.0f})}},
             /*zip64=*/true);
  const PytorchCheckpoint checkpoint = PytorchCheckpoint::from_bytes(archive, "model.bin");
  EXPECT_EQ(floats(checkpoint, "w"), (std::vector<float>{1.5f, -2.0f}));
}

// A legacy file whose tensor "w" (storage_offset 1, size [1]) views view_size elements from
// view_offset of the storage "root" of 4 floats, 1 to 4.
std::string legacy_view(int32_t view_offset, int32_t view_size) {
  const std::string view =
      pickle::tuple({pickle::text("v"), pickle::integer(view_offset), pickle::integer(view_size)});
  const std::string id =
      pickle::tuple({pickle::text("storage"), pickle::global("torch", "FloatStorage"),
                     pickle::text("root"), pickle::text("cpu"), pickle::integer(4), view}) +
      "Q";
  return legacy_of(pickle::whole(pickle::dict({{"w", pickle::tensor(id, 1, {1}, {1})}})),
                   {{"root", floats_as_bytes({1.0f, 2.0f, 3.0f, 4.0f})}});
}

TEST(PytorchCheckpointTest, ReadsLegacyStorageViews) {
  EXPECT_EQ(floats(PytorchCheckpoint::from_bytes(legacy_view(1, 2), "model.bin"), "w"),
            std::vector<float>{3.0f});
  EXPECT_EQ(checkpoint_refusal(legacy_view(3, 2)),
            "model.bin: a view of 2 elements from offset 3 lies outside storage \"root\" of 4 "
            "elements");
  EXPECT_EQ(checkpoint_refusal(legacy_view(2, 1)),
            "model.bin: tensor \"w\": its elements [1, 2) lie outside its storage \"root\", which "
            "holds 1");
}

TEST(PytorchCheckpointTest, AcceptsSize1DimensionsOfAnyStrideAndEmptyTensors) {
  const PytorchCheckpoint checkpoint =
      PytorchCheckpoint::from_bytes(one_tensor(6, 0, {2, 1, 3}, {3, 7, 1}), "model.bin");
  EXPECT_EQ(checkpoint.find("w")->bytes, 24u);
  EXPECT_EQ(PytorchCheckpoint::from_bytes(one_tensor(0, 0, {0, 5}, {9, 9}), "m").tensors()[0].bytes,
            0u);
}

// ---- refusals, each with its message ------------------------------------------------------------

TEST(PytorchCheckpointRefusalTest, GlobalsOtherThanTensorsAreRefusedBeforeTheyRun) {
  const std::string message =
      "model.bin: pickle global \"os.system\" is not allowed; nmt reads only tensors";
  EXPECT_EQ(
      checkpoint_refusal(checkpoint_of(pickle::whole(
          pickle::global("os", "system") + pickle::tuple({pickle::text("echo pwned")}) + "R"))),
      message);
  // STACK_GLOBAL (protocol 4) takes the same names from the stack.
  EXPECT_EQ(checkpoint_refusal(
                checkpoint_of(pickle::whole(pickle::text("os") + pickle::text("system") + "\x93"))),
            message);
  EXPECT_EQ(checkpoint_refusal(
                checkpoint_of(pickle::whole(pickle::global("torch", "ComplexFloatStorage")))),
            "model.bin: pickle global \"torch.ComplexFloatStorage\": nmt does not read tensors of "
            "this storage class");
  EXPECT_EQ(checkpoint_refusal(legacy_of(pickle::whole(pickle::global("builtins", "eval")), {})),
            "model.bin: pickle global \"builtins.eval\" is not allowed; nmt reads only tensors");
}

TEST(PytorchCheckpointRefusalTest, TruncatedFilesAreRefused) {
  const std::string zip = nmt::testing::read_file(golden_path("pytorch_zip.bin"));
  EXPECT_EQ(checkpoint_refusal(zip.substr(0, zip.size() - 1)),
            "model.bin: no zip end of central directory record (the file is truncated or not a zip "
            "archive)");
  const std::string legacy = nmt::testing::read_file(golden_path("pytorch_legacy.bin"));
  EXPECT_EQ(checkpoint_refusal(legacy.substr(0, legacy.size() - 1)),
            "model.bin: storage \"94847633140192\" at byte 1462 runs past the end of the file (the "
            "file is truncated)");
  EXPECT_EQ(checkpoint_refusal(legacy.substr(0, 1000)),
            "model.bin: pickle opcode at byte 985 runs past the end of the pickle (byte 1000; the "
            "file is truncated)");
  EXPECT_EQ(
      checkpoint_refusal(checkpoint_of("\x80\x02}")),
      "model.bin: archive/data.pkl: pickle ends at byte 3 without STOP (the file is truncated)");
  EXPECT_EQ(checkpoint_refusal("PK"),
            "model.bin: file is 2 bytes long, too short for a zip archive's end record");
  EXPECT_EQ(
      checkpoint_refusal(""),
      "model.bin: not a PyTorch checkpoint: neither a zip archive nor torch.save's legacy format");
}

TEST(PytorchCheckpointRefusalTest, CompressedEntriesAreRefused) {
  EXPECT_EQ(checkpoint_refusal(zip_of({{"archive/data.pkl", "\x78\x9c", 8}})),
            "model.bin: zip entry \"archive/data.pkl\" is compressed (method 8); torch.save stores "
            "its entries uncompressed");
}

TEST(PytorchCheckpointRefusalTest, OffsetsOutsideTheFileAreRefused) {
  const std::string pkl = pickle::whole(pickle::dict({}));
  std::string archive = zip_of({{"archive/data.pkl", pkl}});
  const std::size_t end = archive.size() - 22;
  std::string far_directory = archive;
  far_directory.replace(end + 16, 4, u32(100000));
  EXPECT_EQ(checkpoint_refusal(far_directory),
            "model.bin: the zip central directory (62 bytes at byte 100000) lies outside the file "
            "of 136 bytes");
  std::string far_header = archive;
  far_header.replace(pkl.size() + 46 + 42, 4, u32(90000));
  EXPECT_EQ(checkpoint_refusal(far_header),
            "model.bin: zip entry \"archive/data.pkl\": its local header at byte 90000 is missing "
            "or damaged");
  std::string long_entry = archive;
  long_entry.replace(pkl.size() + 46 + 20, 8, u32(5000) + u32(5000));
  EXPECT_EQ(checkpoint_refusal(long_entry),
            "model.bin: zip entry \"archive/data.pkl\": its 5000 bytes at byte 46 run past the end "
            "of the file (136 bytes)");
}

TEST(PytorchCheckpointRefusalTest, NonContiguousTensorsAreRefused) {
  const std::string path = golden_path("pytorch_transposed.bin");
  try {
    PytorchCheckpoint::open(path);
    FAIL() << "accepted a transposed tensor";
  } catch (const nmt::ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              path +
                  ": tensor \"weight\": stride [1, 3] of size [3, 2] is not C-contiguous; nmt "
                  "reads only contiguous tensors");
  }
  EXPECT_EQ(checkpoint_refusal(one_tensor(6, 0, {2, 3}, {3, 2})),
            "model.bin: tensor \"w\": stride [3, 2] of size [2, 3] is not C-contiguous; nmt reads "
            "only contiguous tensors");
}

TEST(PytorchCheckpointRefusalTest, TensorsBeyondTheirStorageAreRefused) {
  EXPECT_EQ(
      checkpoint_refusal(one_tensor(4, 2, {3}, {1})),
      "model.bin: tensor \"w\": its elements [2, 5) lie outside its storage \"0\", which holds 4");
  EXPECT_EQ(checkpoint_refusal(one_tensor(4, -1, {2}, {1})),
            "model.bin: tensor \"w\": storage_offset -1 is negative");
  EXPECT_EQ(checkpoint_refusal(one_tensor(4, 0, {-2}, {1})),
            "model.bin: tensor \"w\": size [-2] has a negative dimension");
  EXPECT_EQ(checkpoint_refusal(one_tensor(4, 0, {65536, 65536, 65536, 65536}, {0, 0, 0, 1})),
            "model.bin: tensor \"w\": shape [65536, 65536, 65536, 65536] has more than "
            "9223372036854775807 elements");
}

TEST(PytorchCheckpointRefusalTest, TopLevelsOtherThanAStateDictAreRefused) {
  EXPECT_EQ(
      checkpoint_refusal(checkpoint_of(pickle::whole("]"))),
      "model.bin: the pickle holds a list, expected a state dict (a dict of names to tensors)");
  EXPECT_EQ(checkpoint_refusal(checkpoint_of(pickle::whole(pickle::dict({{"nested", "}"}})))),
            "model.bin: state dict entry \"nested\" is a dict, expected a tensor");
  EXPECT_EQ(checkpoint_refusal(checkpoint_of(pickle::whole("}" + pickle::integer(3) + "}s"))),
            "model.bin: state dict key 0 is an int, expected a string");
  EXPECT_EQ(
      checkpoint_refusal(checkpoint_of(pickle::whole(pickle::dict({{"n", pickle::integer(1)}})))),
      "model.bin: state dict entry \"n\" is an int, expected a tensor");
}

TEST(PytorchCheckpointRefusalTest, ArchivesWithoutDataPklAreRefused) {
  EXPECT_EQ(
      checkpoint_refusal(zip_of({{"archive/version", "3\n"}, {"data.pkl", "x"}})),
      "model.bin: the zip archive has no <prefix>/data.pkl: it is not a torch.save checkpoint");
}

TEST(PytorchCheckpointRefusalTest, BigEndianCheckpointsAreRefused) {
  EXPECT_EQ(checkpoint_refusal(checkpoint_of(pickle::whole(pickle::dict({})), {}, "big")),
            "model.bin: byteorder is \"big\"; nmt reads only little-endian checkpoints");
  EXPECT_EQ(checkpoint_refusal(
                legacy_of(pickle::whole(pickle::dict({})), {}, 4, /*little_endian=*/false)),
            "model.bin: the checkpoint was written on a big-endian machine; nmt reads only "
            "little-endian checkpoints");
}

TEST(PytorchCheckpointRefusalTest, StoragesThatDisagreeWithTheirEntriesAreRefused) {
  const std::string id = pickle::storage("FloatStorage", "0", 2);
  const std::string pkl = pickle::whole(pickle::dict({{"w", pickle::tensor(id, 0, {2}, {1})}}));
  EXPECT_EQ(checkpoint_refusal(checkpoint_of(pkl)),
            "model.bin: storage \"0\" has no zip entry \"archive/data/0\"");
  EXPECT_EQ(checkpoint_refusal(checkpoint_of(pkl, {{"0", "abc"}})),
            "model.bin: zip entry \"archive/data/0\" holds 3 bytes, but storage \"0\" of 2 F32 "
            "elements needs 8");
  const std::string half_id = pickle::storage("HalfStorage", "0", 2);
  EXPECT_EQ(
      checkpoint_refusal(checkpoint_of(pickle::whole(pickle::dict(
          {{"w", pickle::tensor(id, 0, {2}, {1})}, {"v", pickle::tensor(half_id, 0, {2}, {1})}})))),
      "model.bin: storage \"0\" is named as F32 of 2 elements and then as F16 of 2");
  EXPECT_EQ(checkpoint_refusal(legacy_of(pkl, {{"0", "12345678"}, {"1", "x"}})),
            "model.bin: the legacy checkpoint lists a storage key that no tensor names");
  EXPECT_EQ(
      checkpoint_refusal(legacy_of(pkl, {{"0", "1234"}})),
      "model.bin: storage \"0\" at byte 231 runs past the end of the file (the file is truncated)");
}

TEST(PytorchCheckpointRefusalTest, MalformedPicklesAreRefused) {
  EXPECT_EQ(checkpoint_refusal(checkpoint_of(pickle::whole("d"))),
            "model.bin: archive/data.pkl: pickle opcode 0x64 ('d') at byte 2 is not supported (nmt "
            "reads only the opcodes torch.save writes for a state dict)");
  EXPECT_EQ(checkpoint_refusal(checkpoint_of(pickle::whole("h\x05"))),
            "model.bin: archive/data.pkl: pickle gets memo entry 5 at byte 2, which was never put");
  EXPECT_EQ(checkpoint_refusal(checkpoint_of(pickle::whole("s"))),
            "model.bin: archive/data.pkl: pickle opcode at byte 2 pops from an empty stack");
  EXPECT_EQ(checkpoint_refusal(checkpoint_of(pickle::whole("}]0"))),
            "model.bin: archive/data.pkl: pickle opcode 0x30 ('0') at byte 4 is not supported (nmt "
            "reads only the opcodes torch.save writes for a state dict)");
  EXPECT_EQ(checkpoint_refusal(checkpoint_of("\x80\x06}.")),
            "model.bin: archive/data.pkl: pickle protocol 6 is not supported (2 to 5 are)");
  EXPECT_EQ(
      checkpoint_refusal(
          checkpoint_of(pickle::whole(pickle::global("collections", "OrderedDict") + "]R"))),
      "model.bin: archive/data.pkl: pickle REDUCE at byte 28 needs a tuple of arguments, got a "
      "list");
  EXPECT_EQ(
      checkpoint_refusal(
          checkpoint_of(pickle::whole(pickle::tensor(pickle::integer(1), 0, {1}, {1})))),
      "model.bin: pickle calls torch._utils._rebuild_tensor_v2 with (an int, an int, a tuple, a "
      "tuple, a bool, a dict), expected (storage, storage_offset, size, stride, requires_grad, "
      "backward_hooks[, metadata]) with up to 32 dimensions in size and as many in stride");
  EXPECT_EQ(checkpoint_refusal(
                checkpoint_of(pickle::whole(pickle::tuple({pickle::text("storage")}) + "Q"))),
            "model.bin: pickle persistent id (a string) is not a storage's ('storage', storage "
            "class, key, location, size[, view])");
  EXPECT_EQ(checkpoint_refusal(checkpoint_of(pickle::whole("]}b"))),
            "model.bin: pickle BUILD sets the state of a list; nmt allows it only on the state "
            "dict (its _metadata)");
  EXPECT_EQ(checkpoint_refusal(checkpoint_of(pickle::whole(std::string(2000, '(')))),
            "model.bin: archive/data.pkl: pickle nests more than 1024 marks");
}

TEST(PytorchCheckpointRefusalTest, NamesGivenTwiceAreRefused) {
  const std::string id = pickle::storage("FloatStorage", "0", 1);
  const std::string w = pickle::tensor(id, 0, {1}, {1});
  EXPECT_EQ(checkpoint_refusal(
                checkpoint_of(pickle::whole(pickle::dict({{"w", w}, {"w", w}})), {{"0", "1234"}})),
            "model.bin: state dict names \"w\" twice");
  EXPECT_EQ(checkpoint_refusal(zip_of({{"archive/data.pkl", "."}, {"archive/data.pkl", "."}})),
            "model.bin: the zip archive holds two entries named \"archive/data.pkl\"");
}

TEST(PytorchCheckpointRefusalTest, FilesOfOtherFormatsAreRefused) {
  EXPECT_EQ(
      checkpoint_refusal("\x1f\x8b\x08"),
      "model.bin: not a PyTorch checkpoint: neither a zip archive nor torch.save's legacy format");
  EXPECT_EQ(checkpoint_refusal(pickle::whole("N")),
            "model.bin: not a PyTorch checkpoint: neither a zip archive nor torch.save's legacy "
            "format (its magic number is missing)");
}

TEST(PytorchCheckpointTest, DoesNotLoadTorch) {
  (void)PytorchCheckpoint::open(golden_path("pytorch_zip.bin"));
  EXPECT_EQ(nmt::testing::loaded_torch_library(), "");
}

}  // namespace
