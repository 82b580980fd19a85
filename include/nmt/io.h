// File helpers shared by every module that writes results: atomic writes (temporary file in the
// same directory, then rename, so a crash never leaves a half-written file in place of a good one)
// and whole-file reads. Torch-free; throws nmt::Error with the path in the message; never logs.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace nmt {

// Calls write(stream) on "<path>.tmp", flushes, then renames it over path.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

// Writes text to path atomically.
void write_text_atomically(const std::string& path, const std::string& text);

// Renames tmp_path over path, throwing nmt::Error naming both on failure.
void commit_file(const std::string& tmp_path, const std::string& path);

// Deletes a directory tree (or a file); true when nothing is left. Used instead of
// std::filesystem::remove_all, whose copy exported by the PyTorch wheel's libtorch.so crashes
// when calls bind to it. Never throws.
bool remove_tree(const std::string& path);

// Whole file as a string; throws nmt::Error when it cannot be opened.
std::string read_text_file(const std::string& path);

// Lines of a file without their "\n" (and "\r" before it).
std::vector<std::string> read_lines(const std::string& path);

}  // namespace nmt
