// bench/overload's reference for the cost of one refused request: the fewest system calls any server on this
// machine needs to refuse a keep-alive request it has decided to refuse on its head, with no HTTP parsing, no
// SOAP, no event library. A server thread (pinned to --server-cpu) and a client thread (--client-cpu) share a
// loopback listener; in each burst the server waits while the client writes one request (--request-bytes, an
// HTTP head of about 300 bytes first) on each of --connections connections, then the server drains its epoll
// set and refuses every request: read the first KiB with its kernel receive stamp (recvmsg, SO_TIMESTAMPNS, as
// lather-service reads), drop the rest of the body in the kernel (recv MSG_TRUNC), write an answer of
// --answer-bytes. The server thread's CPU (CLOCK_THREAD_CPUTIME_ID: user + system, the loopback receive work the
// kernel does in its context included) over the bursts, per refusal, is printed for that minimum and with each
// step lather-service adds on top of it: one more read that finds nothing (to see a pipelined request), a re-arm
// of the socket in epoll (EPOLL_CTL_MOD, what Asio's async_wait does), the four reads of the monotonic clock that
// time a refusal wake-up for the service's /metrics.
// Output: one line per variant, "variant <name> <microseconds per refusal>", for bench/overload to parse.
//
// usage: lather-refusal-floor [--connections N] [--bursts N] [--request-bytes N] [--answer-bytes N]
//                             [--server-cpu N] [--client-cpu N]   (--help: each flag and its default)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/flag_parser.h"

namespace {

using lather::MonotonicNanos;
using lather::ThreadCpuNanos;

struct Options {
  int64_t connections = 400;
  int64_t bursts = 20;
  int64_t request_bytes = 19315;
  int64_t answer_bytes = 540;
  int64_t server_cpu = 0;
  int64_t client_cpu = 1;
};

struct Variant {
  const char* name;
  bool empty_read;  // one more recv that finds nothing
  bool rearm;       // EPOLL_CTL_MOD of the socket after the answer
  bool clock_reads;  // four clock_gettime(CLOCK_MONOTONIC) (vDSO), as lather-service times a refusal wake-up
};

constexpr Variant kVariants[] = {
    {"minimum", false, false, false},
    {"+empty-read", true, false, false},
    {"+empty-read+rearm", true, true, false},
    {"+empty-read+rearm+clock-reads", true, true, true},
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "lather-refusal-floor: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

void Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0) Fail("pinning to cpu " + std::to_string(cpu));
}

std::string Request(size_t bytes) {
  std::string head =
      "POST /soap HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml; charset=utf-8\r\n"
      "SOAPAction: \"urn:lather#EchoDataSamples\"\r\nUser-Agent: lather-refusal-floor\r\nContent-Length: ";
  const size_t fixed = head.size() + 4;  // the CRLF CRLF after the length
  size_t body = bytes > fixed + 5 ? bytes - fixed - 5 : 1;
  head += std::to_string(body) + "\r\n\r\n";
  return head + std::string(body, 'x');
}

// The server's side of one burst-driven run of a variant; returns the CPU per refusal in microseconds.
class Floor {
 public:
  explicit Floor(const Options& options) : options_(options), request_(Request(static_cast<size_t>(options.request_bytes))) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (listener_ < 0 || bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        listen(listener_, 1024) != 0) {
      Fail("listening on 127.0.0.1");
    }
    socklen_t length = sizeof(address);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    address_ = address;
    answer_ = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/xml; charset=utf-8\r\nRetry-After: 1\r\n";
    const size_t answer_bytes = static_cast<size_t>(options.answer_bytes);
    const size_t body = answer_bytes > answer_.size() + 30 ? answer_bytes - answer_.size() - 30 : 1;
    answer_ += "Content-Length: " + std::to_string(body) + "\r\n\r\n" + std::string(body, 'y');
  }

  double Run(const Variant& variant) {
    const int connections = static_cast<int>(options_.connections);
    std::vector<int> clients(connections), servers(connections);
    const int poll = epoll_create1(0);
    for (int i = 0; i < connections; ++i) {
      clients[i] = socket(AF_INET, SOCK_STREAM, 0);
      if (connect(clients[i], reinterpret_cast<sockaddr*>(&address_), sizeof(address_)) != 0) Fail("connecting");
      const int one = 1;
      setsockopt(clients[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      servers[i] = accept(listener_, nullptr, nullptr);
      if (servers[i] < 0) Fail("accepting");
      setsockopt(servers[i], SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
      setsockopt(servers[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      epoll_event event{};
      event.events = EPOLLIN | EPOLLET;
      event.data.u32 = static_cast<uint32_t>(i);
      epoll_ctl(poll, EPOLL_CTL_ADD, servers[i], &event);
    }
    std::atomic<int> written{0};
    std::mutex mutex;
    std::condition_variable cv;
    int burst_go = 0;
    std::thread client([&] {
      Pin(static_cast<int>(options_.client_cpu));
      std::vector<char> answer(answer_.size());
      for (int burst = 0; burst < options_.bursts; ++burst) {
        {
          std::unique_lock<std::mutex> lock(mutex);
          cv.wait(lock, [&] { return burst_go > burst; });
        }
        for (int fd : clients) {
          if (send(fd, request_.data(), request_.size(), 0) != static_cast<ssize_t>(request_.size())) Fail("sending");
        }
        written.store(burst + 1);
        cv.notify_all();
        for (int fd : clients) {  // every answer, whole
          size_t got = 0;
          while (got < answer.size()) {
            const ssize_t n = recv(fd, answer.data() + got, answer.size() - got, 0);
            if (n <= 0) Fail("reading an answer");
            got += static_cast<size_t>(n);
          }
        }
      }
    });
    Pin(static_cast<int>(options_.server_cpu));
    int64_t cpu = 0;
    long refused = 0;
    std::vector<epoll_event> events(128);
    char head[1024];
    char control[CMSG_SPACE(sizeof(timespec))];
    for (int burst = 0; burst < options_.bursts; ++burst) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        burst_go = burst + 1;
        cv.notify_all();
        cv.wait(lock, [&] { return written.load() > burst; });
      }
      usleep(20000);  // the last segments have been queued
      const int64_t start = ThreadCpuNanos();
      int left = connections;
      while (left > 0) {
        const int ready = epoll_wait(poll, events.data(), static_cast<int>(events.size()), 1000);
        if (ready <= 0) Fail("waiting for requests");
        for (int e = 0; e < ready; ++e) {
          const int fd = servers[events[e].data.u32];
          volatile int64_t wake = 0;  // what lather-service's timing of a refusal wake-up reads
          if (variant.clock_reads) wake = MonotonicNanos();
          iovec vector{head, sizeof(head)};
          msghdr message{};
          message.msg_iov = &vector;
          message.msg_iovlen = 1;
          message.msg_control = control;
          message.msg_controllen = sizeof(control);
          const ssize_t n = recvmsg(fd, &message, MSG_DONTWAIT);
          if (n <= 0) Fail("reading a head");
          size_t rest = request_.size() - static_cast<size_t>(n);
          while (rest > 0) {
            const ssize_t dropped = recv(fd, nullptr, rest, MSG_TRUNC | MSG_DONTWAIT);
            if (dropped <= 0) Fail("dropping a body (the whole request was not there)");
            rest -= static_cast<size_t>(dropped);
          }
          if (variant.empty_read && recv(fd, head, sizeof(head), MSG_DONTWAIT) >= 0) Fail("an unexpected request");
          if (send(fd, answer_.data(), answer_.size(), MSG_DONTWAIT) != static_cast<ssize_t>(answer_.size())) {
            Fail("writing an answer");
          }
          if (variant.rearm) {
            epoll_event event{};
            event.events = EPOLLIN | EPOLLET;
            event.data.u32 = events[e].data.u32;
            epoll_ctl(poll, EPOLL_CTL_MOD, fd, &event);
          }
          if (variant.clock_reads) {  // the read's piece ends, the handling's begins, and ends with the write
            const int64_t read_end = MonotonicNanos();
            const int64_t handling = MonotonicNanos();
            wake = (read_end - wake) + (MonotonicNanos() - handling);
          }
          ++refused;
          --left;
        }
      }
      cpu += ThreadCpuNanos() - start;
    }
    client.join();
    for (int fd : clients) close(fd);
    for (int fd : servers) close(fd);
    close(poll);
    return static_cast<double>(cpu) / 1000.0 / static_cast<double>(refused);
  }

 private:
  Options options_;
  std::string request_;
  std::string answer_;
  int listener_ = -1;
  sockaddr_in address_{};
};

}  // namespace

int main(int argc, char** argv) {
  Options options;
  bool help = false;
  lather::FlagParser flags("lather-refusal-floor [flags]");
  flags.AddInt("connections", 0, "N", "keep-alive connections, one request each per burst (default 400)", 1, 10000,
               &options.connections);
  flags.AddInt("bursts", 0, "N", "bursts per variant (default 20)", 1, 100000, &options.bursts);
  flags.AddInt("request-bytes", 0, "N", "bytes of each request, head included (default 19315)", 400, 1 << 20,
               &options.request_bytes);
  flags.AddInt("answer-bytes", 0, "N", "bytes of each answer (default 540)", 120, 65536, &options.answer_bytes);
  flags.AddInt("server-cpu", 0, "N", "the server thread's core (default 0)", 0, CPU_SETSIZE - 1, &options.server_cpu);
  flags.AddInt("client-cpu", 0, "N", "the client thread's core (default 1)", 0, CPU_SETSIZE - 1, &options.client_cpu);
  flags.AddBool("help", 'h', "print this help", &help);
  std::vector<std::string> positional;
  const lather::Status parsed = flags.Parse(argc, argv, &positional);
  if (help) {
    std::printf("%s", flags.Usage().c_str());
    return 0;
  }
  if (!parsed.ok() || !positional.empty()) {
    const std::string why = parsed.ok() ? "unexpected argument " + positional.front() + " (see --help)" : parsed.message();
    std::fprintf(stderr, "lather-refusal-floor: %s\n", why.c_str());
    return 2;
  }
  Floor floor(options);
  for (const Variant& variant : kVariants) std::printf("variant %s %.2f\n", variant.name, floor.Run(variant));
  return 0;
}
