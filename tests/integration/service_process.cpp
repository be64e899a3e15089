#include "tests/integration/service_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace lather::test {

std::string ServiceBinary() { return LATHER_SERVICE_BIN; }
std::string CallBinary() { return LATHER_CALL_BIN; }
std::string StressBinary() { return LATHER_STRESS_BIN; }

CommandResult RunCommand(const std::string& command, int timeout_seconds) {
  CommandResult result;
  FILE* pipe = ::popen(("timeout " + std::to_string(timeout_seconds) + " " + command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed: " + command);
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

namespace {
int WaitExit(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -SIGKILL;
}
}  // namespace

ServiceProcess::ServiceProcess(std::string store_uri, std::vector<std::string> extra_args, int max_open_files,
                               std::string binary) {
  char pattern[] = "/tmp/lather-test-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  folder_ = pattern;
  // A constructor that throws runs no destructor: the folder goes here then (a service that did not start).
  struct RemoveUnlessStarted {
    const std::string& folder;
    bool started = false;
    ~RemoveUnlessStarted() {
      std::error_code ignored;
      if (!started) std::filesystem::remove_all(folder, ignored);
    }
  } cleanup{folder_};
  store_uri_ = store_uri.empty() ? "sqlite:" + folder_ + "/counters.db" : std::move(store_uri);
  const std::string port_file = folder_ + "/port";
  const std::string log_file = folder_ + "/service.log";

  std::vector<std::string> args = {binary.empty() ? ServiceBinary() : binary, "--listen", "127.0.0.1:0", "--store", store_uri_,
                                   "--port-file", port_file, "--threads", "2"};
  // CTest runs the integration tests once per engine: LATHER_TEST_ENGINE=classic selects the other.
  if (const char* engine = std::getenv("LATHER_TEST_ENGINE"); engine != nullptr && *engine != '\0') {
    args.insert(args.end(), {"--engine", engine});
  }
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // Not this process's stdout either: if the test process dies abruptly (a sanitizer's halt_on_error), a
  // service left running must not hold CTest's output pipe open, which made CTest wait for its timeout.
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  // posix_spawn has no resource-limit attribute: the child inherits this process's limit, lowered
  // for the spawn and restored at once (tests run one at a time on the main thread).
  rlimit saved{};
  ::getrlimit(RLIMIT_NOFILE, &saved);
  if (max_open_files > 0) {
    rlimit lowered = saved;
    lowered.rlim_cur = static_cast<rlim_t>(max_open_files);
    if (::setrlimit(RLIMIT_NOFILE, &lowered) != 0) throw std::runtime_error("cannot lower RLIMIT_NOFILE");
  }
  const int rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
  if (max_open_files > 0) ::setrlimit(RLIMIT_NOFILE, &saved);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + args[0]);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(port_file);
    if (in >> port_ && port_ > 0) {
      cleanup.started = true;
      return;
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("lather-service exited at start: " + Log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Stop();
  throw std::runtime_error("lather-service did not start within 15 s: " + Log());
}

ServiceProcess::~ServiceProcess() {
  Stop();
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

int ServiceProcess::Stop() {
  if (pid_ <= 0) return 0;
  ::kill(pid_, SIGTERM);  // harmless if the test already sent it
  const int status = WaitExit(pid_, std::chrono::seconds(15));
  pid_ = -1;
  return status;
}

std::string ServiceProcess::Log() const {
  std::ifstream in(folder_ + "/service.log");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace lather::test
