#include "nmt/io.h"

#include <ftw.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "nmt/error.h"

namespace nmt {

void commit_file(const std::string& tmp_path, const std::string& path) {
  std::error_code error;
  std::filesystem::rename(tmp_path, path, error);
  if (error) {
    std::filesystem::remove(tmp_path, error);
    throw Error("cannot move " + tmp_path + " to " + path + ": " + error.message());
  }
}

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  const std::string tmp_path = path + ".tmp";
  {
    std::ofstream out(tmp_path, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + tmp_path + ": " + std::strerror(errno));
    try {
      write(out);
    } catch (...) {
      out.close();
      std::error_code ignored;
      std::filesystem::remove(tmp_path, ignored);
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      std::error_code ignored;
      std::filesystem::remove(tmp_path, ignored);
      throw Error("cannot write " + tmp_path + " (disk full?)");
    }
  }
  commit_file(tmp_path, path);
}

void write_text_atomically(const std::string& path, const std::string& text) {
  write_file_atomically(path, [&text](std::ostream& out) { out << text; });
}

bool remove_tree(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0) return true;
  // Depth first (FTW_DEPTH), without following symbolic links (FTW_PHYS).
  const auto remove_entry = [](const char* entry, const struct stat*, int, struct FTW*) {
    return ::remove(entry);
  };
  return ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path + ": " + std::strerror(errno));
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace nmt
