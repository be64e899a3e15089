// Acknowledged means durable, under a burst: 1,000 IncCounter calls arrive at once on 1,000 connections,
// the service is killed with SIGKILL while it answers them, restarted on the same store (SQLite, and
// PostgreSQL), and every value that reached a client must be stored, none handed out twice, none invented.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "client/soap_client.h"
#include "tests/integration/crash_store.h"
#include "tests/integration/raw_http.h"
#include "tests/integration/service_process.h"

using lather::test::CrashStore;
using lather::test::ElementText;
using lather::test::ServiceProcess;
using lather::test::SoapPost;

namespace {

constexpr int kCalls = 1000;
constexpr int kNames = 4;

// One call of the burst: its connection, the counter it increments and what came back.
struct BurstCall {
  int fd = -1;
  std::string name;
  std::string received;
  bool finished = false;  // a whole response arrived, or the connection ended
  int64_t value = -1;     // the acknowledged value, -1 if none
};

int ConnectTo(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// True once `bytes` hold a whole Content-Length framed response; sets *value for a 200 with a result.
bool ParseResponse(const std::string& bytes, int64_t* value) {
  const size_t head_end = bytes.find("\r\n\r\n");
  if (head_end == std::string::npos) return false;
  std::string head = bytes.substr(0, head_end);
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t length_at = head.find("content-length:");
  if (length_at == std::string::npos) return false;
  const size_t length = std::strtoull(head.c_str() + length_at + 15, nullptr, 10);
  if (bytes.size() < head_end + 4 + length) return false;
  if (bytes.compare(0, 12, "HTTP/1.1 200") == 0) {
    const std::string result = ElementText(bytes.substr(head_end + 4, length), "result");
    if (!result.empty()) *value = std::strtoll(result.c_str(), nullptr, 10);
  }
  return true;
}

int64_t SteadyNanosNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Sends every call's request at once, then reads until each has its answer or its connection ended
// (the kill), at most `limit`. *first_answer_ns (steady clock) is set when the first value arrives.
void RunBurst(std::vector<BurstCall>* calls, std::chrono::seconds limit, std::atomic<int64_t>* first_answer_ns) {
  for (BurstCall& call : *calls) {
    const std::string body =
        "<?xml version=\"1.0\"?><soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" "
        "xmlns:l=\"urn:lather:v1\"><soap:Body><l:IncCounter><l:name>" +
        call.name + "</l:name></l:IncCounter></soap:Body></soap:Envelope>";
    const std::string request = SoapPost("text/xml; charset=utf-8", body, "urn:lather:v1#IncCounter");
    if (::send(call.fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
      call.finished = true;  // the service is already gone: never sent, so never in flight
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::vector<pollfd> waiting;
  std::vector<BurstCall*> owners;
  while (std::chrono::steady_clock::now() < deadline) {
    waiting.clear();
    owners.clear();
    for (BurstCall& call : *calls) {
      if (call.finished) continue;
      waiting.push_back(pollfd{call.fd, POLLIN, 0});
      owners.push_back(&call);
    }
    if (waiting.empty()) return;
    if (::poll(waiting.data(), waiting.size(), 100) <= 0) continue;
    for (size_t i = 0; i < waiting.size(); ++i) {
      if (waiting[i].revents == 0) continue;
      BurstCall& call = *owners[i];
      char chunk[4096];
      const ssize_t n = ::recv(call.fd, chunk, sizeof chunk, MSG_DONTWAIT);
      if (n > 0) {
        call.received.append(chunk, static_cast<size_t>(n));
        call.finished = ParseResponse(call.received, &call.value);
        if (call.finished && call.value >= 0 && first_answer_ns->load() == 0) first_answer_ns->store(SteadyNanosNow());
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        call.finished = true;
      }
    }
  }
}

int64_t ReadCounter(const ServiceProcess& service, const std::string& name) {
  lather::ClientOptions options;
  options.url = service.url();
  lather::Client client(options);
  int64_t value = -1;
  REQUIRE(client.GetCounter(name, &value).ok());
  return value;
}

// Rounds of: a burst of kCalls IncCounter calls, SIGKILL at a random moment within the time an unkilled
// burst takes (measured in round 0), restart on the same store, and the checks.
void KillDuringBursts(CrashStore* store, int rounds) {
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  REQUIRE(files.rlim_max >= static_cast<rlim_t>(2 * kCalls + 200));
  files.rlim_cur = files.rlim_max;  // for this process and the service it starts
  REQUIRE(setrlimit(RLIMIT_NOFILE, &files) == 0);

  std::mt19937 random(20261201);
  // No queue-wait limit: this test is about durability, a busy 503 under a slow (sanitizer) build is not.
  const std::vector<std::string> flags = {"--max-queue-wait", "0"};
  ServiceProcess* service = store->Start(flags);
  std::map<std::string, std::set<int64_t>> handed_out;
  std::map<std::string, int64_t> stored;
  int cut_mid_burst = 0;  // rounds where the kill came after some answers and before the last
  std::chrono::milliseconds burst_time{0};   // an unkilled burst, from its send to its last answer
  std::chrono::milliseconds answers_time{0};  // of it, from its first answer to its last
  for (int round = 0; round <= rounds; ++round) {
    // Round 0 is not killed: it measures how long a whole burst takes, so the kills can land inside one.
    const bool kill_this_round = round > 0;
    INFO(store->name() << " round " << round);
    std::vector<BurstCall> calls(kCalls);
    for (int i = 0; i < kCalls; ++i) {
      calls[i].name = "burst-" + std::to_string(i % kNames);
      calls[i].fd = ConnectTo(service->port());
      REQUIRE(calls[i].fd >= 0);
    }
    std::thread killer;
    std::atomic<int64_t> first_answer_ns{0};
    if (kill_this_round) {
      // At a random moment while the answers come (after the first, within the time an unkilled burst's answers
      // took): a kill timed from the send alone could fall before any answer in every round, where a restarted
      // service's first calls are slow (the store's connection, its statements) and an unkilled burst is quick.
      const int delay_ms = std::uniform_int_distribution<int>(0, static_cast<int>(answers_time.count()))(random);
      killer = std::thread([pid = service->pid(), delay_ms, &first_answer_ns] {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (first_answer_ns.load() == 0 && std::chrono::steady_clock::now() < give_up) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        ::kill(pid, SIGKILL);
      });
    }
    const auto started = std::chrono::steady_clock::now();
    RunBurst(&calls, std::chrono::seconds(60), &first_answer_ns);
    if (!kill_this_round) {
      const auto ended = std::chrono::steady_clock::now();
      burst_time = std::chrono::duration_cast<std::chrono::milliseconds>(ended - started);
      answers_time = std::chrono::duration_cast<std::chrono::milliseconds>(
          ended.time_since_epoch() - std::chrono::nanoseconds(first_answer_ns.load()));
    } else {
      killer.join();
      CHECK(service->Stop() == -SIGKILL);
      REQUIRE(store->Settle());
      service = store->Start(flags);
    }
    std::map<std::string, std::vector<int64_t>> acknowledged;
    std::map<std::string, int64_t> unanswered;
    int answered = 0;
    for (BurstCall& call : calls) {
      ::close(call.fd);
      if (call.value >= 0) {
        acknowledged[call.name].push_back(call.value);
        ++answered;
      } else {
        ++unanswered[call.name];
      }
    }
    if (!kill_this_round) REQUIRE(answered == kCalls);  // unkilled, the burst is answered in full
    if (answered > 0 && answered < kCalls) ++cut_mid_burst;
    for (int n = 0; n < kNames; ++n) {
      const std::string name = "burst-" + std::to_string(n);
      const std::vector<int64_t>& values = acknowledged[name];
      const int64_t now = ReadCounter(*service, name);
      INFO(name << ": " << values.size() << " acknowledged, " << unanswered[name] << " unanswered, stored before "
                << stored[name] << ", now " << now);
      for (int64_t v : values) {
        CHECK(v > stored[name]);  // a value from this burst, not an old one handed out again
        CHECK(v <= now);          // every acknowledged increment is stored
        CHECK(handed_out[name].insert(v).second);  // and was handed out once
      }
      // No more than the acknowledged ones plus those in flight when the kill came.
      CHECK(now <= stored[name] + static_cast<int64_t>(values.size()) + unanswered[name]);
      stored[name] = now;
    }
  }
  INFO("burst of " << kCalls << " calls took " << burst_time.count() << " ms unkilled, " << answers_time.count()
                     << " ms from its first answer");
  CHECK(cut_mid_burst > 0);  // the kills really landed in the middle of bursts
}

}  // namespace

TEST_CASE("kill -9 during a burst of 1000 concurrent IncCounter calls loses no acknowledged increment",
          "[integration][crash]") {
  CrashStore store(CrashStore::Kind::kSqlite);
  KillDuringBursts(&store, 20);
}

TEST_CASE("PostgreSQL: SIGKILL during a burst of 1000 concurrent IncCounter calls loses no acknowledged increment",
          "[postgres][crash]") {
  CrashStore store(CrashStore::Kind::kPostgres);
  KillDuringBursts(&store, 8);
}
