#include "text/sentencepiece_loader.h"

#include "nmt/private_module.h"

namespace nmt::text {

std::shared_ptr<SentencePieceBackend> make_sentencepiece_backend() {
  std::shared_ptr<const PrivateModule> module =
      PrivateModule::load("libnmt_sentencepiece.so", "NMT_SENTENCEPIECE_MODULE",
                          NMT_SENTENCEPIECE_MODULE_PATH, "nmt_create_sentencepiece_backend");
  using Factory = SentencePieceBackend* (*)();
  const auto factory =
      reinterpret_cast<Factory>(module->symbol("nmt_create_sentencepiece_backend"));
  // The deleter destroys the backend first, then releases its reference to the module.
  return std::shared_ptr<SentencePieceBackend>(
      factory(), [module](SentencePieceBackend* backend) { delete backend; });
}

}  // namespace nmt::text
