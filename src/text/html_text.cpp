#include "nmt/text/html_text.h"

#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/parser.h>

#include <cctype>
#include <climits>
#include <new>
#include <stdexcept>
#include <utility>

#include "nmt/error.h"

namespace nmt::text {
namespace {

// The element a fragment is parsed inside: a name no page uses, so that no end tag of the
// fragment closes it and every node the fragment makes ends up within it.
constexpr std::string_view kFragmentOpen = "<html><body><nmt-fragment>";
constexpr const char* kFragmentElement = "nmt-fragment";

// Elements whose text is code, or not text a reader sees as prose.
constexpr const char* kUntranslated[] = {"script", "style", "code", "pre", "textarea", "template"};

constexpr int kParseOptions =
    HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | HTML_PARSE_NODEFDTD;

bool has_name(const xmlNode* node, const char* name) {
  return node->name && xmlStrcasecmp(node->name, BAD_CAST name) == 0;
}

bool is_document(std::string_view html) {
  std::size_t at = 0;
  while (at < html.size() && std::isspace(static_cast<unsigned char>(html[at]))) ++at;
  const auto starts_with = [&](std::string_view prefix) {
    if (html.size() - at < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(html[at + i])) != prefix[i]) return false;
    }
    return true;
  };
  return starts_with("<!doctype") || starts_with("<html");
}

bool is_blank(const xmlChar* text) {
  for (; text && *text; ++text) {
    if (!std::isspace(*text)) return false;
  }
  return true;
}

// translate="no" / "yes" on an element, else what its parent had.
bool translates(const xmlNode* element, bool inherited) {
  xmlChar* value = xmlGetProp(element, BAD_CAST "translate");
  if (!value) return inherited;
  bool result = inherited;
  if (xmlStrcasecmp(value, BAD_CAST "no") == 0) result = false;
  if (xmlStrcasecmp(value, BAD_CAST "yes") == 0 || *value == '\0') result = true;
  xmlFree(value);
  return result;
}

bool is_untranslated_element(const xmlNode* element) {
  for (const char* name : kUntranslated) {
    if (has_name(element, name)) return true;
  }
  return false;
}

xmlNode* child_named(xmlNode* parent, const char* name) {
  for (xmlNode* child = parent ? parent->children : nullptr; child; child = child->next) {
    if (child->type == XML_ELEMENT_NODE && has_name(child, name)) return child;
  }
  return nullptr;
}

}  // namespace

struct HtmlText::Tree {
  xmlDoc* document = nullptr;
  xmlNode* fragment = nullptr;  // the element holding a fragment; null for a document
  std::vector<xmlNode*> text_nodes;

  ~Tree() {
    if (document) xmlFreeDoc(document);
  }

  // Every translatable text node under `top`, in document order, without recursion: the depth of
  // a hostile document costs no stack.
  void collect(xmlNode* top, std::vector<std::string>& texts) {
    std::vector<std::pair<xmlNode*, bool>> pending;  // a node and whether its parent translates
    for (xmlNode* child = top->last; child; child = child->prev) pending.emplace_back(child, true);
    while (!pending.empty()) {
      const auto [node, inherited] = pending.back();
      pending.pop_back();
      if (node->type == XML_TEXT_NODE && inherited && !is_blank(node->content)) {
        text_nodes.push_back(node);
        texts.emplace_back(reinterpret_cast<const char*>(node->content));
      } else if (node->type == XML_ELEMENT_NODE && !is_untranslated_element(node)) {
        const bool own = translates(node, inherited);
        for (xmlNode* child = node->last; child; child = child->prev)
          pending.emplace_back(child, own);
      }
    }
  }
};

HtmlText::HtmlText(std::string_view html) : tree_(std::make_unique<Tree>()) {
  static const bool is_initialised = (xmlInitParser(), true);
  (void)is_initialised;
  const bool whole = is_document(html);
  const std::string source =
      whole ? std::string(html) : std::string(kFragmentOpen) + std::string(html);
  if (source.size() > static_cast<std::size_t>(INT_MAX)) throw Error("HTML text over 2 GiB");
  const std::unique_ptr<htmlParserCtxt, void (*)(htmlParserCtxt*)> parser(htmlNewParserCtxt(),
                                                                          htmlFreeParserCtxt);
  if (!parser) throw std::bad_alloc();
  tree_->document = htmlCtxtReadMemory(parser.get(), source.data(), static_cast<int>(source.size()),
                                       nullptr, "UTF-8", kParseOptions);
  // libxml2 repairs what it can and gives up only on a fatal error, with a document holding
  // what came before it: refused rather than translated with the rest silently dropped.
  const xmlError* error = xmlCtxtGetLastError(parser.get());
  if (error && error->level == XML_ERR_FATAL) {
    std::string reason = error->message ? error->message : "unknown error";
    while (!reason.empty() && std::isspace(static_cast<unsigned char>(reason.back()))) {
      reason.pop_back();
    }
    throw Error("cannot parse the HTML text: " + reason);
  }
  if (!tree_->document) throw Error("cannot parse the HTML text");
  xmlNode* root = xmlDocGetRootElement(tree_->document);
  if (!whole) {
    tree_->fragment = child_named(child_named(root, "body"), kFragmentElement);
    if (!tree_->fragment) throw Error("cannot parse the HTML text as a fragment");
  }
  tree_->collect(whole ? reinterpret_cast<xmlNode*>(tree_->document) : tree_->fragment, texts_);
}

HtmlText::~HtmlText() = default;

std::string HtmlText::render(const std::vector<std::string>& translations) const {
  if (translations.size() != tree_->text_nodes.size()) {
    throw std::invalid_argument("HtmlText::render: " + std::to_string(translations.size()) +
                                " translations for " + std::to_string(tree_->text_nodes.size()) +
                                " texts");
  }
  for (std::size_t i = 0; i < translations.size(); ++i) {
    // A text node's content is plain text: the serializer escapes it.
    xmlNodeSetContent(tree_->text_nodes[i], BAD_CAST translations[i].c_str());
  }
  xmlBuffer* buffer = xmlBufferCreate();
  xmlOutputBuffer* out = xmlOutputBufferCreateBuffer(buffer, nullptr);
  if (tree_->fragment) {
    for (xmlNode* node = tree_->fragment->children; node; node = node->next) {
      htmlNodeDumpFormatOutput(out, tree_->document, node, "UTF-8", 0);
    }
  } else {
    htmlDocContentDumpFormatOutput(out, tree_->document, "UTF-8", 0);
  }
  xmlOutputBufferFlush(out);
  std::string html(reinterpret_cast<const char*>(xmlBufferContent(buffer)),
                   static_cast<std::size_t>(xmlBufferLength(buffer)));
  xmlOutputBufferClose(out);
  xmlBufferFree(buffer);
  return html;
}

}  // namespace nmt::text
