// The text of an HTML fragment or document, so that it can be translated with its markup kept:
// parsed by libxml2's HTML parser (which repairs what browsers repair: unclosed tags, stray
// end tags, bare ampersands), its text nodes handed out for translation, and the tree written
// back with each translated. Tags, attributes, comments and the text of script, style, code, pre,
// textarea, template and of elements with translate="no" (and their descendants, unless one says
// translate="yes", as HTML inherits the attribute) stay as they were. Entities are decoded in the
// texts and written back as the serializer needs (&amp;, &lt;, ...; other characters as UTF-8).
//
// Input that begins (after whitespace) with "<!DOCTYPE" or "<html" is a document and is written
// back as one; anything else is a fragment (a rich-text field, a part of a page) and is written
// back without the html and body elements the parser puts around it. Input libxml2 gives up on
// (elements nested deeper than 256 levels) is refused, never translated in part. Torch-free.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::text {

class HtmlText {
 public:
  // Throws nmt::Error with libxml2's reason when it gives up ("cannot parse the HTML text:
  // Excessive depth in document: 256 use XML_PARSE_HUGE option"); it repairs everything else.
  explicit HtmlText(std::string_view html);
  ~HtmlText();
  HtmlText(const HtmlText&) = delete;
  HtmlText& operator=(const HtmlText&) = delete;

  // The translatable text nodes' texts, in document order; whitespace-only nodes are left out.
  const std::vector<std::string>& texts() const { return texts_; }

  // The HTML with texts()[i] replaced by translations[i]. Throws std::invalid_argument when the
  // counts differ. May be called again with other translations.
  std::string render(const std::vector<std::string>& translations) const;

 private:
  struct Tree;
  std::unique_ptr<Tree> tree_;
  std::vector<std::string> texts_;
};

}  // namespace nmt::text
