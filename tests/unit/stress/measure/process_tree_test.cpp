// A server's CPU with its descendants, and its budget under a cgroup CPU quota (issue 16: a node of a farm
// with a quarter of a core counts as 0.25 cores). Real processes and, as root, a real cgroup.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "stress/measure/process_tree.h"
#include "stress/measure/resource_sampler.h"

using lather::BudgetCores;
using lather::CgroupCpuQuotaCores;
using lather::ProcCpuSeconds;
using lather::ProcessTreeCpuSeconds;

namespace {

// Burns CPU until killed (bounded: 60 s at most).
[[noreturn]] void Spin() {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  volatile unsigned long x = 0;
  while (std::chrono::steady_clock::now() < end) x = x + 1;
  _exit(0);
}

// Waits until `pid`'s tree has used at least `seconds` of CPU (bounded: 30 s).
void WaitForCpu(pid_t pid, double seconds) {
  for (int i = 0; i < 3000 && ProcessTreeCpuSeconds(pid) < seconds; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

TEST_CASE("a process's CPU counts its live descendants and the children it reaped", "[stress][measure]") {
  // parent (sleeps) -> child (spins): the parent alone uses nothing, the tree uses the child's CPU.
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  const pid_t parent = fork();
  REQUIRE(parent >= 0);
  if (parent == 0) {
    const pid_t child = fork();
    if (child == 0) Spin();
    char c;
    (void)!read(pipe_fds[0], &c, 1);  // told to reap the child
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    (void)!read(pipe_fds[0], &c, 1);  // told to end
    _exit(0);
  }
  WaitForCpu(parent, 0.3);
  const double tree = ProcessTreeCpuSeconds(parent);
  CHECK(tree >= 0.3);
  CHECK(ProcCpuSeconds(parent) < 0.1);  // the parent itself only sleeps
  // Reaped, the child's CPU moves to the parent's cutime: the tree's figure does not drop.
  REQUIRE(write(pipe_fds[1], "x", 1) == 1);
  for (int i = 0; i < 500; ++i) {
    std::ifstream stat("/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children");
    std::string children;
    if (!(stat >> children)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(ProcessTreeCpuSeconds(parent) >= tree * 0.99);
  REQUIRE(write(pipe_fds[1], "x", 1) == 1);
  waitpid(parent, nullptr, 0);
  CHECK(ProcessTreeCpuSeconds(parent) < 0);  // gone: unknown, not zero
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

TEST_CASE("a process under a cgroup CPU quota has the quota as its budget", "[stress][measure][root]") {
  const std::string v1 = "/sys/fs/cgroup/cpu";
  struct stat st {};
  if (geteuid() != 0 || stat((v1 + "/cpu.cfs_quota_us").c_str(), &st) != 0) {
    WARN("needs root and the cgroup v1 cpu controller at " + v1 + "; skipped");
    return;
  }
  const std::string dir = v1 + "/lather-test-" + std::to_string(getpid());
  REQUIRE(mkdir(dir.c_str(), 0755) == 0);
  { std::ofstream(dir + "/cpu.cfs_period_us") << 100000; }
  { std::ofstream(dir + "/cpu.cfs_quota_us") << 25000; }
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) Spin();
  { std::ofstream(dir + "/cgroup.procs") << child; }
  std::string path;
  CHECK(CgroupCpuQuotaCores(child, &path) == Approx(0.25));
  CHECK(path == "/lather-test-" + std::to_string(getpid()));
  CHECK(BudgetCores(child) == Approx(0.25));
  CHECK(CgroupCpuQuotaCores(getpid()) < 0);  // this process has no quota
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  CHECK(rmdir(dir.c_str()) == 0);
}
