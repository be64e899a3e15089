// RawHttp: sends bytes exactly as given to 127.0.0.1:PORT and reads one HTTP response, so tests
// can send requests no well-behaved client would (bad framing, wrong media types, DTDs).
#pragma once

#include <chrono>
#include <map>
#include <string>

namespace lather::test {

struct RawResponse {
  int status = 0;                           // 0 if no status line arrived
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  bool closed = false;                      // the server closed the connection after it

  // The value of header `lower_case_name`, "" if absent.
  std::string Header(const std::string& lower_case_name) const {
    const auto it = headers.find(lower_case_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// A blocking TCP connection with a 10 s receive timeout.
class RawConnection {
 public:
  explicit RawConnection(int port);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // Writes all of `bytes`; false on error.
  bool Send(const std::string& bytes);
  // Reads one response (Content-Length framed, or until close).
  RawResponse Receive();
  // Ends the sending side (a half-close: the client's FIN); false on error.
  bool ShutdownWrite();
  // Whether the peer closes (a read returns end of stream, or a reset) within `within`; unread response bytes
  // are dropped. False when the connection is still open then.
  bool ClosedWithin(std::chrono::milliseconds within);

 private:
  int fd_ = -1;
  std::string buffer_;
};

// One connection, one request, one response.
RawResponse SendRaw(int port, const std::string& bytes);
// The value of one sample line ("name{labels} value") of a Prometheus text page (GET /metrics), -1 if absent.
double MetricValue(const std::string& page, const std::string& series);

// The SOAP 1.1 and 1.2 envelope namespaces and the Content-Types that go with them.
inline constexpr char kEnv11[] = "http://schemas.xmlsoap.org/soap/envelope/";
inline constexpr char kEnv12[] = "http://www.w3.org/2003/05/soap-envelope";
inline constexpr char kSoap11Type[] = "text/xml; charset=utf-8";
inline constexpr char kSoap12Type[] = "application/soap+xml; charset=utf-8";

// "POST /soap" with the given Content-Type (and SOAPAction when not empty) and body.
std::string SoapPost(const std::string& content_type, const std::string& body, const std::string& action = "");

// The text of the first element with local name `local_name` in `xml`, or "" (a test helper, not a parser).
std::string ElementText(const std::string& xml, const std::string& local_name);

}  // namespace lather::test
