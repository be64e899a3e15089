#include "client/wsdl/http_fetch.h"

#include <Poco/Exception.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SSLException.h>
#include <Poco/URI.h>

#include <unistd.h>

#include <cctype>
#include <fstream>
#include <istream>
#include <memory>
#include <sstream>

namespace lather::wsdl {
namespace {

bool HasScheme(const std::string& url) {
  const size_t colon = url.find(':');
  if (colon == std::string::npos || colon < 2) return false;  // "C:" is not a scheme worth the name
  for (size_t i = 0; i < colon; ++i) {
    const char c = url[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.')) return false;
  }
  return true;
}

std::string AsUrl(const std::string& url) {
  if (HasScheme(url)) return url;
  if (!url.empty() && url[0] == '/') return "file://" + url;
  char cwd[4096];
  const std::string here = ::getcwd(cwd, sizeof cwd) != nullptr ? cwd : "/";
  return "file://" + here + "/" + url;
}

Status ReadBody(std::istream& in, size_t max_bytes, const std::string& url, std::string* body) {
  body->clear();
  char chunk[16384];
  while (in) {
    in.read(chunk, sizeof chunk);
    body->append(chunk, static_cast<size_t>(in.gcount()));
    if (body->size() > max_bytes) {
      return Status::InvalidArgument(url + ": larger than " + std::to_string(max_bytes >> 20) + " MiB");
    }
  }
  return Status::Ok();
}

std::unique_ptr<Poco::Net::HTTPClientSession> OpenSession(const Poco::URI& uri, const FetchOptions& options) {
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  if (uri.getScheme() == "https") {
    Poco::Net::Context::Ptr context = new Poco::Net::Context(
        Poco::Net::Context::TLS_CLIENT_USE, "", "", options.ca_file,
        options.insecure ? Poco::Net::Context::VERIFY_NONE : Poco::Net::Context::VERIFY_RELAXED, 9, true);
    session = std::make_unique<Poco::Net::HTTPSClientSession>(uri.getHost(), uri.getPort(), context);
  } else {
    session = std::make_unique<Poco::Net::HTTPClientSession>(uri.getHost(), uri.getPort());
  }
  session->setTimeout(Poco::Timespan(options.timeout_seconds, 0));
  return session;
}

// Runs one exchange; maps Poco's exceptions to a Status that names the URL.
template <typename Fn>
Status Guarded(const std::string& url, Fn fn) {
  try {
    return fn();
  } catch (const Poco::TimeoutException&) {
    return Status::Timeout(url + ": no answer within the timeout");
  } catch (const Poco::Net::ConnectionRefusedException&) {
    return Status::IOError(url + ": connection refused");
  } catch (const Poco::Net::HostNotFoundException& e) {
    return Status::IOError(url + ": unknown host (" + e.message() + ")");
  } catch (const Poco::Net::SSLException& e) {
    return Status::IOError(url + ": TLS: " + e.displayText());
  } catch (const Poco::Exception& e) {
    return Status::IOError(url + ": " + e.displayText());
  } catch (const std::exception& e) {
    return Status::IOError(url + ": " + e.what());
  }
}

Status CheckHttpUri(const std::string& url, Poco::URI* uri) {
  try {
    *uri = Poco::URI(url);
  } catch (const Poco::Exception& e) {
    return Status::InvalidArgument(url + ": not a URL (" + e.message() + ")");
  }
  if (uri->getScheme() != "http" && uri->getScheme() != "https") {
    return Status::InvalidArgument(url + ": the scheme '" + uri->getScheme() + "' is not supported (http, https)");
  }
  if (uri->getHost().empty()) return Status::InvalidArgument(url + ": no host");
  return Status::Ok();
}

}  // namespace

std::string ResolveUrl(const std::string& base, const std::string& ref) {
  if (HasScheme(ref)) return ref;
  try {
    Poco::URI uri(AsUrl(base));
    uri.resolve(ref);
    return uri.toString();
  } catch (const Poco::Exception&) {
    return ref;
  }
}

Status FetchDocument(const std::string& url_in, const FetchOptions& options, std::string* body) {
  const std::string url = AsUrl(url_in);
  if (url.rfind("file://", 0) == 0) {
    std::string path;
    try {
      path = Poco::URI(url).getPath();
    } catch (const Poco::Exception& e) {
      return Status::InvalidArgument(url_in + ": not a URL (" + e.message() + ")");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::IOError(path + ": cannot be read");
    return ReadBody(in, options.max_bytes, url_in, body);
  }
  Poco::URI uri;
  Status s = CheckHttpUri(url, &uri);
  if (!s.ok()) return s;
  return Guarded(url, [&] {
    auto session = OpenSession(uri, options);
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, uri.getPathAndQuery().empty() ? "/" : uri.getPathAndQuery(),
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.set("Accept", "text/xml, application/xml, application/wsdl+xml, */*");
    session->sendRequest(request);
    Poco::Net::HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    Status read = ReadBody(in, options.max_bytes, url, body);
    if (!read.ok()) return read;
    if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_OK) {
      return Status::IOError(url + ": HTTP " + std::to_string(static_cast<int>(response.getStatus())) + " " +
                             response.getReason());
    }
    return Status::Ok();
  });
}

Status PostRequest(const std::string& url, const std::vector<std::string>& headers, const std::string& body,
                   const FetchOptions& options, HttpAnswer* answer) {
  Poco::URI uri;
  Status s = CheckHttpUri(url, &uri);
  if (!s.ok()) return s;
  return Guarded(url, [&] {
    auto session = OpenSession(uri, options);
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, uri.getPathAndQuery().empty() ? "/" : uri.getPathAndQuery(),
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    for (const std::string& h : headers) {
      const size_t colon = h.find(':');
      if (colon == std::string::npos) continue;
      size_t v = colon + 1;
      while (v < h.size() && h[v] == ' ') ++v;
      request.set(h.substr(0, colon), h.substr(v));
    }
    request.setContentLength(static_cast<std::streamsize>(body.size()));
    session->sendRequest(request) << body;
    Poco::Net::HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    answer->status = static_cast<int>(response.getStatus());
    answer->content_type = response.getContentType();
    return ReadBody(in, options.max_bytes, url, &answer->body);
  });
}

}  // namespace lather::wsdl
