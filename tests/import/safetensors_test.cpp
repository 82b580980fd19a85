#include "nmt/import/safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "nmt/error.h"
#include "test_utils.h"
#include "torch_free.h"

namespace {

using namespace std::string_literals;
using nmt::import::Dtype;
using nmt::import::SafetensorsFile;
using nmt::import::TensorInfo;
using nmt::import::TensorToWrite;

std::string u64_le(uint64_t value) {
  std::string bytes(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) bytes[i] = static_cast<char>(value >> (8 * i));
  return bytes;
}

// A file of this header (its length first) and data section.
std::string file_of(const std::string& header, const std::string& data = "") {
  return u64_le(header.size()) + header + data;
}

// The ConfigError message that reading content as "model.safetensors" throws.
std::string refusal(const std::string& content) {
  try {
    SafetensorsFile::from_bytes(content, "model.safetensors");
  } catch (const nmt::ConfigError& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

std::string header_refusal(const std::string& header, const std::string& data = "") {
  return refusal(file_of(header, data));
}

// One tensor's entry, e.g. entry("F32", "[2]", "[0,8]").
std::string entry(const std::string& dtype, const std::string& shape, const std::string& offsets) {
  return R"({"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}";
}

// A header of one tensor "a" with these fields.
std::string one_tensor(const std::string& dtype,
                       const std::string& shape,
                       const std::string& offsets) {
  return R"({"a":)" + entry(dtype, shape, offsets) + "}";
}

std::string as_bytes(const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// The values of a one-tensor file of dtype holding raw, read as floats.
std::vector<float> floats_of(const std::string& dtype, const std::string& raw, std::size_t size) {
  const std::string count = std::to_string(raw.size() / size);
  const std::string end = std::to_string(raw.size());
  const SafetensorsFile file = SafetensorsFile::from_bytes(
      file_of(one_tensor(dtype, "[" + count + "]", "[0," + end + "]"), raw), "model.safetensors");
  return file.to_float(file.tensors().at(0));
}

// ---- reading ----------------------------------------------------------------------------------

TEST(SafetensorsFileTest, ReadsAHandBuiltFile) {
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("ids":{"dtype":"I16","shape":[1,2],"data_offsets":[8,12]}})";
  const std::string bytes = "\x94\x00\x00\x00\x00\x00\x00\x00"s + header +
                            "\x00\x00\x80\x3F"s     // 1.0f
                            + "\x00\x00\x20\xC0"s   // -2.5f
                            + "\x07\x00\xFE\xFF"s;  // int16 7, -2
  nmt::testing::ScratchDir dir;
  const std::string path = dir.write("model.safetensors", bytes);

  const SafetensorsFile file = SafetensorsFile::open(path);
  ASSERT_EQ(file.tensors().size(), 2u);
  const TensorInfo& weight = file.tensors()[0];
  EXPECT_EQ(weight.name, "weight");
  EXPECT_EQ(weight.dtype, Dtype::kF32);
  EXPECT_EQ(weight.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(weight.offset, 8u + 148u);
  EXPECT_EQ(weight.bytes, 8u);
  EXPECT_EQ(weight.elements(), 2);
  const TensorInfo& ids = file.tensors()[1];
  EXPECT_EQ(ids.name, "ids");
  EXPECT_EQ(ids.dtype, Dtype::kI16);
  EXPECT_EQ(ids.shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ids.offset, 8u + 148u + 8u);
  EXPECT_EQ(ids.bytes, 4u);
  EXPECT_EQ(file.metadata(), (std::map<std::string, std::string>{{"format", "pt"}}));
  EXPECT_EQ(file.source(), path);

  EXPECT_EQ(file.find("ids"), &ids);
  EXPECT_EQ(file.find("weight"), &weight);
  EXPECT_EQ(file.find("bias"), nullptr);
  EXPECT_EQ(file.to_float(weight), (std::vector<float>{1.0f, -2.5f}));
  EXPECT_EQ(file.bytes(ids), "\x07\x00\xFE\xFF"s);
  try {
    (void)file.to_float(ids);
    FAIL() << "I16 read as floats";
  } catch (const nmt::ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              path + R"(: tensor "ids" is I16, expected F32, F16 or BF16 to read as floats)");
  }
}

TEST(SafetensorsFileTest, ReadsTheSafetensorsLibrarysOwnExample) {
  // bindings/python/tests/test_simple.py (test_deserialization) of huggingface/safetensors.
  const std::string bytes = "<\x00\x00\x00\x00\x00\x00\x00"s +
                            R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})" +
                            std::string(16, '\0');
  const SafetensorsFile file = SafetensorsFile::from_bytes(bytes, "test.safetensors");
  ASSERT_EQ(file.tensors().size(), 1u);
  EXPECT_EQ(file.tensors()[0].dtype, Dtype::kI32);
  EXPECT_EQ(file.tensors()[0].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(file.bytes(file.tensors()[0]), std::string(16, '\0'));
  EXPECT_TRUE(file.metadata().empty());
}

TEST(SafetensorsFileTest, ConvertsF16GoldenValues) {
  // Little-endian halves: 1.0, -2.5, 65504 (largest), 2^-24 (smallest subnormal), 1023 * 2^-24
  // (largest subnormal), 2^-14 (smallest normal), -0, +inf, -inf, NaN.
  const std::string raw =
      "\x00\x3C\x00\xC1\xFF\x7B\x01\x00\xFF\x03\x00\x04\x00\x80\x00\x7C\x00\xFC"
      "\x00\x7E"s;
  const std::vector<float> values = floats_of("F16", raw, 2);
  ASSERT_EQ(values.size(), 10u);
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[1], -2.5f);
  EXPECT_EQ(values[2], 65504.0f);
  EXPECT_EQ(values[3], std::ldexp(1.0f, -24));
  EXPECT_EQ(values[4], std::ldexp(1023.0f, -24));
  EXPECT_EQ(values[5], std::ldexp(1.0f, -14));
  EXPECT_EQ(values[6], 0.0f);
  EXPECT_TRUE(std::signbit(values[6]));
  EXPECT_EQ(values[7], std::numeric_limits<float>::infinity());
  EXPECT_EQ(values[8], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(values[9]));
}

TEST(SafetensorsFileTest, ConvertsBF16GoldenValues) {
  // 0x3F80 = 1.0, 0xC020 = -2.5, 0x7F80 = +inf, 0x7FC0 = NaN, 0x0001 = 2^-133 (a float subnormal).
  const std::string raw = "\x80\x3F\x20\xC0\x80\x7F\xC0\x7F\x01\x00"s;
  const std::vector<float> values = floats_of("BF16", raw, 2);
  ASSERT_EQ(values.size(), 5u);
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[1], -2.5f);
  EXPECT_EQ(values[2], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(values[3]));
  EXPECT_EQ(values[4], std::ldexp(1.0f, -133));
}

TEST(SafetensorsFileTest, ZeroElementTensorsHoldNoBytesAndScalarsOne) {
  const std::string header = R"({"empty":)" + entry("F32", "[0,4]", "[0,0]") + R"(,"also":)" +
                             entry("I64", "[2,0]", "[0,0]") + R"(,"scalar":)" +
                             entry("F32", "[]", "[0,4]") + "}";
  const SafetensorsFile file =
      SafetensorsFile::from_bytes(file_of(header, as_bytes({3.5f})), "model.safetensors");
  ASSERT_EQ(file.tensors().size(), 3u);
  // Zero-element tensors at one offset come by name, before the tensor that starts there.
  EXPECT_EQ(file.tensors()[0].name, "also");
  EXPECT_EQ(file.tensors()[1].name, "empty");
  EXPECT_EQ(file.tensors()[2].name, "scalar");
  EXPECT_EQ(file.tensors()[1].elements(), 0);
  EXPECT_EQ(file.tensors()[1].bytes, 0u);
  EXPECT_TRUE(file.to_float(file.tensors()[1]).empty());
  EXPECT_EQ(file.tensors()[2].elements(), 1);
  EXPECT_EQ(file.to_float(file.tensors()[2]), (std::vector<float>{3.5f}));
}

TEST(SafetensorsFileTest, EightBitFloatsAreReadAsBytesOnly) {
  const SafetensorsFile file = SafetensorsFile::from_bytes(
      file_of(one_tensor("F8_E4M3", "[2]", "[0,2]"), "\x38\xB8"s), "model.safetensors");
  EXPECT_EQ(file.tensors()[0].dtype, Dtype::kF8E4M3);
  EXPECT_EQ(file.bytes(file.tensors()[0]), "\x38\xB8"s);
  try {
    (void)file.to_float(file.tensors()[0]);
    FAIL() << "F8 read as floats";
  } catch (const nmt::ConfigError& error) {
    EXPECT_STREQ(error.what(),
                 R"(model.safetensors: tensor "a" is F8_E4M3, expected F32, F16 or BF16 to read )"
                 "as floats");
  }
}

TEST(SafetensorsFileTest, KeysBesideTheThreeOfAnEntryAreIgnoredAsByTheSafetensorsLibrary) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":[]}})";
  const SafetensorsFile file = SafetensorsFile::from_bytes(file_of(header, "z"), "m.safetensors");
  EXPECT_EQ(file.bytes(file.tensors()[0]), "z");
}

TEST(SafetensorsFileTest, AMovedFileKeepsItsTensorsAndBytes) {
  SafetensorsFile first = SafetensorsFile::from_bytes(
      file_of(one_tensor("F32", "[1]", "[0,4]"), as_bytes({2.0f})), "model.safetensors");
  const SafetensorsFile moved = std::move(first);
  ASSERT_NE(moved.find("a"), nullptr);
  EXPECT_EQ(moved.to_float(*moved.find("a")), (std::vector<float>{2.0f}));
}

TEST(SafetensorsFileTest, BytesOfATensorOutsideTheFileIsOutOfRange) {
  const SafetensorsFile file = SafetensorsFile::from_bytes(
      file_of(one_tensor("F32", "[1]", "[0,4]"), as_bytes({2.0f})), "model.safetensors");
  TensorInfo foreign = file.tensors()[0];
  foreign.offset = 1000;
  EXPECT_THROW((void)file.bytes(foreign), std::out_of_range);
}

TEST(SafetensorsFileTest, DtypesHaveTheirSafetensorsNamesAndSizes) {
  const std::vector<std::tuple<Dtype, std::string, std::size_t>> expected = {
      {Dtype::kBool, "BOOL", 1}, {Dtype::kU8, "U8", 1},          {Dtype::kI8, "I8", 1},
      {Dtype::kI16, "I16", 2},   {Dtype::kU16, "U16", 2},        {Dtype::kF16, "F16", 2},
      {Dtype::kBF16, "BF16", 2}, {Dtype::kI32, "I32", 4},        {Dtype::kU32, "U32", 4},
      {Dtype::kF32, "F32", 4},   {Dtype::kF64, "F64", 8},        {Dtype::kI64, "I64", 8},
      {Dtype::kU64, "U64", 8},   {Dtype::kF8E4M3, "F8_E4M3", 1}, {Dtype::kF8E5M2, "F8_E5M2", 1}};
  for (const auto& [dtype, name, size] : expected) {
    EXPECT_EQ(nmt::import::dtype_name(dtype), name);
    EXPECT_EQ(nmt::import::dtype_size(dtype), size) << name;
  }
}

// ---- opening files ----------------------------------------------------------------------------

TEST(SafetensorsFileTest, AMissingFileOrADirectoryCannotBeOpened) {
  nmt::testing::ScratchDir dir;
  const std::string missing = dir.file("missing.safetensors");
  try {
    SafetensorsFile::open(missing);
    FAIL() << "opened a missing file";
  } catch (const nmt::Error& error) {
    EXPECT_EQ(std::string(error.what()), "cannot open " + missing + ": No such file or directory");
  }
  try {
    SafetensorsFile::open(dir.path());
    FAIL() << "opened a directory";
  } catch (const nmt::Error& error) {
    EXPECT_EQ(std::string(error.what()), "cannot read " + dir.path() + ": not a regular file");
  }
}

TEST(SafetensorsFileTest, AnEmptyFileIsTooShort) {
  nmt::testing::ScratchDir dir;
  const std::string path = dir.write("empty.safetensors", "");
  try {
    SafetensorsFile::open(path);
    FAIL() << "accepted an empty file";
  } catch (const nmt::ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              path + ": file is 0 bytes long, too short for the 8-byte header length");
  }
}

TEST(SafetensorsFileTest, EveryTruncationOfAValidFileIsRefused) {
  const std::vector<float> weights = {1, 2, 3, 4, 5, 6};
  const std::string ids = "\x01\x00\x02\x00"s;
  const std::vector<TensorToWrite> tensors = {{"w", Dtype::kF32, {2, 3}, as_bytes(weights)},
                                              {"ids", Dtype::kU16, {2}, ids}};
  const std::string whole =
      nmt::import::encode_safetensors_header(tensors, {{"format", "pt"}}, "model.safetensors") +
      as_bytes(weights) + ids;
  ASSERT_EQ(SafetensorsFile::from_bytes(whole, "model.safetensors").tensors().size(), 2u);
  for (std::size_t length = 0; length < whole.size(); ++length) {
    EXPECT_THROW(SafetensorsFile::from_bytes(whole.substr(0, length), "model.safetensors"),
                 nmt::ConfigError)
        << length;
  }
  nmt::testing::ScratchDir dir;
  for (const std::size_t length : {0ul, 7ul, 8ul, 50ul, whole.size() - 1}) {
    const std::string path = dir.write("cut.safetensors", whole.substr(0, length));
    EXPECT_THROW(SafetensorsFile::open(path), nmt::ConfigError) << length;
  }
}

// ---- malformed files, one test per rule -------------------------------------------------------

TEST(SafetensorsValidationTest, AFileShorterThanTheLengthFieldIsRefused) {
  EXPECT_EQ(refusal("\x05\x00\x00"s),
            "model.safetensors: file is 3 bytes long, too short for the 8-byte header length");
}

TEST(SafetensorsValidationTest, AHeaderLengthOverTheLibrarysLimitIsRefused) {
  EXPECT_EQ(refusal(u64_le(100'000'001) + "{}"),
            "model.safetensors: header length 100000001 is over the limit of 100000000 bytes");
  EXPECT_EQ(refusal(u64_le(std::numeric_limits<uint64_t>::max()) + "{}"),
            "model.safetensors: header length 18446744073709551615 is over the limit of "
            "100000000 bytes");
}

TEST(SafetensorsValidationTest, AHeaderLengthPastTheEndOfTheFileIsRefused) {
  EXPECT_EQ(refusal(u64_le(10) + "{}"),
            "model.safetensors: header length 10 runs past the end of the file, which has 2 "
            "bytes after the length");
}

TEST(SafetensorsValidationTest, AHeaderThatIsNotJsonIsRefused) {
  EXPECT_EQ(header_refusal(R"({"a": tru})"),
            "model.safetensors: header is not valid JSON: parse error at line 1, column 10: "
            "syntax error while parsing value - invalid literal");
  EXPECT_EQ(header_refusal(""),
            "model.safetensors: header is not valid JSON: parse error at line 1, column 1: "
            "syntax error while parsing value - unexpected end of input; expected '[', '{', or a "
            "literal");
  EXPECT_EQ(header_refusal(R"({"a":1e999})"),
            "model.safetensors: header is not valid JSON: it holds a number too large for a "
            "double");
}

TEST(SafetensorsValidationTest, AJsonErrorNeverQuotesTheTokenItStoppedIn) {
  // An unterminated megabyte-long string, and a byte that is not UTF-8.
  const std::string long_string = header_refusal(R"({")" + std::string(1 << 20, 'x'));
  EXPECT_EQ(long_string,
            "model.safetensors: header is not valid JSON: parse error at line 1, column 1048579: "
            "syntax error while parsing object key - invalid string: missing closing quote");
  const std::string not_utf8 = header_refusal("{\"\xFF\":1}");
  EXPECT_EQ(not_utf8,
            "model.safetensors: header is not valid JSON: parse error at line 1, column 3: "
            "syntax error while parsing object key - invalid string: ill-formed UTF-8 byte");
}

TEST(SafetensorsValidationTest, AHeaderThatIsNotAnObjectIsRefused) {
  EXPECT_EQ(header_refusal("[1,2]"), "model.safetensors: header is an array, expected an object");
  EXPECT_EQ(header_refusal("null"), "model.safetensors: header is null, expected an object");
}

TEST(SafetensorsValidationTest, NestingDeeperThanAHeaderHasIsRefusedWhileParsing) {
  EXPECT_EQ(header_refusal(one_tensor("F32", "[[1]]", "[0,4]"), as_bytes({1})),
            "model.safetensors: header is nested deeper than 3 levels");
  // A million open brackets: refused at the fourth, never built or recursed into.
  EXPECT_EQ(header_refusal(std::string(1'000'000, '[')),
            "model.safetensors: header is nested deeper than 3 levels");
}

TEST(SafetensorsValidationTest, AKeyGivenTwiceIsRefused) {
  const std::string a = entry("F32", "[1]", "[0,4]");
  EXPECT_EQ(header_refusal(R"({"a":)" + a + R"(,"a":)" + a + "}", as_bytes({1})),
            R"(model.safetensors: header names "a" twice)");
  EXPECT_EQ(
      header_refusal(R"({"a":{"dtype":"F32","dtype":"F16","shape":[1],"data_offsets":[0,4]}})",
                     as_bytes({1})),
      R"(model.safetensors: header entry "a" has the key "dtype" twice)");
}

TEST(SafetensorsValidationTest, AnEntryThatIsNotAnObjectIsRefused) {
  EXPECT_EQ(header_refusal(R"({"a":[1]})"),
            R"(model.safetensors: tensor "a": expected an object with dtype, shape and )"
            "data_offsets, got an array");
}

TEST(SafetensorsValidationTest, AnEntryWithoutDtypeShapeOrOffsetsIsRefused) {
  EXPECT_EQ(header_refusal(R"({"a":{"shape":[1],"data_offsets":[0,4]}})", as_bytes({1})),
            R"(model.safetensors: tensor "a": has no dtype)");
  EXPECT_EQ(header_refusal(R"({"a":{"dtype":"F32","data_offsets":[0,4]}})", as_bytes({1})),
            R"(model.safetensors: tensor "a": has no shape)");
  EXPECT_EQ(header_refusal(R"({"a":{"dtype":"F32","shape":[1]}})", as_bytes({1})),
            R"(model.safetensors: tensor "a": has no data_offsets)");
}

TEST(SafetensorsValidationTest, FieldsOfTheWrongTypeAreRefused) {
  EXPECT_EQ(header_refusal(R"({"a":{"dtype":32,"shape":[1],"data_offsets":[0,4]}})"),
            R"(model.safetensors: tensor "a": dtype is a number, expected a string)");
  EXPECT_EQ(header_refusal(one_tensor("F32", R"("1")", "[0,4]")),
            R"(model.safetensors: tensor "a": shape is a string, expected an array)");
  EXPECT_EQ(header_refusal(one_tensor("F32", "[1]", R"({"begin":0})")),
            R"(model.safetensors: tensor "a": data_offsets is an object, expected two unsigned )"
            "integers [begin, end]");
}

TEST(SafetensorsValidationTest, AnUnknownDtypeIsRefused) {
  const std::string known =
      "BOOL, U8, I8, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64, F8_E4M3, F8_E5M2";
  EXPECT_EQ(header_refusal(one_tensor("F33", "[1]", "[0,4]")),
            R"(model.safetensors: tensor "a": unknown dtype "F33" (known: )" + known + ")");
  EXPECT_EQ(header_refusal(one_tensor("f32", "[1]", "[0,4]")),
            R"(model.safetensors: tensor "a": unknown dtype "f32" (known: )" + known + ")");
}

TEST(SafetensorsValidationTest, NegativeOrNonIntegerDimensionsAreRefused) {
  const std::string expected = ", expected an integer from 0 to 9223372036854775807";
  EXPECT_EQ(header_refusal(one_tensor("F32", "[2,-3]", "[0,4]")),
            R"(model.safetensors: tensor "a": shape[1] is -3)" + expected);
  EXPECT_EQ(header_refusal(one_tensor("F32", "[1.5]", "[0,4]")),
            R"(model.safetensors: tensor "a": shape[0] is 1.5)" + expected);
  EXPECT_EQ(header_refusal(one_tensor("F32", R"(["2"])", "[0,4]")),
            R"(model.safetensors: tensor "a": shape[0] is a string)" + expected);
  EXPECT_EQ(header_refusal(one_tensor("F32", "[9223372036854775808,0]", "[0,0]")),
            R"(model.safetensors: tensor "a": shape[0] is 9223372036854775808)" + expected);
}

TEST(SafetensorsValidationTest, AnElementOrByteCountThatOverflowsIsRefused) {
  EXPECT_EQ(header_refusal(one_tensor("U8", "[4294967296,4294967296]", "[0,0]")),
            R"(model.safetensors: tensor "a": shape [4294967296, 4294967296] has more than )"
            "9223372036854775807 elements");
  EXPECT_EQ(header_refusal(one_tensor("F64", "[2305843009213693952,2]", "[0,0]")),
            R"(model.safetensors: tensor "a": F64 [2305843009213693952, 2] needs more than )"
            "18446744073709551615 bytes");
}

TEST(SafetensorsValidationTest, OffsetsThatAreNotTwoUnsignedIntegersAreRefused) {
  const std::string expected = ", expected two unsigned integers [begin, end]";
  EXPECT_EQ(header_refusal(one_tensor("F32", "[1]", "[0,4,8]")),
            R"(model.safetensors: tensor "a": data_offsets is an array of 3)" + expected);
  EXPECT_EQ(header_refusal(one_tensor("F32", "[1]", "[-1,4]")),
            R"(model.safetensors: tensor "a": data_offsets[0] is -1)" + expected);
  EXPECT_EQ(header_refusal(one_tensor("F32", "[1]", "[0,4.0]")),
            R"(model.safetensors: tensor "a": data_offsets[1] is 4.0)" + expected);
  EXPECT_EQ(header_refusal(one_tensor("F32", "[1]", R"([0,"4"])")),
            R"(model.safetensors: tensor "a": data_offsets[1] is a string)" + expected);
}

TEST(SafetensorsValidationTest, OffsetsThatDecreaseAreRefused) {
  EXPECT_EQ(header_refusal(one_tensor("F32", "[1]", "[8,4]"), std::string(8, '\0')),
            R"(model.safetensors: tensor "a": data_offsets [8, 4] end before they begin)");
}

TEST(SafetensorsValidationTest, OffsetsPastTheDataSectionAreRefused) {
  EXPECT_EQ(header_refusal(one_tensor("F32", "[2]", "[0,8]"), as_bytes({1})),
            R"(model.safetensors: tensor "a": data_offsets [0, 8] end past the data section, )"
            "which holds 4 bytes");
}

TEST(SafetensorsValidationTest, ASizeThatDisagreesWithShapeAndDtypeIsRefused) {
  const std::string header = R"({"model.shared.weight":)" + entry("F32", "[5,6]", "[0,100]") + "}";
  EXPECT_EQ(header_refusal(header, std::string(100, '\0')),
            R"(model.safetensors: tensor "model.shared.weight": data_offsets [0, 100] hold 100 )"
            "bytes, but F32 [5, 6] needs 120");
}

TEST(SafetensorsValidationTest, OverlappingTensorsAreRefused) {
  const std::string header =
      R"({"a":)" + entry("F32", "[2]", "[0,8]") + R"(,"b":)" + entry("F32", "[2]", "[4,12]") + "}";
  EXPECT_EQ(header_refusal(header, std::string(12, '\0')),
            R"(model.safetensors: tensors "a" (data_offsets [0, 8]) and "b" (data_offsets )"
            "[4, 12]) overlap");
}

TEST(SafetensorsValidationTest, BytesThatBelongToNoTensorAreRefusedAsBySafetensors04) {
  const std::string data(12, '\0');
  const std::string hole =
      R"({"a":)" + entry("F32", "[1]", "[0,4]") + R"(,"b":)" + entry("F32", "[1]", "[8,12]") + "}";
  EXPECT_EQ(header_refusal(hole, data),
            R"(model.safetensors: bytes [4, 8) of the data section belong to no tensor )"
            R"((between "a" and "b"))");
  EXPECT_EQ(header_refusal(one_tensor("F32", "[1]", "[8,12]"), data),
            R"(model.safetensors: bytes [0, 8) of the data section belong to no tensor )"
            R"((before "a"))");
  EXPECT_EQ(header_refusal(one_tensor("F32", "[1]", "[0,4]"), data),
            R"(model.safetensors: bytes [4, 12) of the data section belong to no tensor )"
            R"((after "a"))");
  EXPECT_EQ(header_refusal("{}", data),
            "model.safetensors: bytes [0, 12) of the data section belong to no tensor");
}

TEST(SafetensorsValidationTest, MetadataThatIsNotAMapOfStringsIsRefused) {
  EXPECT_EQ(header_refusal(R"({"__metadata__":["pt"]})"),
            "model.safetensors: __metadata__ is an array, expected an object of strings");
  EXPECT_EQ(header_refusal(R"({"__metadata__":{"format":1}})"),
            R"(model.safetensors: __metadata__: "format" is a number, expected a string)");
}

TEST(SafetensorsValidationTest, AMessageQuotesOnlyTheStartOfALongValue) {
  const std::string name(1000, 'n');
  EXPECT_EQ(header_refusal(R"({")" + name + R"(":)" + entry("F32", "[1]", "[0,4]") + "}"),
            R"(model.safetensors: tensor ")" + std::string(60, 'n') +
                R"(..." (1000 bytes): data_offsets [0, 4] end past the data section, which )"
                "holds 0 bytes");
  EXPECT_EQ(header_refusal(one_tensor(std::string(500, 'D'), "[1]", "[0,4]")),
            R"(model.safetensors: tensor "a": unknown dtype ")" + std::string(60, 'D') +
                R"(..." (500 bytes) (known: BOOL, U8, I8, I16, U16, F16, BF16, I32, U32, F32, )"
                "F64, I64, U64, F8_E4M3, F8_E5M2)");
}

// ---- writing ----------------------------------------------------------------------------------

TEST(WriteSafetensorsTest, WritesTheBytesOfTheSafetensorsLibrary) {
  // bindings/python/tests/test_pt.py of huggingface/safetensors: save({"test": zeros((2, 2))}),
  // the header padded with four spaces to 64 bytes.
  const std::string zeros(16, '\0');
  nmt::testing::ScratchDir dir;
  const std::string path = dir.file("test.safetensors");
  nmt::import::write_safetensors(path, {{"test", Dtype::kF32, {2, 2}, zeros}}, {});
  EXPECT_EQ(nmt::testing::read_file(path),
            "@\x00\x00\x00\x00\x00\x00\x00"s +
                R"({"test":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})" + "    " + zeros);
  // Metadata comes first; 95 bytes are padded to 96 ("`").
  EXPECT_EQ(nmt::import::encode_safetensors_header({{"test1", Dtype::kI32, {2, 2}, zeros}},
                                                   {{"framework", "pt"}}, path),
            "`\x00\x00\x00\x00\x00\x00\x00"s +
                R"({"__metadata__":{"framework":"pt"},"test1":{"dtype":"I32","shape":[2,2],)"
                R"("data_offsets":[0,16]}} )");
}

TEST(WriteSafetensorsTest, PadsTheHeaderWithSpacesToAMultipleOf8) {
  for (std::size_t length = 1; length <= 9; ++length) {
    const std::string name(length, 'w');
    const std::string encoded =
        nmt::import::encode_safetensors_header({{name, Dtype::kU8, {1}, "x"}}, {}, "x");
    const std::string json =
        R"({")" + name + R"(":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
    const std::size_t padded = (json.size() + 7) / 8 * 8;
    EXPECT_EQ(encoded, u64_le(padded) + json + std::string(padded - json.size(), ' ')) << length;
  }
}

TEST(WriteSafetensorsTest, RoundTripsSeveralDtypesAndAZeroElementTensor) {
  const std::string f32 = as_bytes({1.5f, -2.0f, 0.25f, 8.0f, 1e-3f, 3.0f});
  const std::string f16 = "\x00\x3C\x00\xC1"s;
  const std::string bf16 = "\x80\x3F\x20\xC0"s;
  const std::string i64 = u64_le(5) + u64_le(static_cast<uint64_t>(-7));
  const std::string u8 = "\x00\x01\xFF"s;
  const std::string boolean = "\x01\x00"s;
  const std::string f64 = u64_le(0x3FF8000000000000);  // 1.5
  const std::vector<TensorToWrite> tensors = {{"encoder.weight", Dtype::kF32, {2, 3}, f32},
                                              {"half", Dtype::kF16, {2}, f16},
                                              {"brain", Dtype::kBF16, {2}, bf16},
                                              {"empty", Dtype::kF32, {0, 4}, ""},
                                              {"ids", Dtype::kI64, {2}, i64},
                                              {"bytes", Dtype::kU8, {3}, u8},
                                              {"mask", Dtype::kBool, {1, 2}, boolean},
                                              {"scale", Dtype::kF64, {}, f64}};
  nmt::testing::ScratchDir dir;
  const std::string path = dir.file("model.safetensors");
  nmt::import::write_safetensors(path, tensors, {{"format", "pt"}, {"source", "nmt"}});

  const SafetensorsFile file = SafetensorsFile::open(path);
  EXPECT_EQ(file.metadata(),
            (std::map<std::string, std::string>{{"format", "pt"}, {"source", "nmt"}}));
  ASSERT_EQ(file.tensors().size(), tensors.size());
  const uint64_t data_start = file.tensors()[0].offset;
  EXPECT_EQ(data_start % 8, 0u);
  uint64_t offset = data_start;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& read = file.tensors()[i];
    EXPECT_EQ(read.name, tensors[i].name);
    EXPECT_EQ(read.dtype, tensors[i].dtype) << read.name;
    EXPECT_EQ(read.shape, tensors[i].shape) << read.name;
    EXPECT_EQ(read.offset, offset) << read.name;
    EXPECT_EQ(file.bytes(read), tensors[i].bytes) << read.name;
    offset += tensors[i].bytes.size();
  }
  EXPECT_EQ(std::filesystem::file_size(path), offset);
  EXPECT_EQ(file.to_float(*file.find("encoder.weight")),
            (std::vector<float>{1.5f, -2.0f, 0.25f, 8.0f, 1e-3f, 3.0f}));
  EXPECT_EQ(file.to_float(*file.find("half")), (std::vector<float>{1.0f, -2.5f}));
  EXPECT_EQ(file.to_float(*file.find("brain")), (std::vector<float>{1.0f, -2.5f}));
  EXPECT_TRUE(file.to_float(*file.find("empty")).empty());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

// The nmt::Error that writing tensors to path throws.
std::string write_refusal(const std::string& path, const std::vector<TensorToWrite>& tensors) {
  try {
    nmt::import::write_safetensors(path, tensors, {});
  } catch (const nmt::Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "written";
  return "";
}

TEST(WriteSafetensorsTest, ARefusedWriteLeavesNoFileBehind) {
  nmt::testing::ScratchDir dir;
  const std::string path = dir.file("model.safetensors");
  const std::string four = as_bytes({1});
  EXPECT_EQ(write_refusal(path, {{"a", Dtype::kF32, {1}, four}, {"a", Dtype::kF32, {1}, four}}),
            path + R"(: tensor "a": the name is given twice)");
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(WriteSafetensorsTest, ARefusedWriteKeepsThePreviousFile) {
  nmt::testing::ScratchDir dir;
  const std::string path = dir.write("model.safetensors", "previous");
  EXPECT_EQ(write_refusal(path, {{"w", Dtype::kF32, {3}, as_bytes({1, 2})}}),
            path + R"(: tensor "w": 8 bytes given, but F32 [3] needs 12)");
  EXPECT_EQ(nmt::testing::read_file(path), "previous");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(WriteSafetensorsTest, NamesShapesAndSizesAreCheckedBeforeWriting) {
  nmt::testing::ScratchDir dir;
  const std::string path = dir.file("model.safetensors");
  EXPECT_EQ(write_refusal(path, {{"__metadata__", Dtype::kU8, {0}, ""}}),
            path + R"(: tensor "__metadata__": the name is reserved for the metadata)");
  EXPECT_EQ(write_refusal(path, {{"w", Dtype::kU8, {2, -1}, ""}}),
            path + R"(: tensor "w": shape [2, -1] has a negative dimension)");
  EXPECT_EQ(write_refusal(path, {{"w", Dtype::kU8, {4294967296, 4294967296}, ""}}),
            path + R"(: tensor "w": shape [4294967296, 4294967296] has more than )"
                   "9223372036854775807 elements");
  EXPECT_EQ(write_refusal(path, {{"\xFF", Dtype::kU8, {0}, ""}}),
            path + ": a tensor name or metadata string is not valid UTF-8");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(TorchFreeTest, SafetensorsDoesNotLoadTorch) {
  EXPECT_EQ(nmt::import::dtype_size(Dtype::kBF16), 2u);
  EXPECT_EQ(nmt::testing::loaded_torch_library(), "");
}

}  // namespace
