// Helpers of the browser tests: run Debian's headless Chromium offline on a local page (a screenshot,
// or the DOM after the page's scripts ran) and measure a PNG screenshot with libpng.
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

#include "test_utils.h"

namespace nmt::testing {

inline const char* kChromium = "/usr/bin/chromium";

inline bool has_chromium() { return std::filesystem::exists(kChromium); }

// Runs Chromium headless, offline and without a sandbox (tests may run as root) on a local page, with
// a fresh profile in scratch; `arguments` come before the page's file:// URL. Its stdout goes to
// scratch/<name>.out and its stderr to scratch/<name>.log. Returns the exit status (124: timed out).
inline int run_chromium(const ScratchDir& scratch,
                        const std::string& name,
                        const std::string& arguments,
                        const std::string& page) {
  const std::string command = std::string("timeout 60 ") + kChromium +
                              " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                              " --disable-background-networking --disable-component-update --disable-sync"
                              " --user-data-dir='" +
                              scratch.file(name + "-profile") + "' --window-size=1280,1000 " + arguments +
                              " 'file://" + page + "' > '" + scratch.file(name + ".out") + "' 2> '" +
                              scratch.file(name + ".log") + "'";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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

}  // namespace nmt::testing
