#include "service/supervisor/metrics_sum.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <unordered_map>

namespace lather {

std::string FetchLocalMetrics(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  timeval tv{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
      char buffer[16384];
      ssize_t n;
      while (response.size() < (8u << 20) && (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0) {
        response.append(buffer, static_cast<size_t>(n));
      }
    }
  }
  ::close(fd);
  if (response.rfind("HTTP/1.1 200", 0) != 0) return "";
  const size_t body = response.find("\r\n\r\n");
  return body == std::string::npos ? "" : response.substr(body + 4);
}

std::string SumMetrics(const std::vector<std::string>& texts) {
  struct Sample {
    double value = 0;
    bool max = false;  // keep the largest instead of the sum
  };
  std::vector<std::string> order;                // "# ..." lines and sample keys, in first-seen order
  std::unordered_map<std::string, Sample> sums;  // sample key ("name{labels}") -> value
  std::map<std::string, bool> comments;
  for (const std::string& text : texts) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.empty()) continue;
      if (line[0] == '#') {
        if (comments.emplace(line, true).second) order.push_back(line);
        continue;
      }
      const size_t space = line.rfind(' ');
      if (space == std::string::npos) continue;
      const std::string key = line.substr(0, space);
      const double value = std::strtod(line.c_str() + space + 1, nullptr);
      auto [it, fresh] = sums.emplace(key, Sample{});
      if (fresh) {
        order.push_back(key);
        it->second.max = key == "lather_cpu_cores";
      }
      it->second.value = it->second.max ? std::max(it->second.value, value) : it->second.value + value;
    }
  }
  std::string out;
  char number[64];
  for (const std::string& entry : order) {
    if (entry[0] == '#') {
      out += entry + "\n";
      continue;
    }
    std::snprintf(number, sizeof number, "%.17g", sums[entry].value);
    out += entry + " " + number + "\n";
  }
  return out;
}

}  // namespace lather
