#include "tests/integration/soap_fixtures.h"

#include <zlib.h>

#include <stdexcept>

#include "tests/integration/raw_http.h"

namespace lather::test {

Client MakeClient(const ServiceProcess& service, bool soap12, int timeout_seconds) {
  ClientOptions options;
  options.url = service.url();
  options.soap12 = soap12;
  options.timeout_seconds = timeout_seconds;
  return Client(options);
}

std::string Envelope(const char* ns, const std::string& body_content, const std::string& prolog) {
  return prolog + "<s:Envelope xmlns:s=\"" + ns + "\" xmlns:l=\"urn:lather:v1\"><s:Body>" + body_content +
         "</s:Body></s:Envelope>";
}

std::string BareEnvelope(const char* ns, const std::string& body_content) { return Envelope(ns, body_content, ""); }

std::string IncompressibleText(size_t size, uint32_t seed) {
  std::string text;
  text.reserve(size);
  for (uint32_t x = seed; text.size() < size;) {
    x = x * 1103515245 + 12345;
    text.push_back(static_cast<char>('a' + (x >> 16) % 26));
  }
  return text;
}

std::string Gzip(const std::string& text) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  out.resize(z.total_out);
  return out;
}

std::string EncodedPost(const char* content_type, const std::string& body, const std::string& coding) {
  std::string request = SoapPost(content_type, body);
  request.insert(request.find("\r\n") + 2, "Content-Encoding: " + coding + "\r\n");
  return request;
}

}  // namespace lather::test
