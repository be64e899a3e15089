#include "tests/integration/raw_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace lather::test {

RawConnection::RawConnection(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) throw std::runtime_error("socket failed");
  // Long enough for the slowest hostile case (a million attributes through gSOAP) on a machine busy with
  // other work (scripts/test-busy: at a third of a core it took over 10 s); a hung service still fails its test.
  timeval tv{60, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    throw std::runtime_error("connect to port " + std::to_string(port) + " failed");
  }
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawConnection::Send(const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

bool RawConnection::ShutdownWrite() { return ::shutdown(fd_, SHUT_WR) == 0; }

bool RawConnection::ClosedWithin(std::chrono::milliseconds within) {
  const auto until = std::chrono::steady_clock::now() + within;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    char chunk[4096];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return true;
  }
}

RawResponse RawConnection::Receive() {
  RawResponse response;
  auto read_more = [this]() {
    char chunk[65536];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  };
  size_t head_end;
  while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!read_more()) {
      response.closed = true;
      return response;
    }
  }
  const std::string head = buffer_.substr(0, head_end);
  if (head.size() > 12) response.status = std::atoi(head.c_str() + 9);
  size_t pos = head.find("\r\n");
  while (pos != std::string::npos && pos < head.size()) {
    const size_t next = head.find("\r\n", pos + 2);
    const std::string line = head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
    const size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      size_t v = colon + 1;
      while (v < line.size() && line[v] == ' ') ++v;
      response.headers[name] = line.substr(v);
    }
    pos = next;
  }
  buffer_.erase(0, head_end + 4);
  // RFC 9112 6.3: 1xx, 204 and 304 responses end at their head.
  if ((response.status >= 100 && response.status < 200) || response.status == 204 || response.status == 304) {
    return response;
  }
  const auto length = response.headers.find("content-length");
  if (length != response.headers.end()) {
    const size_t want = std::strtoull(length->second.c_str(), nullptr, 10);
    while (buffer_.size() < want && read_more()) {
    }
    response.body = buffer_.substr(0, want);
    buffer_.erase(0, response.body.size());
  } else {
    while (read_more()) {
    }
    response.body.swap(buffer_);
    response.closed = true;
  }
  const auto connection = response.headers.find("connection");
  if (connection != response.headers.end() && connection->second == "close") {
    // Confirm the close: the next read returns end of stream.
    response.closed = buffer_.empty() && !read_more();
  }
  return response;
}

RawResponse SendRaw(int port, const std::string& bytes) {
  RawConnection connection(port);
  connection.Send(bytes);
  return connection.Receive();
}

std::string SoapPost(const std::string& content_type, const std::string& body, const std::string& action) {
  std::string request = "POST /soap HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + content_type + "\r\n";
  if (!action.empty()) request += "SOAPAction: \"" + action + "\"\r\n";
  request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  return request;
}

std::string ElementText(const std::string& xml, const std::string& local_name) {
  size_t pos = 0;
  while ((pos = xml.find('<', pos)) != std::string::npos) {
    const size_t name_end = xml.find_first_of(" >/", pos);
    if (name_end == std::string::npos) return "";
    std::string name = xml.substr(pos + 1, name_end - pos - 1);
    const size_t colon = name.find(':');
    if (colon != std::string::npos) name = name.substr(colon + 1);
    if (name == local_name && xml[name_end] != '/') {
      const size_t start = xml.find('>', pos) + 1;
      return xml.substr(start, xml.find('<', start) - start);
    }
    pos = name_end;
  }
  return "";
}

double MetricValue(const std::string& page, const std::string& series) {
  const size_t at = page.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::strtod(page.c_str() + at + series.size() + 2, nullptr);
}

}  // namespace lather::test
