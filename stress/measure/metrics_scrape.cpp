#include "stress/measure/metrics_scrape.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "common/tls.h"

namespace lather {

std::string FetchMetrics(const std::string& host, int port, const TlsContext* tls) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return "";
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  timeval tv{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = "GET /metrics HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
    char buffer[8192];
    if (tls != nullptr) {
      // A blocking socket: the session's calls finish or fail (a timeout reads as kWantRead).
      auto session = TlsSession::ForClient(*tls, fd, host);
      size_t wrote = 0, got = 0;
      if (session && session->Handshake() == TlsSession::Result::kOk &&
          session->Write(request.data(), request.size(), &wrote) == TlsSession::Result::kOk && wrote == request.size()) {
        while (response.size() < 1 << 20 && session->Read(buffer, sizeof buffer, &got) == TlsSession::Result::kOk) {
          response.append(buffer, got);
        }
      }
    } else if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      ssize_t n;
      while (response.size() < 1 << 20 && (n = read(fd, buffer, sizeof buffer)) > 0) {
        response.append(buffer, static_cast<size_t>(n));
      }
    }
  }
  close(fd);
  if (response.rfind("HTTP/1.1 200", 0) != 0 && response.rfind("HTTP/1.0 200", 0) != 0) return "";
  const size_t body = response.find("\r\n\r\n");
  return body == std::string::npos ? "" : response.substr(body + 4);
}

double MetricValue(const std::string& text, const std::string& name) {
  // A sample line: the name at the start of a line, then a space (no labels) and the value.
  const std::string key = name + " ";
  size_t at = text.rfind(key, 0) == 0 ? 0 : std::string::npos;
  if (at == std::string::npos) {
    const size_t found = text.find("\n" + key);
    if (found == std::string::npos) return -1;
    at = found + 1;
  }
  char* end = nullptr;
  const double value = std::strtod(text.c_str() + at + key.size(), &end);
  return end == text.c_str() + at + key.size() ? -1 : value;
}

LatherTimings ReadLatherTimings(const std::string& text) {
  LatherTimings t;
  t.exec_sum = MetricValue(text, "lather_request_duration_seconds_sum");
  t.exec_count = MetricValue(text, "lather_request_duration_seconds_count");
  t.known = t.exec_sum >= 0 && t.exec_count >= 0;
  if (!t.known) return LatherTimings{};
  t.wait_sum = std::max(0.0, MetricValue(text, "lather_queue_wait_seconds_sum"));
  t.wait_count = std::max(0.0, MetricValue(text, "lather_queue_wait_seconds_count"));
  t.parse_sum = std::max(0.0, MetricValue(text, "lather_parse_seconds_sum"));
  t.serialize_sum = std::max(0.0, MetricValue(text, "lather_serialize_seconds_sum"));
  return t;
}

}  // namespace lather
