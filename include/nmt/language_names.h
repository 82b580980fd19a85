// English names of language codes, for what people read: LibreTranslate's /languages answer and
// the metadata of an Argos Translate package. ISO 639-1 codes of the languages Tatoeba-style
// corpora and Argos Translate's packages most often pair.
#pragma once

#include <string>

namespace nmt {

// The English name of code ("es" -> "Spanish", any letter case), or code itself when the table
// has none.
std::string language_name(const std::string& code);

}  // namespace nmt
