// CTranslate2's model.bin as written by nmt: header, name order, types, shapes, values and aliases,
// read back by an independent reader (model_bin_reader.h); byte-exact header golden values.
#include "nmt/export/model_bin.h"

#include <gtest/gtest.h>

#include "export/model_bin_reader.h"
#include "nmt/error.h"

namespace nmt::exporter {
namespace {

std::string write(std::vector<Ct2Variable> variables, ModelBinSummary* summary = nullptr) {
  std::string bytes;
  const ModelBinSummary written = write_model_bin(
      "TransformerSpec", 7, std::move(variables), [&bytes](const void* data, std::size_t size) {
        bytes.append(static_cast<const char*>(data), size);
      });
  if (summary) *summary = written;
  return bytes;
}

TEST(ModelBinTest, HeaderIsVersion6TheSpecNameAndItsRevisionLittleEndian) {
  const std::string bytes = write({});
  const std::string expected(
      "\x06\x00\x00\x00"   // binary version 6
      "\x10\x00"           // 16 bytes: "TransformerSpec" and NUL
      "TransformerSpec\0"  //
      "\x07\x00\x00\x00"   // revision 7
      "\x00\x00\x00\x00"   // no variables
      "\x00\x00\x00\x00",  // no aliases
      34);
  EXPECT_EQ(bytes, expected);
}

TEST(ModelBinTest, VariablesAreSortedByNameWithTheirShapesTypesAndValues) {
  const float matrix[] = {1.5f, -2.0f, 3.25f, 0.0f, 5.0f, -6.5f};
  const std::string bytes = write({Ct2Variable::float32("encoder/layer_10/w", {2, 3}, matrix),
                                   Ct2Variable::int16_scalar("encoder/num_heads", 4),
                                   Ct2Variable::int8_scalar("decoder/pre_norm", 1),
                                   Ct2Variable::float32("encoder/layer_1/w", {3}, matrix + 3)});
  const auto model = testing::read_model_bin(bytes);
  EXPECT_EQ(model.version, 6u);
  EXPECT_EQ(model.spec, "TransformerSpec");
  EXPECT_EQ(model.revision, 7u);
  // '/' sorts before '0': layer_1/ comes before layer_10/, as Python's sorted() orders them.
  EXPECT_EQ(model.names(), (std::vector<std::string>{"decoder/pre_norm", "encoder/layer_1/w",
                                                     "encoder/layer_10/w", "encoder/num_heads"}));
  const auto& big = model.variable("encoder/layer_10/w");
  EXPECT_EQ(big.type, 0);
  EXPECT_EQ(big.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_FLOAT_EQ(big.f32(2), 3.25f);
  EXPECT_FLOAT_EQ(big.f32(5), -6.5f);
  EXPECT_EQ(model.variable("encoder/layer_1/w").f32(2), -6.5f);
  EXPECT_EQ(model.variable("encoder/num_heads").type, 2);
  EXPECT_TRUE(model.variable("encoder/num_heads").shape.empty());
  EXPECT_EQ(model.variable("encoder/num_heads").scalar(), 4);
  EXPECT_EQ(model.variable("decoder/pre_norm").type, 1);
  EXPECT_EQ(model.variable("decoder/pre_norm").scalar(), 1);
  EXPECT_TRUE(model.aliases.empty());
}

TEST(ModelBinTest, EqualArraysAreStoredOnceUnderTheFirstNameAndScalarsNeverAliased) {
  const float table[] = {0.0f, 1.0f, 0.5f, 0.25f};
  const float other[] = {0.0f, 1.0f, 0.5f, 0.5f};
  ModelBinSummary summary;
  const std::string bytes =
      write({Ct2Variable::float32("encoder/embeddings_0/weight", {2, 2}, table),
             Ct2Variable::float32("decoder/projection/weight", {2, 2}, table),
             Ct2Variable::float32("decoder/embeddings/weight", {2, 2}, table),
             Ct2Variable::float32("decoder/flat", {4}, table),  // same bytes, another shape
             Ct2Variable::float32("decoder/other", {2, 2}, other),
             Ct2Variable::int8_scalar("decoder/pre_norm", 1),
             Ct2Variable::int8_scalar("encoder/pre_norm", 1)},
            &summary);
  const auto model = testing::read_model_bin(bytes);
  EXPECT_EQ(model.names(),
            (std::vector<std::string>{"decoder/embeddings/weight", "decoder/flat", "decoder/other",
                                      "decoder/pre_norm", "encoder/pre_norm"}));
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"decoder/projection/weight", "decoder/embeddings/weight"},
      {"encoder/embeddings_0/weight", "decoder/embeddings/weight"}};
  EXPECT_EQ(model.aliases, expected);
  EXPECT_EQ(summary.variables, 5);
  EXPECT_EQ(summary.aliases, 2);
  EXPECT_EQ(summary.bytes, static_cast<int64_t>(bytes.size()));
}

TEST(ModelBinTest, RefusesTwoVariablesOfOneNameAndAPayloadThatDoesNotFitItsShape) {
  const float values[] = {1.0f, 2.0f};
  try {
    write({Ct2Variable::float32("decoder/x", {2}, values),
           Ct2Variable::float32("decoder/x", {2}, values)});
    FAIL() << "a repeated name must be refused";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "model.bin: two variables are named decoder/x");
  }
  Ct2Variable wrong = Ct2Variable::float32("decoder/y", {2}, values);
  wrong.shape = {3};
  try {
    write({wrong});
    FAIL() << "a payload that does not fit its shape must be refused";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "model.bin: decoder/y holds 8 bytes, its shape and type need 12");
  }
}

}  // namespace
}  // namespace nmt::exporter
