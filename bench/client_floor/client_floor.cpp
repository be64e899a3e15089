// bench/harness-vs-wrk's reference for the cost of one call on the client's side: the fewest system calls any
// closed-model HTTP/1.1 keep-alive client needs per call here, with nothing else - no schedule, no latency
// clock, no statistics, no Lua, no check of the answer beyond its status line and its length. One thread on
// --connections connections to 127.0.0.1:--port (blocking sockets, read only when epoll says there is something
// to read; a request always fits the socket's buffer); each connection writes the same request (built
// once: POST --path with the Increment envelope of CONTRACT.md, its SOAPAction and Content-Length), reads until
// the answer's head and Content-Length bytes of body are in, and writes the request again; readiness comes
// from one epoll set (level-triggered, registered once: no re-arm per call). So a call costs one write, one
// read (more only when an answer arrives in pieces) and a share of one epoll_wait. Runs --seconds, then prints
// "calls N" and "non_200 N" on stdout; its CPU is measured from outside (the caller's rusage of the process,
// as for wrk and lather-stress). Exit status 1 when it cannot connect or an answer is malformed.
//
// usage: lather-client-floor --port N [--connections N] [--seconds S] [--path /soap]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr char kEnvelope[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:l=\"urn:lather:v1\">"
    "<soap:Body><l:Increment><l:value>41</l:value></l:Increment></soap:Body></soap:Envelope>";
constexpr size_t kBufferBytes = 64 * 1024;

struct Connection {
  int fd = -1;
  std::vector<char> buffer = std::vector<char>(kBufferBytes);
  size_t filled = 0;
};

// Bytes of the whole answer at the front of `data` (head and Content-Length body), 0 while incomplete, -1 when
// its head has no Content-Length. *ok: the status line says 200.
long AnswerLength(std::string_view data, bool* ok) {
  const size_t head_end = data.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return 0;
  const std::string_view head = data.substr(0, head_end + 2);
  *ok = head.substr(0, 12) == "HTTP/1.1 200";
  for (size_t at = head.find("\r\n"); at != std::string_view::npos; at = head.find("\r\n", at + 2)) {
    const std::string_view line = head.substr(at + 2, 15);
    if (line.size() == 15 && strncasecmp(line.data(), "content-length:", 15) == 0) {
      const long body = std::strtol(head.data() + at + 17, nullptr, 10);
      const size_t total = head_end + 4 + static_cast<size_t>(body);
      return data.size() >= total ? static_cast<long>(total) : 0;
    }
  }
  return -1;
}

bool SendAll(int fd, const std::string& request) {
  // Loopback takes the whole request in one write (the socket blocks; a short write is finished at once).
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = write(fd, request.data() + sent, request.size() - sent);
    if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
    if (n > 0) sent += static_cast<size_t>(n);
  }
  return true;
}

int Fail(const char* what) {
  std::fprintf(stderr, "lather-client-floor: %s: %s\n", what, std::strerror(errno));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0;
  int connections = 100;
  double seconds = 3;
  std::string path = "/soap";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--port") {
      port = std::atoi(argv[i + 1]);
    } else if (flag == "--connections") {
      connections = std::atoi(argv[i + 1]);
    } else if (flag == "--seconds") {
      seconds = std::atof(argv[i + 1]);
    } else if (flag == "--path") {
      path = argv[i + 1];
    } else {
      std::fprintf(stderr, "lather-client-floor: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  if (port <= 0 || connections <= 0 || seconds <= 0) {
    std::fprintf(stderr, "usage: lather-client-floor --port N [--connections N] [--seconds S] [--path /soap]\n");
    return 2;
  }
  const std::string request = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                              "\r\nContent-Type: text/xml; charset=utf-8\r\n"
                              "SOAPAction: \"urn:lather:v1#Increment\"\r\nContent-Length: " +
                              std::to_string(sizeof kEnvelope - 1) + "\r\n\r\n" + kEnvelope;
  const int epoll = epoll_create1(EPOLL_CLOEXEC);
  if (epoll < 0) return Fail("epoll_create1");
  std::vector<Connection> all(static_cast<size_t>(connections));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (size_t i = 0; i < all.size(); ++i) {
    Connection& c = all[i];
    c.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c.fd < 0 || connect(c.fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
      return Fail("connect");
    }
    const int one = 1;
    setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = i;
    if (epoll_ctl(epoll, EPOLL_CTL_ADD, c.fd, &event) != 0) return Fail("epoll_ctl");
    if (!SendAll(c.fd, request)) return Fail("write");
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  long calls = 0;
  long non_200 = 0;
  std::vector<epoll_event> events(all.size());
  while (std::chrono::steady_clock::now() < end) {
    const int ready = epoll_wait(epoll, events.data(), static_cast<int>(events.size()), 100);
    if (ready < 0 && errno != EINTR) return Fail("epoll_wait");
    for (int e = 0; e < ready; ++e) {
      Connection& c = all[events[static_cast<size_t>(e)].data.u64];
      const ssize_t n = read(c.fd, c.buffer.data() + c.filled, c.buffer.size() - c.filled);
      if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        return Fail(n == 0 ? "the server closed a connection" : "read");
      }
      c.filled += static_cast<size_t>(n);
      bool ok = false;
      const long length = AnswerLength(std::string_view(c.buffer.data(), c.filled), &ok);
      if (length < 0 || (length == 0 && c.filled == c.buffer.size())) {
        std::fprintf(stderr, "lather-client-floor: an answer without Content-Length or over %zu bytes\n", kBufferBytes);
        return 1;
      }
      if (length == 0) continue;  // more to come
      ++calls;
      non_200 += ok ? 0 : 1;
      c.filled = 0;  // a closed model: nothing follows an answer until the next request
      if (!SendAll(c.fd, request)) return Fail("write");
    }
  }
  std::printf("calls %ld\nnon_200 %ld\n", calls, non_200);
  return 0;
}
