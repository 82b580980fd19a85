#include "nmt/language_names.h"

#include <cctype>
#include <utility>

namespace nmt {
namespace {

constexpr std::pair<const char*, const char*> kLanguageNames[] = {
    {"ar", "Arabic"},     {"az", "Azerbaijani"}, {"bg", "Bulgarian"},  {"bn", "Bengali"},
    {"ca", "Catalan"},    {"cs", "Czech"},       {"da", "Danish"},     {"de", "German"},
    {"el", "Greek"},      {"en", "English"},     {"eo", "Esperanto"},  {"es", "Spanish"},
    {"et", "Estonian"},   {"eu", "Basque"},      {"fa", "Persian"},    {"fi", "Finnish"},
    {"fr", "French"},     {"ga", "Irish"},       {"gl", "Galician"},   {"he", "Hebrew"},
    {"hi", "Hindi"},      {"hu", "Hungarian"},   {"id", "Indonesian"}, {"it", "Italian"},
    {"ja", "Japanese"},   {"ko", "Korean"},      {"lt", "Lithuanian"}, {"lv", "Latvian"},
    {"ms", "Malay"},      {"nb", "Norwegian"},   {"nl", "Dutch"},      {"pl", "Polish"},
    {"pt", "Portuguese"}, {"ro", "Romanian"},    {"ru", "Russian"},    {"sk", "Slovak"},
    {"sl", "Slovenian"},  {"sq", "Albanian"},    {"sv", "Swedish"},    {"th", "Thai"},
    {"tl", "Tagalog"},    {"tr", "Turkish"},     {"uk", "Ukrainian"},  {"ur", "Urdu"},
    {"vi", "Vietnamese"}, {"zh", "Chinese"}};

}  // namespace

std::string language_name(const std::string& code) {
  std::string lowered = code;
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [known, name] : kLanguageNames) {
    if (lowered == known) return name;
  }
  return code;
}

}  // namespace nmt
