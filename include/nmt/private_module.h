// A shared library of nmt's own, loaded at run time in a symbol scope of its own
// (RTLD_LOCAL | RTLD_DEEPBIND): the module and the libraries it brings resolve their symbols among
// themselves before the process's. SentencePiece needs that: Debian's libsentencepiece.so carries
// a protobuf that clashes with the one Debian's LibTorch links (text/sentencepiece_backend.h).
// Torch-free; throws nmt::Error naming the places tried when a module cannot be loaded; never logs.
#pragma once

#include <memory>
#include <string>

namespace nmt {

class PrivateModule {
 public:
  // Loads file_name from $environment_variable, next to the running executable, or build_path,
  // the first that loads and exports required_symbol.
  static std::shared_ptr<const PrivateModule> load(const std::string& file_name,
                                                   const char* environment_variable,
                                                   const std::string& build_path,
                                                   const char* required_symbol);
  ~PrivateModule();
  PrivateModule(const PrivateModule&) = delete;
  PrivateModule& operator=(const PrivateModule&) = delete;

  // The address of an exported symbol, or null.
  void* symbol(const char* name) const;
  const std::string& path() const { return path_; }

 private:
  PrivateModule(void* handle, std::string path);
  void* handle_;
  std::string path_;
};

}  // namespace nmt
