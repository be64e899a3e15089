#include "service/supervisor/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <sstream>
#include <utility>

#include "common/clock.h"
#include "common/log.h"
#include "service/admin/admin_server.h"
#include "service/http/listener.h"
#include "service/supervisor/metrics_sum.h"
#include "service/supervisor/start_priority.h"
#include "service/supervisor/worker_channel.h"

extern char** environ;

namespace lather {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kStartTimeoutNs = 15'000 * kMs;  // a worker not serving by then has failed to start
constexpr int64_t kStableNs = 2'000 * kMs;         // one that served this long did not fail at start
constexpr int64_t kFirstBackoffNs = 100 * kMs;     // consecutive failures wait 0.1, 0.2, 0.4 ... s
constexpr int64_t kMaxBackoffNs = 10'000 * kMs;
constexpr int64_t kHangKillGraceNs = 1'000 * kMs;  // a hung worker gets this long after SIGTERM
constexpr int64_t kIdleExitNs = 100 * kMs;  // and its exit this long under SCHED_IDLE after SIGKILL
// A worker silent this long (three heartbeats) may be dying - a SIGKILL from outside, the OOM killer - and its
// threads still under SCHED_IDLE (a large echo's yielding job, service/dispatch/blocking_pool.h) would hold its
// exit, and so its replacement, for seconds on a busy core (1 s beside a spinner, 13 s in bench/soak): they
// go to the normal policy then (start_priority.h's LiftIdleThreads), once per silence.
constexpr int64_t kSilentLiftNs = 300 * kMs;
// The environment of a re-executed supervisor (SIGUSR2): its listening socket and its workers.
constexpr char kInheritedListenEnv[] = "LATHER_SUPERVISOR_LISTEN_FD";
constexpr char kInheritedWorkersEnv[] = "LATHER_SUPERVISOR_WORKERS";  // slot:pid:fd:admin_port,...

enum class Role { kServing, kStarting, kRetiring };

struct Worker {
  int slot = 0;
  pid_t pid = 0;
  int fd = -1;  // the read end of its pipe
  // Until its end of the pipe closes (the worker is ending; its exit is reaped later): a closed pipe is no
  // longer polled - it reads as ready at once, and the loop spun on it until the worker was reaped (a worker
  // whose exit took seconds on a busy core had the supervisor take a quarter of that core).
  bool pipe_open = true;
  Role role = Role::kServing;
  bool ready = false;
  bool lifted = false;  // its start, still not serving after kIdleStartNs under SCHED_IDLE, was lifted
  int64_t started_ns = 0;
  int64_t last_beat_ns = 0;
  uint32_t stalled_ms = 0;
  uint64_t answered = 0;
  uint16_t admin_port = 0;
  int64_t kill_at_ns = 0;  // retiring: SIGKILL then
  bool demoted = false;      // a hung worker put under SCHED_IDLE before its kill (start_priority.h)
  int64_t lift_at_ns = -1;  // and its exit back to the normal policy then (set at SIGKILL); -1 not yet
  bool silence_lifted = false;  // lifted for this silence (kSilentLiftNs); a heartbeat ends the silence
  std::string retire_reason;
  WorkerMessageReader reader;
};

struct Slot {
  int restarts = 0;
  int failures = 0;           // consecutive failures at start
  int64_t restart_at_ns = -1;  // a replacement is due then; -1 none pending
};

// What the admin thread may see of the workers.
struct WorkerView {
  int slot;
  pid_t pid;
  uint16_t admin_port;
  bool serving;
  int restarts;
  uint64_t answered;
};

// "killed by SIGSEGV", "exited with status 1".
std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return std::string("killed by SIG") + (name != nullptr ? name : std::to_string(sig).c_str()) +
           (WCOREDUMP(status) ? " (core dumped)" : "");
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended (status " + std::to_string(status) + ")";
}

std::string Seconds(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ns) / 1e9);
  return text;
}

void ClearCloexec(int fd) {
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags >= 0) ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
}

class Supervisor {
 public:
  explicit Supervisor(const SupervisorOptions& options)
      : options_(options), slots_(options.workers), nice_(getpriority(PRIO_PROCESS, 0)),
        start_niced_(CanStartWorkersNiced()) {}
  int Run();

 private:
  // Starts a worker for `slot` from the binary on disk now; false (logged) if fork or pipe fails.
  bool Spawn(int slot, Role role);
  void HandleSignal(int signal_number);
  void Reap();
  void ReadPipes();
  void CheckTimers();
  // SIGHUP: a new generation from the binary on disk, the old drained once it serves.
  void StartReload();
  void FinishReloadIfReady();
  void AbortReload(const std::string& why);
  void Retire(Worker* worker, const std::string& reason, int64_t grace_ns);
  void ScheduleRestart(int slot, bool failed_at_start);
  // A slot with no worker (one that died during a failed reload) gets one.
  void RefillEmptySlots();
  void Publish();
  void WritePortFileOnce();
  // SIGUSR2: execve the binary on disk as the supervisor, handing it the socket and the workers.
  void ReExecute();
  bool AdoptInherited();
  std::string RenderMetrics();
  std::pair<int, std::string> Health();

  SupervisorOptions options_;
  std::vector<Slot> slots_;
  std::list<Worker> workers_;
  boost::asio::io_context io_{1};
  boost::asio::ip::tcp::acceptor acceptor_{io_};
  uint16_t port_ = 0;
  std::string address_;
  std::unique_ptr<AdminServer> admin_;
  bool stopping_ = false;
  bool reloading_ = false;
  bool port_written_ = false;
  int reloads_ = 0;
  std::mutex view_mutex_;
  std::vector<WorkerView> view_;
  int signal_fd_ = -1;
  const int nice_;          // the supervisor's, which its workers serve at
  const bool start_niced_;  // workers start at nice_ + kStartNiceOffset (service/supervisor/start_priority.h)
};

bool Supervisor::Spawn(int slot, Role role) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    LogLine(std::string("cannot start worker ") + std::to_string(slot) + ": pipe: " + std::strerror(errno));
    return false;
  }
  // Everything the child needs is made before fork: between fork and exec it may only make async-signal-safe calls.
  const int listen_fd = acceptor_.native_handle();
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("LISTEN_FDS=", 0) == 0 || entry.rfind("LISTEN_PID=", 0) == 0 ||
        entry.rfind("LISTEN_FDNAMES=", 0) == 0 || entry.rfind("LATHER_SUPERVISOR_", 0) == 0 ||
        entry.rfind(std::string(kWorkerNiceEnv) + "=", 0) == 0) {
      continue;
    }
    env_strings.push_back(entry);
  }
  env_strings.push_back(std::string(kWorkerFdEnv) + "=" + std::to_string(pipe_fds[1]));
  env_strings.push_back(std::string(kListenFdEnv) + "=" + std::to_string(listen_fd));
  env_strings.push_back(std::string(kWorkerIndexEnv) + "=" + std::to_string(slot));
  // The start at a lower priority, so that it does not take the core from the workers that serve; the
  // worker takes this value back once it listens.
  if (start_niced_) env_strings.push_back(std::string(kWorkerNiceEnv) + "=" + std::to_string(nice_));
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings{options_.binary};
  arg_strings.insert(arg_strings.end(), options_.worker_args.begin(), options_.worker_args.end());
  std::vector<char*> argv;
  for (std::string& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  sigset_t none;
  sigemptyset(&none);

  const pid_t pid = ::fork();
  if (pid < 0) {
    LogLine(std::string("cannot start worker ") + std::to_string(slot) + ": fork: " + std::strerror(errno));
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return false;
  }
  if (pid == 0) {
    // The worker dies with the supervisor (SIGTERM: it drains and exits), so no worker outlives it.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);
    ClearCloexec(listen_fd);
    ClearCloexec(pipe_fds[1]);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (start_niced_) EnterStart(nice_ + kStartNiceOffset);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  Worker worker;
  worker.slot = slot;
  worker.pid = pid;
  worker.fd = pipe_fds[0];
  worker.role = role;
  worker.started_ns = MonotonicNanos();
  worker.last_beat_ns = worker.started_ns;
  workers_.push_back(std::move(worker));
  return true;
}

void Supervisor::Retire(Worker* worker, const std::string& reason, int64_t grace_ns) {
  if (worker->role == Role::kRetiring) return;
  worker->role = Role::kRetiring;
  worker->retire_reason = reason;
  worker->kill_at_ns = MonotonicNanos() + grace_ns;
  ::kill(worker->pid, SIGTERM);
}

void Supervisor::ScheduleRestart(int slot, bool failed_at_start) {
  Slot& s = slots_[static_cast<size_t>(slot)];
  ++s.restarts;
  if (failed_at_start) {
    ++s.failures;
    int64_t delay = kFirstBackoffNs;
    for (int i = 1; i < s.failures && delay < kMaxBackoffNs; ++i) delay *= 2;
    if (delay > kMaxBackoffNs) delay = kMaxBackoffNs;
    s.restart_at_ns = MonotonicNanos() + delay;
    if (s.failures > 1) {
      LogLine("worker " + std::to_string(slot) + ": " + std::to_string(s.failures) +
              " failures in a row at start; next start in " + Seconds(delay));
    }
  } else {
    s.failures = 0;
    s.restart_at_ns = MonotonicNanos();
  }
}

void Supervisor::Reap() {
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (auto it = workers_.begin(); it != workers_.end(); ++it) {
      if (it->pid != pid) continue;
      Worker& w = *it;
      const int64_t up = MonotonicNanos() - w.started_ns;
      const std::string who = "worker " + std::to_string(w.slot) + " (pid " + std::to_string(pid) + ")";
      if (w.role == Role::kRetiring) {
        LogLine(who + " " + w.retire_reason + ": " + DescribeExit(status) + " after " + std::to_string(w.answered) +
                " requests");
      } else if (w.role == Role::kStarting) {
        AbortReload("the new " + who + " " + DescribeExit(status) + " before serving");
      } else {
        LogLine(who + " died: " + DescribeExit(status) + " after " + std::to_string(w.answered) + " requests (up " +
                Seconds(up) + "); starting a replacement");
        // While a reload runs, the new generation fills the slot (or, if it fails, RefillEmptySlots does).
        if (!stopping_ && !reloading_) ScheduleRestart(w.slot, !w.ready || up < kStableNs);
      }
      ::close(w.fd);
      workers_.erase(it);
      break;
    }
  }
}

void Supervisor::ReadPipes() {
  const int64_t now = MonotonicNanos();
  for (Worker& w : workers_) {
    if (!w.pipe_open) continue;
    std::vector<WorkerMessage> messages;
    w.pipe_open = w.reader.Read(w.fd, &messages);  // EOF: the worker is ending; its exit is reaped
    for (const WorkerMessage& m : messages) {
      w.last_beat_ns = now;
      w.silence_lifted = false;
      if (m.kind == WorkerMessage::kReady) {
        w.ready = true;
        w.admin_port = m.admin_port;
      } else {
        w.stalled_ms = m.stalled_ms;
        w.answered = m.answered;
      }
    }
  }
}

void Supervisor::CheckTimers() {
  const int64_t now = MonotonicNanos();
  const int64_t hang_ns = options_.hang_timeout.count() * kMs;
  for (Worker& w : workers_) {
    const std::string who = "worker " + std::to_string(w.slot) + " (pid " + std::to_string(w.pid) + ")";
    if (start_niced_ && w.ready && !w.demoted && !w.silence_lifted && now - w.last_beat_ns > kSilentLiftNs) {
      w.silence_lifted = true;
      LiftIdleThreads(w.pid);
    }
    if (w.role == Role::kRetiring) {
      if (now >= w.kill_at_ns) {
        ::kill(w.pid, SIGKILL);
        if (w.demoted && w.lift_at_ns < 0) w.lift_at_ns = now + kIdleExitNs;
        w.kill_at_ns = now + 1000 * kMs;  // again later, should the first be lost
      }
      if (w.demoted && w.lift_at_ns >= 0 && now >= w.lift_at_ns) {
        w.demoted = false;
        LiftIdleThreads(w.pid);  // a busy core starves its exit, which may hold what others wait for (the store's lock)
      }
      continue;
    }
    if (!w.ready) {
      if (start_niced_ && !w.lifted && now - w.started_ns > kIdleStartNs) {
        w.lifted = true;
        const int moved = LiftIdleThreads(w.pid);
        if (moved > 0) {
          LogLine(who + " not serving " + Seconds(kIdleStartNs) + " after its start under SCHED_IDLE (a busy core); " +
                  std::to_string(moved) + " thread(s) moved to the normal policy at nice " +
                  std::to_string(nice_ + kStartNiceOffset));
        }
      }
      if (now - w.started_ns > kStartTimeoutNs) {
        if (w.role == Role::kStarting) {
          AbortReload("the new " + who + " did not serve within " + Seconds(kStartTimeoutNs));
          return;  // the list changed
        }
        LogLine(who + " did not serve within " + Seconds(kStartTimeoutNs) + "; killing it");
        Retire(&w, "failed to start", 0);
        if (!stopping_) ScheduleRestart(w.slot, true);
      }
      continue;
    }
    const int64_t silent = now - w.last_beat_ns;
    if (silent > hang_ns || static_cast<int64_t>(w.stalled_ms) * kMs > hang_ns) {
      LogLine(who + " hung: " +
              (silent > hang_ns ? "no heartbeat for " + Seconds(silent)
                                : "a loop or call stalled for " + Seconds(static_cast<int64_t>(w.stalled_ms) * kMs)) +
              " (--hang-timeout " + std::to_string(options_.hang_timeout.count()) + " ms) after " +
              std::to_string(w.answered) + " requests; killing it (SIGTERM, SIGKILL after 1 s) and starting a "
              "replacement");
      const bool serving = w.role == Role::kServing;
      // Its exit's work (unmapping its memory) yields to the workers that serve, for kIdleExitNs after SIGKILL.
      if (start_niced_) {
        Demote(w.pid);
        w.demoted = true;
      }
      Retire(&w, "killed after hanging", kHangKillGraceNs);
      if (serving && !stopping_) ScheduleRestart(w.slot, false);
    }
  }
  if (stopping_) return;
  RefillEmptySlots();
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].restart_at_ns >= 0 && now >= slots_[i].restart_at_ns) {
      slots_[i].restart_at_ns = -1;
      if (!Spawn(static_cast<int>(i), Role::kServing)) ScheduleRestart(static_cast<int>(i), true);
    }
  }
}

void Supervisor::RefillEmptySlots() {
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].restart_at_ns >= 0) continue;
    bool occupied = false;
    for (const Worker& w : workers_) {
      occupied = occupied || (w.slot == static_cast<int>(i) && w.role != Role::kRetiring);
    }
    if (!occupied) ScheduleRestart(static_cast<int>(i), false);
  }
}

void Supervisor::StartReload() {
  if (stopping_) return;
  if (reloading_) {
    LogLine("reload: one is already in progress; ignored");
    return;
  }
  reloading_ = true;
  ++reloads_;
  LogLine("reload: starting " + std::to_string(options_.workers) + " workers from " + options_.binary);
  for (int i = 0; i < options_.workers; ++i) {
    if (!Spawn(i, Role::kStarting)) return AbortReload("worker " + std::to_string(i) + " could not be started");
  }
}

void Supervisor::FinishReloadIfReady() {
  if (!reloading_) return;
  for (const Worker& w : workers_) {
    if (w.role == Role::kStarting && !w.ready) return;
  }
  for (Worker& w : workers_) {
    if (w.role == Role::kServing) Retire(&w, "drained after the reload", (options_.shutdown_grace.count() + 2000) * kMs);
  }
  for (Worker& w : workers_) {
    if (w.role == Role::kStarting) w.role = Role::kServing;
  }
  for (Slot& s : slots_) s.restart_at_ns = -1;  // the new generation fills every slot
  reloading_ = false;
  LogLine("reload: the new workers serve; the old ones drain");
}

void Supervisor::AbortReload(const std::string& why) {
  LogLine("reload failed: " + why + "; the old workers keep serving");
  for (Worker& w : workers_) {
    if (w.role == Role::kStarting) Retire(&w, "stopped after the failed reload", 0);
  }
  reloading_ = false;
}

void Supervisor::HandleSignal(int signal_number) {
  switch (signal_number) {
    case SIGCHLD:
      Reap();
      break;
    case SIGHUP:
      StartReload();
      break;
    case SIGUSR2:
      ReExecute();
      break;
    case SIGTERM:
    case SIGINT:
      if (!stopping_) {
        LogLine(std::string("stopping on ") + (signal_number == SIGINT ? "SIGINT" : "SIGTERM") +
                ": draining every worker");
        stopping_ = true;
        for (Worker& w : workers_) Retire(&w, "drained at the stop", (options_.shutdown_grace.count() + 2000) * kMs);
      }
      break;
    default:
      break;
  }
}

void Supervisor::Publish() {
  std::vector<WorkerView> view;
  for (const Worker& w : workers_) {
    view.push_back({w.slot, w.pid, w.admin_port, w.role == Role::kServing && w.ready,
                    slots_[static_cast<size_t>(w.slot)].restarts, w.answered});
  }
  std::lock_guard<std::mutex> lock(view_mutex_);
  view_ = std::move(view);
}

void Supervisor::WritePortFileOnce() {
  if (port_written_) return;
  int serving = 0;
  for (const Worker& w : workers_) serving += w.role == Role::kServing && w.ready ? 1 : 0;
  if (serving < options_.workers) return;  // "listening" means every first worker serves
  port_written_ = true;
  LogLine("serving on http://" + address_ + "/soap with " + std::to_string(options_.workers) + " workers");
  if (options_.port_file.empty()) return;
  FILE* f = std::fopen(options_.port_file.c_str(), "w");
  if (f == nullptr || std::fprintf(f, "%u\n", port_) < 0 || std::fclose(f) != 0) {
    LogLine("cannot write --port-file " + options_.port_file);
  }
}

std::string Supervisor::RenderMetrics() {
  std::vector<WorkerView> view;
  {
    std::lock_guard<std::mutex> lock(view_mutex_);
    view = view_;
  }
  std::vector<std::string> texts;
  int serving = 0;
  for (const WorkerView& w : view) {
    if (!w.serving) continue;
    ++serving;
    texts.push_back(FetchLocalMetrics(w.admin_port));
  }
  std::string out = SumMetrics(texts);
  out += "# HELP lather_workers Worker processes: configured, and serving now.\n# TYPE lather_workers gauge\n";
  out += "lather_workers{state=\"configured\"} " + std::to_string(options_.workers) + "\n";
  out += "lather_workers{state=\"serving\"} " + std::to_string(serving) + "\n";
  out += "# HELP lather_worker_up Whether the worker in this slot serves.\n# TYPE lather_worker_up gauge\n";
  std::string restarts = "# HELP lather_worker_restarts_total Replacements of the worker in this slot (crash, hang).\n"
                         "# TYPE lather_worker_restarts_total counter\n";
  for (int i = 0; i < options_.workers; ++i) {
    bool up = false;
    int count = 0;
    for (const WorkerView& w : view) {
      if (w.slot != i) continue;
      up = up || w.serving;
      count = w.restarts;
    }
    out += "lather_worker_up{worker=\"" + std::to_string(i) + "\"} " + (up ? "1" : "0") + "\n";
    restarts += "lather_worker_restarts_total{worker=\"" + std::to_string(i) + "\"} " + std::to_string(count) + "\n";
  }
  out += restarts;
  out += "# HELP lather_reloads_total Hot swaps started (SIGHUP, POST /reload).\n# TYPE lather_reloads_total counter\n";
  out += "lather_reloads_total " + std::to_string(reloads_) + "\n";
  return out;
}

std::pair<int, std::string> Supervisor::Health() {
  std::lock_guard<std::mutex> lock(view_mutex_);
  int serving = 0;
  for (const WorkerView& w : view_) serving += w.serving ? 1 : 0;
  return {serving > 0 ? 200 : 503, std::to_string(serving) + " of " + std::to_string(options_.workers) +
                                       " workers serving\n"};
}

void Supervisor::ReExecute() {
  if (reloading_ || stopping_) {
    LogLine("re-execute: a reload or stop is in progress; ignored");
    return;
  }
  LogLine("re-executing the supervisor from " + options_.binary + " (the socket and the workers are handed over)");
  std::string inherited;
  for (const Worker& w : workers_) {
    if (w.role != Role::kServing || !w.ready) continue;
    ClearCloexec(w.fd);
    inherited += (inherited.empty() ? "" : ",") + std::to_string(w.slot) + ":" + std::to_string(w.pid) + ":" +
                 std::to_string(w.fd) + ":" + std::to_string(w.admin_port);
  }
  ClearCloexec(acceptor_.native_handle());
  ::setenv(kInheritedListenEnv, std::to_string(acceptor_.native_handle()).c_str(), 1);
  ::setenv(kInheritedWorkersEnv, inherited.c_str(), 1);
  admin_.reset();  // its port is bound again by the new image
  std::vector<std::string> args = options_.supervisor_argv;
  args[0] = options_.binary;
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);  // the new image blocks what it needs itself
  ::execv(argv[0], argv.data());
  // Still here: the old image carries on.
  LogLine(std::string("re-execute failed: ") + std::strerror(errno) + "; carrying on as before");
  ::unsetenv(kInheritedListenEnv);
  ::unsetenv(kInheritedWorkersEnv);
  sigset_t handled;
  sigemptyset(&handled);
  for (int s : {SIGCHLD, SIGHUP, SIGUSR2, SIGTERM, SIGINT}) sigaddset(&handled, s);
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  if (!options_.admin_listen.empty()) {
    AdminHandlers handlers;
    handlers.render_metrics = [this] { return RenderMetrics(); };
    handlers.health = [this] { return Health(); };
    handlers.reload = [] { ::kill(::getpid(), SIGHUP); return std::string("reload started\n"); };
    if (!AdminServer::Start(options_.admin_listen, std::move(handlers), &admin_).ok()) LogLine("admin listener lost");
  }
}

bool Supervisor::AdoptInherited() {
  const int fd = EnvInt(kInheritedListenEnv);
  if (fd < 0) return false;
  const char* list = std::getenv(kInheritedWorkersEnv);
  std::stringstream entries(list != nullptr ? list : "");
  std::string entry;
  const int64_t now = MonotonicNanos();
  while (std::getline(entries, entry, ',')) {
    int slot = 0, pid = 0, pipe_fd = 0, admin_port = 0;
    if (std::sscanf(entry.c_str(), "%d:%d:%d:%d", &slot, &pid, &pipe_fd, &admin_port) != 4) continue;
    if (slot < 0 || slot >= options_.workers) {
      ::kill(pid, SIGTERM);  // a smaller pool after the upgrade: the extra worker drains
      continue;
    }
    ::fcntl(pipe_fd, F_SETFD, FD_CLOEXEC);
    Worker w;
    w.slot = slot;
    w.pid = pid;
    w.fd = pipe_fd;
    w.ready = true;
    w.started_ns = now - kStableNs;
    w.last_beat_ns = now;
    w.admin_port = static_cast<uint16_t>(admin_port);
    workers_.push_back(std::move(w));
  }
  ::unsetenv(kInheritedListenEnv);
  ::unsetenv(kInheritedWorkersEnv);
  return true;
}

int Supervisor::Run() {
  sigset_t handled;
  sigemptyset(&handled);
  for (int s : {SIGCHLD, SIGHUP, SIGUSR2, SIGTERM, SIGINT}) sigaddset(&handled, s);
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  signal_fd_ = ::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd_ < 0) {
    LogLine(std::string("cannot start: signalfd: ") + std::strerror(errno));
    return 1;
  }
  const int inherited_fd = EnvInt(kInheritedListenEnv);
  const bool upgraded = AdoptInherited();
  Status s = upgraded ? AdoptListener(inherited_fd, &acceptor_, &port_, &address_)
             : options_.listen_fd >= 0 ? AdoptListener(options_.listen_fd, &acceptor_, &port_, &address_)
                                       : Listen(options_.listen, &acceptor_, &port_, &address_);
  if (s.ok() && options_.receive_buffer > 0) s = SetReceiveBuffer(&acceptor_, options_.receive_buffer);
  if (!s.ok()) {
    LogLine("cannot start: " + s.message());
    return 1;
  }
  ::fcntl(acceptor_.native_handle(), F_SETFD, FD_CLOEXEC);  // handed to each worker explicitly
  if (!options_.pid_file.empty()) {
    FILE* f = std::fopen(options_.pid_file.c_str(), "w");
    if (f == nullptr || std::fprintf(f, "%d\n", static_cast<int>(::getpid())) < 0 || std::fclose(f) != 0) {
      LogLine("cannot write --pid-file " + options_.pid_file);
      return 1;
    }
  }
  if (!options_.admin_listen.empty()) {
    AdminHandlers handlers;
    handlers.render_metrics = [this] { return RenderMetrics(); };
    handlers.health = [this] { return Health(); };
    handlers.reload = [] {
      ::kill(::getpid(), SIGHUP);
      return std::string("reload started: new workers from the binary on disk; the old drain once they serve\n");
    };
    s = AdminServer::Start(options_.admin_listen, std::move(handlers), &admin_);
    if (!s.ok()) {
      LogLine("cannot start: " + s.message());
      return 1;
    }
    LogLine("admin listener on http://" + admin_->address() + " (/metrics summed over the workers, /healthz, "
            "POST /reload)");
  }
  if (upgraded) {
    port_written_ = true;
    LogLine("re-executed with " + std::to_string(workers_.size()) + " inherited workers; replacing them from " +
            options_.binary);
    StartReload();
  } else {
    LogLine("supervising " + std::to_string(options_.workers) + " workers of " + options_.binary + " on " + address_);
    for (int i = 0; i < options_.workers; ++i) {
      if (!Spawn(i, Role::kServing)) ScheduleRestart(i, true);
    }
  }

  while (!(stopping_ && workers_.empty())) {
    std::vector<pollfd> fds{{signal_fd_, POLLIN, 0}};
    for (const Worker& w : workers_) {
      if (w.pipe_open) fds.push_back({w.fd, POLLIN, 0});
    }
    ::poll(fds.data(), fds.size(), 20);
    signalfd_siginfo info;
    while (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      HandleSignal(static_cast<int>(info.ssi_signo));
    }
    Reap();  // SIGCHLDs may merge; reap whatever ended
    ReadPipes();
    FinishReloadIfReady();
    CheckTimers();
    WritePortFileOnce();
    Publish();
  }
  admin_.reset();
  if (!options_.pid_file.empty()) ::unlink(options_.pid_file.c_str());
  LogLine("stopped");
  return 0;
}

}  // namespace

int RunSupervisor(const SupervisorOptions& options) {
  Supervisor supervisor(options);
  return supervisor.Run();
}

}  // namespace lather
