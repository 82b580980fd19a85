// Helpers of the browser tests: run Debian's headless Chromium offline on a local page (a
// screenshot, or the DOM after the page's scripts ran) and measure a PNG screenshot with libpng.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#ifdef NMT_HAVE_PNG
#include <png.h>
#endif

#include <gtest/gtest.h>

#include "test_utils.h"

namespace nmt::testing {

inline const char* kChromium = "/usr/bin/chromium";

inline bool has_chromium() { return std::filesystem::exists(kChromium); }

// Runs Chromium headless and without a sandbox (tests may run as root) on `url` in a window of
// `window` ("width,height") pixels, with a fresh profile in scratch; `arguments` come before the
// URL. Its stdout goes to scratch/<name>.out and its stderr to scratch/<name>.log. Returns the exit
// status (124: timed out).
inline int run_chromium_at(const ScratchDir& scratch,
                           const std::string& name,
                           const std::string& arguments,
                           const std::string& url,
                           const std::string& window = "1280,1000") {
  const std::string command =
      std::string("timeout 60 ") + kChromium +
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
      " --disable-background-networking --disable-component-update --disable-sync"
      " --user-data-dir='" +
      scratch.file(name + "-profile") + "' --window-size=" + window + " " + arguments + " '" + url +
      "' > '" + scratch.file(name + ".out") + "' 2> '" + scratch.file(name + ".log") + "'";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The same, offline, on a local page (a file) in a 1280 x 1000 window.
inline int run_chromium(const ScratchDir& scratch,
                        const std::string& name,
                        const std::string& arguments,
                        const std::string& page) {
  return run_chromium_at(scratch, name, arguments, "file://" + page);
}

// What a screenshot shows, roughly.
struct ScreenshotStats {
  bool is_read = false;  // false when the PNG could not be decoded
  int width = 0;
  int height = 0;
  double non_white_share = 0;  // pixels with a channel below 240
  double colourful_share = 0;  // pixels whose channels differ by more than 48 (not grey)
  std::size_t distinct_colours = 0;
};

#ifdef NMT_HAVE_PNG
inline ScreenshotStats measure_png(const std::string& path) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  ScreenshotStats stats;
  if (!png_image_begin_read_from_file(&image, path.c_str())) return stats;
  image.format = PNG_FORMAT_RGB;
  std::vector<unsigned char> pixels(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) {
    png_image_free(&image);
    return stats;
  }
  std::size_t non_white = 0;
  std::size_t colourful = 0;
  std::set<unsigned> colours;
  const std::size_t count = pixels.size() / 3;
  for (std::size_t i = 0; i < count; ++i) {
    const unsigned r = pixels[3 * i], g = pixels[3 * i + 1], b = pixels[3 * i + 2];
    if (r < 240 || g < 240 || b < 240) ++non_white;
    const unsigned high = std::max({r, g, b}), low = std::min({r, g, b});
    if (high - low > 48) ++colourful;
    colours.insert(r << 16 | g << 8 | b);
  }
  stats.is_read = count > 0;
  stats.width = static_cast<int>(image.width);
  stats.height = static_cast<int>(image.height);
  stats.non_white_share = count ? static_cast<double>(non_white) / static_cast<double>(count) : 0.0;
  stats.colourful_share = count ? static_cast<double>(colourful) / static_cast<double>(count) : 0.0;
  stats.distinct_colours = colours.size();
  return stats;
}
#endif

// Text as the DOM serialiser writes it between tags: only &, < and > are escaped (quotes are not).
inline std::string dom_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

inline std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Takes the screenshot, keeps a copy in $NMT_SCREENSHOT_DIR when set, and checks it is not blank.
inline void expect_picture(const ScratchDir& scratch,
                           const std::string& page,
                           double min_non_white_share,
                           double min_colourful_share,
                           const std::string& name) {
  const std::string png = scratch.file(name + ".png");
  ASSERT_EQ(run_chromium(scratch, name + "-shot", "--screenshot='" + png + "'", page), 0)
      << read_file(scratch.file(name + "-shot.log"));
  ASSERT_TRUE(std::filesystem::exists(png)) << read_file(scratch.file(name + "-shot.log"));
  if (const char* keep = std::getenv("NMT_SCREENSHOT_DIR")) {
    std::filesystem::copy_file(png, std::string(keep) + "/" + name + ".png",
                               std::filesystem::copy_options::overwrite_existing);
  }
#ifdef NMT_HAVE_PNG
  const ScreenshotStats stats = measure_png(png);
  ASSERT_TRUE(stats.is_read) << "cannot decode " << png;
  const std::string measured = name + ".png: " + std::to_string(stats.non_white_share * 100) +
                               "% not white, " + std::to_string(stats.colourful_share * 100) +
                               "% coloured, " + std::to_string(stats.distinct_colours) + " colours";
  EXPECT_EQ(stats.width, 1280);
  EXPECT_EQ(stats.height, 1000);
  EXPECT_GT(stats.non_white_share, min_non_white_share)
      << "the screenshot is almost blank: " << measured;
  EXPECT_GT(stats.colourful_share, min_colourful_share)
      << "the screenshot shows hardly any colour: " << measured;
  EXPECT_GT(stats.distinct_colours, 16u) << "the screenshot has too few colours: " << measured;
#else
  (void)min_non_white_share;
  (void)min_colourful_share;
  EXPECT_GT(std::filesystem::file_size(png), 10000u)
      << "built without libpng: only the size is checked";
#endif
}

// A DOM without its <script> elements (whose source would match too).
inline std::string without_scripts(std::string dom) {
  for (std::size_t at = dom.find("<script"); at != std::string::npos;
       at = dom.find("<script", at)) {
    const std::size_t end = dom.find("</script>", at);
    dom.erase(at, end == std::string::npos ? std::string::npos : end + 9 - at);
  }
  return dom;
}

// The DOM after the page's scripts ran, without the <script> elements.
inline std::string rendered_dom(const ScratchDir& scratch,
                                const std::string& page,
                                const std::string& name) {
  const int status = run_chromium(scratch, name + "-dom", "--dump-dom", page);
  EXPECT_EQ(status, 0) << read_file(scratch.file(name + "-dom.log"));
  return without_scripts(read_file(scratch.file(name + "-dom.out")));
}

}  // namespace nmt::testing
