// lather-service --workers: the supervisor and its workers as real processes, with traffic running
// through each failure (crash, hang, swap, a binary that cannot start, the supervisor's own stop, death
// and re-execution) and exact counts: no acknowledged increment lost, none counted twice, and no failed
// call where the design promises none. No timing thresholds: waits are bounded, checks are on outcomes.
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "client/soap_client.h"
#include "tests/integration/process_stats.h"
#include "tests/integration/raw_http.h"
#include "tests/integration/service_process.h"
#include "tests/integration/soap_fixtures.h"

using lather::Client;
using lather::Status;
using lather::test::MakeClient;
using lather::test::ThreadNices;
using lather::test::ServiceBinary;
using lather::test::ServiceProcess;

namespace {

// Waits (polling every 20 ms, at most `seconds`) until `done` is true; returns its last value.
bool WaitFor(const std::function<bool()>& done, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

bool Alive(pid_t pid) { return ::kill(pid, 0) == 0 && std::filesystem::exists("/proc/" + std::to_string(pid) + "/stat") &&
                               [&] {
                                 std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
                                 std::string line;
                                 std::getline(in, line);
                                 const size_t close = line.rfind(')');
                                 return close != std::string::npos && line.size() > close + 2 &&
                                        line[close + 2] != 'Z';  // a zombie has ended
                               }(); }

// The supervisor's children now (its workers, serving or draining).
std::set<pid_t> Workers(pid_t supervisor) {
  std::set<pid_t> pids;
  std::ifstream in("/proc/" + std::to_string(supervisor) + "/task/" + std::to_string(supervisor) + "/children");
  pid_t pid;
  while (in >> pid) {
    if (Alive(pid)) pids.insert(pid);
  }
  return pids;
}

// Waits (at most 20 s) until the supervisor's workers are two and none of `old`: a new generation serves and
// no old worker outlives it.
bool NewGeneration(const ServiceProcess& service, const std::set<pid_t>& old) {
  return WaitFor([&] {
    const std::set<pid_t> now = Workers(service.pid());
    for (pid_t p : now) {
      if (old.count(p)) return false;
    }
    return now.size() == 2;
  }, 20);
}

// The port of the supervisor's admin listener, from its latest log line (a re-executed supervisor binds
// its --admin-listen again).
int AdminPort(const ServiceProcess& service) {
  const std::string log = service.Log();
  const std::string marker = "lather-service: admin listener on http://127.0.0.1:";
  const size_t at = log.rfind(marker);
  return at == std::string::npos ? 0 : std::atoi(log.c_str() + at + marker.size());
}

// GET path on 127.0.0.1:port; the body, "" on failure.
std::string Get(int port, const std::string& path) {
  const lather::test::RawResponse r =
      lather::test::SendRaw(port, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  return r.body;
}

// The value of a sample line `name` in Prometheus text; -1 if absent.
double Sample(const std::string& text, const std::string& name) {
  const size_t at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::atof(text.c_str() + at + name.size() + 2);
}

// Clients calling IncCounter(name) (or Increment) in a loop on their own keep-alive connections until
// stopped, counting what was acknowledged and what failed.
class Traffic {
 public:
  Traffic(const ServiceProcess& service, int clients, std::string counter) : counter_(std::move(counter)) {
    for (int i = 0; i < clients; ++i) {
      threads_.emplace_back([this, &service] {
        Client client = MakeClient(service, false, 10);
        while (!stop_.load()) {
          Status s;
          if (counter_.empty()) {
            int32_t result = 0;
            s = client.Increment(41, &result);
            if (s.ok() && result != 42) s = Status::IOError("wrong result");
          } else {
            int64_t value = 0;
            s = client.IncCounter(counter_, &value);
          }
          (s.ok() ? ok_ : failed_).fetch_add(1);
          if (!s.ok()) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (first_failure_.empty()) first_failure_ = s.ToString();
          }
        }
      });
    }
  }
  ~Traffic() { Stop(); }
  void Stop() {
    stop_.store(true);
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  uint64_t ok() const { return ok_.load(); }
  uint64_t failed() const { return failed_.load(); }
  std::string first_failure() {
    std::lock_guard<std::mutex> lock(mutex_);
    return first_failure_;
  }

 private:
  std::string counter_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> ok_{0}, failed_{0};
  std::mutex mutex_;
  std::string first_failure_;
  std::vector<std::thread> threads_;
};

int64_t Counter(const ServiceProcess& service, const std::string& name) {
  Client client = MakeClient(service, false, 10);
  int64_t value = -1;
  const Status s = client.GetCounter(name, &value);
  INFO(s.ToString());
  CHECK(s.ok());
  return value;
}

// A copy of lather-service in the test's folder, which a test may replace to stage a new build.
std::string CopyOfBinary(const std::string& folder) {
  const std::string copy = folder + "/lather-service";
  std::filesystem::copy_file(ServiceBinary(), copy, std::filesystem::copy_options::overwrite_existing);
  return copy;
}

// Replaces `path` with `contents` as a new file (written aside, then renamed over: the running file is
// never written in place), executable.
void Replace(const std::string& path, const std::string& source_or_script, bool is_script) {
  const std::string staged = path + ".new";
  if (is_script) {
    std::ofstream(staged) << source_or_script;
  } else {
    std::filesystem::copy_file(source_or_script, staged, std::filesystem::copy_options::overwrite_existing);
  }
  ::chmod(staged.c_str(), 0755);
  std::filesystem::rename(staged, path);
}

std::vector<std::string> Flags(std::vector<std::string> extra) {
  std::vector<std::string> flags = {"--workers", "2", "--admin-listen", "127.0.0.1:0"};
  flags.insert(flags.end(), extra.begin(), extra.end());
  return flags;
}

}  // namespace

TEST_CASE("two workers (--workers 2) serve from two processes and their /metrics and /healthz add up",
          "[supervisor]") {
  ServiceProcess service("", Flags({}));
  CHECK(Workers(service.pid()).size() == 2);
  // Workers start under SCHED_IDLE below the supervisor's priority (service/supervisor/start_priority.h) and
  // serve at it: the main thread and the event loops are back at the supervisor's nice value (the pool's
  // threads choose 10), and no thread is left under SCHED_IDLE (no call is running a yielding job).
  const int supervisor_nice = ThreadNices(service.pid()).at(service.pid());
  for (pid_t worker : Workers(service.pid())) {
    const std::map<pid_t, int> nices = ThreadNices(worker);
    INFO("worker " << worker);
    CHECK(nices.at(worker) == supervisor_nice);
    for (const auto& [tid, nice] : nices) {
      INFO("thread " << tid);
      CHECK((nice == supervisor_nice || nice == 10));
      CHECK(sched_getscheduler(tid) == SCHED_OTHER);
    }
  }
  for (int i = 0; i < 60; ++i) {  // a new connection each: the kernel spreads them over the workers
    Client client = MakeClient(service, false, 10);
    int32_t result = 0;
    REQUIRE(client.Increment(i, &result).ok());
    CHECK(result == i + 1);
  }
  const int admin = AdminPort(service);
  REQUIRE(admin > 0);
  CHECK(Get(admin, "/healthz") == "2 of 2 workers serving\n");
  // Each worker's own /metrics (its private listener, in its log line) against the supervisor's sum.
  const std::string log = service.Log();
  double summed_by_hand = 0;
  size_t at = 0;
  int workers_seen = 0;
  while ((at = log.find("]: admin listener on http://127.0.0.1:", at)) != std::string::npos) {
    const int port = std::atoi(log.c_str() + at + 38);
    at += 38;
    summed_by_hand += Sample(Get(port, "/metrics"), "lather_requests_total{operation=\"Increment\",outcome=\"ok\"}");
    ++workers_seen;
  }
  CHECK(workers_seen == 2);
  CHECK(summed_by_hand == 60);
  const std::string metrics = Get(admin, "/metrics");
  INFO(metrics.substr(0, 2000));
  CHECK(Sample(metrics, "lather_requests_total{operation=\"Increment\",outcome=\"ok\"}") == 60);
  CHECK(Sample(metrics, "lather_workers{state=\"serving\"}") == 2);
  CHECK(Sample(metrics, "lather_worker_up{worker=\"0\"}") == 1);
  CHECK(Sample(metrics, "lather_worker_up{worker=\"1\"}") == 1);
  CHECK(Sample(metrics, "lather_worker_restarts_total{worker=\"0\"}") == 0);
}

TEST_CASE("a worker that crashes (SIGSEGV, SIGKILL) is replaced, and no acknowledged increment is lost",
          "[supervisor][crash]") {
  ServiceProcess service("", Flags({}));
  Traffic traffic(service, 6, "crashes");
  for (int signal_number : {SIGSEGV, SIGKILL, SIGSEGV}) {
    REQUIRE(WaitFor([&] { return traffic.ok() > 200; }, 10));
    const std::set<pid_t> before = Workers(service.pid());
    REQUIRE(before.size() == 2);
    const pid_t victim = *before.begin();
    REQUIRE(::kill(victim, signal_number) == 0);
    // Replaced: two workers again, the victim not among them.
    CHECK(WaitFor([&] {
      const std::set<pid_t> now = Workers(service.pid());
      return now.size() == 2 && now.count(victim) == 0;
    }, 10));
  }
  REQUIRE(WaitFor([&] { return traffic.ok() > 1000; }, 20));
  traffic.Stop();
  const int64_t counted = Counter(service, "crashes");
  INFO("acknowledged " << traffic.ok() << ", failed " << traffic.failed() << ", counted " << counted << "; first failure: "
                       << traffic.first_failure());
  // Every acknowledged increment is there; a failed call may or may not have committed; none counted twice.
  CHECK(counted >= static_cast<int64_t>(traffic.ok()));
  CHECK(counted <= static_cast<int64_t>(traffic.ok() + traffic.failed()));
  const std::string log = service.Log();
#if defined(__SANITIZE_ADDRESS__)
  // ASan's handler takes the SIGSEGV, reports it and exits (or aborts, with abort_on_error): three deaths.
  size_t deaths = 0;
  for (size_t at = log.find(" died: "); at != std::string::npos; at = log.find(" died: ", at + 1)) ++deaths;
  CHECK(deaths >= 3);
#else
  CHECK(log.find("died: killed by SIGSEGV") != std::string::npos);
#endif
  CHECK(log.find("died: killed by SIGKILL") != std::string::npos);
  // The last replacement may still be starting: it serves within the wait.
  CHECK(WaitFor([&] { return Get(AdminPort(service), "/healthz") == "2 of 2 workers serving\n"; }, 10));
  CHECK(Sample(Get(AdminPort(service), "/metrics"), "lather_workers{state=\"serving\"}") == 2);
}

TEST_CASE("a hung worker is killed and replaced after --hang-timeout while the other keeps serving",
          "[supervisor]") {
  ServiceProcess service("", Flags({"--hang-timeout", "2000", "--fault-injection"}));
  REQUIRE(WaitFor([&] { return Workers(service.pid()).size() == 2; }, 10));
  const std::set<pid_t> before = Workers(service.pid());
  // The hang request: its worker's loop blocks for ever; the connection is left to time out.
  std::thread hang([&] {
    lather::test::SendRaw(service.port(),
                          "POST /soap HTTP/1.1\r\nHost: x\r\nX-Lather-Fault: hang\r\nContent-Type: text/xml\r\n"
                          "Content-Length: 4\r\n\r\n<x/>");
  });
  CHECK(WaitFor([&] { return service.Log().find("hung: a loop or call stalled") != std::string::npos; }, 20));
  CHECK(WaitFor([&] {
    const std::set<pid_t> now = Workers(service.pid());
    size_t old = 0;
    for (pid_t p : now) old += before.count(p);
    return now.size() == 2 && old == 1;  // one original left, the hung one replaced
  }, 10));
  hang.join();
  Traffic traffic(service, 4, "");
  REQUIRE(WaitFor([&] { return traffic.ok() > 300; }, 10));
  traffic.Stop();
  CHECK(traffic.failed() == 0);
  // Logged when the supervisor reaps the killed worker, which may come after Workers() stopped counting it (a
  // zombie is not alive) and after the traffic above: wait for it.
  CHECK(WaitFor([&] { return service.Log().find("killed after hanging") != std::string::npos; }, 10));
}

TEST_CASE("a worker that stops beating has its threads under SCHED_IDLE moved to the normal policy",
          "[supervisor]") {
  // A worker killed from outside (SIGKILL, the OOM killer) stops beating at once; a thread of it under
  // SCHED_IDLE (a large echo's yielding job) would hold its exit - and its replacement - for seconds on a busy
  // core. SIGSTOP stands in for the dying here: the worker is silent, its threads stay, and the supervisor's
  // lift shows on a thread the test put under SCHED_IDLE. (--hang-timeout keeps the stopped worker alive.)
  ServiceProcess service("", {"--workers", "1", "--hang-timeout", "30000"});
  REQUIRE(WaitFor([&] { return Workers(service.pid()).size() == 1; }, 10));
  const pid_t worker = *Workers(service.pid()).begin();
  const std::map<pid_t, int> threads = lather::test::ThreadNices(worker);
  REQUIRE(threads.size() > 1);
  const pid_t tid = std::prev(threads.end())->first;  // any thread but the main one
  const sched_param none{};
  if (sched_setscheduler(tid, SCHED_IDLE, &none) != 0 || sched_setscheduler(tid, SCHED_OTHER, &none) != 0 ||
      sched_setscheduler(tid, SCHED_IDLE, &none) != 0) {
    WARN("SKIPPED: this process may not move the worker's threads between SCHED_IDLE and the normal policy");
    return;
  }
  // Beating: left as it is. A machine that stalls the worker's heartbeat for 300 ms makes it silent for a
  // moment, which is lifted rightly: up to three tries, one of which must leave it alone.
  bool left_alone = false;
  for (int attempt = 0; attempt < 3 && !left_alone; ++attempt) {
    REQUIRE(sched_setscheduler(tid, SCHED_IDLE, &none) == 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    left_alone = sched_getscheduler(tid) == SCHED_IDLE;
  }
  CHECK(left_alone);
  REQUIRE(::kill(worker, SIGSTOP) == 0);
  REQUIRE(lather::test::WaitAllThreadsStopped(worker));
  CHECK(WaitFor([&] { return sched_getscheduler(tid) == SCHED_OTHER; }, 10));
  REQUIRE(::kill(worker, SIGCONT) == 0);
  Client client = MakeClient(service, false, 10);
  int32_t result = 0;
  CHECK(client.Increment(1, &result).ok());
}

TEST_CASE("SIGHUP swaps every worker for one of the binary on disk with no failed call under traffic",
          "[supervisor]") {
  ServiceProcess service("", Flags({}));
  Traffic traffic(service, 6, "swaps");
  std::set<pid_t> all_old;
  for (int swap = 0; swap < 3; ++swap) {
    REQUIRE(WaitFor([&] { return traffic.ok() > static_cast<uint64_t>(300 * (swap + 1)); }, 20));
    const std::set<pid_t> old = Workers(service.pid());
    REQUIRE(old.size() == 2);
    all_old.insert(old.begin(), old.end());
    REQUIRE(::kill(service.pid(), SIGHUP) == 0);
    // The new generation serves, and no old worker outlives the swap (it drains, then exits).
    CHECK(NewGeneration(service, old));
  }
  REQUIRE(WaitFor([&] { return traffic.ok() > 1500; }, 20));
  traffic.Stop();
  for (pid_t p : all_old) CHECK_FALSE(Alive(p));
  INFO("first failure: " << traffic.first_failure());
  CHECK(traffic.failed() == 0);
  CHECK(Counter(service, "swaps") == static_cast<int64_t>(traffic.ok()));  // exact: nothing failed
}

TEST_CASE("a reload to a binary that cannot start leaves the old workers serving, and says why",
          "[supervisor]") {
  char pattern[] = "/tmp/lather-swap-XXXXXX";
  REQUIRE(::mkdtemp(pattern) != nullptr);
  const std::string folder = pattern;
  const std::string binary = CopyOfBinary(folder);
  ServiceProcess service("", Flags({}), 0, binary);
  const std::set<pid_t> before = Workers(service.pid());
  REQUIRE(before.size() == 2);
  Replace(binary, "#!/bin/sh\necho 'a broken build' >&2\nexit 1\n", true);
  REQUIRE(::kill(service.pid(), SIGHUP) == 0);
  CHECK(WaitFor([&] { return service.Log().find("reload failed:") != std::string::npos; }, 10));
  CHECK(service.Log().find("the old workers keep serving") != std::string::npos);
  CHECK(WaitFor([&] { return Workers(service.pid()) == before; }, 5));  // the failed new ones are gone
  Traffic traffic(service, 2, "");
  REQUIRE(WaitFor([&] { return traffic.ok() > 100; }, 10));
  traffic.Stop();
  CHECK(traffic.failed() == 0);

  SECTION("and a worker that dies meanwhile backs off on the broken binary, then recovers on a good one") {
    const pid_t victim = *before.begin();
    REQUIRE(::kill(victim, SIGKILL) == 0);
    CHECK(WaitFor([&] { return service.Log().find("failures in a row at start; next start in") != std::string::npos; },
                  10));
    Replace(binary, ServiceBinary(), false);
    CHECK(WaitFor([&] { return Workers(service.pid()).size() == 2 &&
                               Get(AdminPort(service), "/healthz") == "2 of 2 workers serving\n"; }, 30));
  }
  std::filesystem::remove_all(folder);
}

TEST_CASE("a worker whose pipe has closed but which has not exited yet does not make the supervisor spin",
          "[supervisor]") {
  // A worker's pipe reads as ready (EOF) from the moment it closes until the worker is reaped; polled, it made
  // the supervisor spin at normal priority for as long as the exit took - on a busy core, minutes (bench/soak,
  // 2026-12-05), taking the CPU the dying worker needed. Staged here: a "new build" that closes its end of the
  // pipe at once and lingers 3 s before failing. Judged on the supervisor's CPU time, not on wall time.
  char pattern[] = "/tmp/lather-swap-XXXXXX";
  REQUIRE(::mkdtemp(pattern) != nullptr);
  const std::string folder = pattern;
  const std::string binary = CopyOfBinary(folder);
  ServiceProcess service("", Flags({}), 0, binary);
  const std::set<pid_t> before = Workers(service.pid());
  REQUIRE(before.size() == 2);
  Replace(binary, "#!/bin/sh\neval \"exec ${LATHER_WORKER_FD}>&-\"\nsleep 3\nexit 1\n", true);
  const double cpu_before = lather::test::CpuSeconds(service.pid());
  REQUIRE(::kill(service.pid(), SIGHUP) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // the new workers' pipes closed, both alive
  const double spent = lather::test::CpuSeconds(service.pid()) - cpu_before;
  INFO("the supervisor's CPU over 2.5 s with two closed pipes: " << spent << " s");
  CHECK(spent < 0.5);  // spinning, it took a core's worth (2.5 s idle; over 1 s on a busy machine)
  CHECK(WaitFor([&] { return service.Log().find("reload failed:") != std::string::npos; }, 20));
  CHECK(WaitFor([&] { return Workers(service.pid()) == before; }, 5));  // the old workers keep serving
  std::filesystem::remove_all(folder);
}

TEST_CASE("the supervisor's SIGTERM drains every worker, then it exits 0", "[supervisor]") {
  ServiceProcess service("", Flags({}));
  const std::set<pid_t> workers = Workers(service.pid());
  REQUIRE(workers.size() == 2);
  CHECK(service.Stop() == 0);
  for (pid_t p : workers) CHECK_FALSE(Alive(p));
  const std::string log = service.Log();
  CHECK(log.find("draining every worker") != std::string::npos);
  CHECK(log.find("drained at the stop: exited with status 0") != std::string::npos);
}

TEST_CASE("a supervisor killed with SIGKILL leaves no worker serving", "[supervisor]") {
  ServiceProcess service("", Flags({}));
  const std::set<pid_t> workers = Workers(service.pid());
  REQUIRE(workers.size() == 2);
  REQUIRE(::kill(service.pid(), SIGKILL) == 0);
  CHECK(WaitFor([&] {
    for (pid_t p : workers) {
      if (Alive(p)) return false;
    }
    return true;
  }, 20));
  // Nobody accepts any more: the socket closed with its last holder.
  CHECK_THROWS(lather::test::SendRaw(service.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
}

TEST_CASE("SIGUSR2 re-executes the supervisor with its socket: same PID, new workers, no failed call",
          "[supervisor]") {
  ServiceProcess service("", Flags({}));
  Traffic traffic(service, 4, "reexec");
  REQUIRE(WaitFor([&] { return traffic.ok() > 200; }, 10));
  const std::set<pid_t> old = Workers(service.pid());
  REQUIRE(::kill(service.pid(), SIGUSR2) == 0);
  CHECK(WaitFor([&] { return service.Log().find("re-executed with 2 inherited workers") != std::string::npos; }, 10));
  CHECK(NewGeneration(service, old));
  REQUIRE(WaitFor([&] { return traffic.ok() > 600; }, 20));
  traffic.Stop();
  INFO("first failure: " << traffic.first_failure());
  CHECK(traffic.failed() == 0);
  CHECK(Counter(service, "reexec") == static_cast<int64_t>(traffic.ok()));
  CHECK(Get(AdminPort(service), "/healthz").empty() == false);
}
