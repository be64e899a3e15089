#include "service/soap/xml_prolog.h"

namespace lather {

XmlProlog ScanXmlProlog(std::string_view body) {
  XmlProlog prolog;
  size_t p = 0;
  if (body.substr(0, 3) == "\xEF\xBB\xBF") p = 3;
  for (;;) {
    while (p < body.size() && (body[p] == ' ' || body[p] == '\t' || body[p] == '\r' || body[p] == '\n')) ++p;
    if (p >= body.size() || body[p] != '<') return prolog;
    const std::string_view rest = body.substr(p);
    if (rest.substr(0, 4) == "<!--") {
      const size_t end = rest.find("-->", 4);
      if (end == std::string_view::npos) return prolog;
      p += end + 3;
    } else if (rest.substr(0, 2) == "<?") {
      const size_t end = rest.find("?>", 2);
      if (end == std::string_view::npos) return prolog;
      p += end + 2;
    } else if (rest.substr(0, 2) == "<!") {
      prolog.has_doctype = true;  // <!DOCTYPE, or any other declaration: refused alike
      return prolog;
    } else {
      size_t end = 1;
      while (end < rest.size() && rest[end] != '>' && rest[end] != '/' && rest[end] != ' ' &&
             rest[end] != '\t' && rest[end] != '\r' && rest[end] != '\n') {
        ++end;
      }
      prolog.root_name = rest.substr(1, end - 1);
      return prolog;
    }
  }
}

}  // namespace lather
