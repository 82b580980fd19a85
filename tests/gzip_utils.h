// gzip data for tests of compressed corpora: one member, or a bomb of many members that inflates
// to gigabytes from a file of a few megabytes.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace nmt::testing {

// text as one gzip member.
inline std::string gzip(const std::string& text) {
  z_stream stream{};
  deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);  // 15 + 16: gzip header
  std::string compressed(deflateBound(&stream, text.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(compressed.data());
  stream.avail_out = static_cast<uInt>(compressed.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  compressed.resize(stream.total_out);
  deflateEnd(&stream);
  return compressed;
}

// `members` gzip members of `text` repeated to `member_bytes` each (concatenated members read as
// one stream): members * member_bytes of content in about a thousandth of that.
inline std::string gzip_bomb(const std::string& text, std::size_t member_bytes, int members) {
  std::string plain;
  plain.reserve(member_bytes + text.size());
  while (plain.size() < member_bytes) plain += text;
  const std::string member = gzip(plain);
  std::string bomb;
  bomb.reserve(member.size() * static_cast<std::size_t>(members));
  for (int i = 0; i < members; ++i) bomb += member;
  return bomb;
}

}  // namespace nmt::testing
