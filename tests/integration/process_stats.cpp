#include "tests/integration/process_stats.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace lather::test {

namespace {

// A "Field:  N kB" line of /proc/PID/status, in KiB; -1 if unreadable.
long StatusKiB(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(field.size()));
  }
  return -1;
}

// The fields of a stat file (/proc/PID/stat, /proc/PID/task/TID/stat) from field 3 on (the command name,
// field 2, may hold spaces).
std::istringstream StatFields(const std::string& path) {
  std::ifstream in(path);
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  return std::istringstream(paren == std::string::npos ? std::string() : stat.substr(paren + 2));
}

std::istringstream StatFields(pid_t pid) { return StatFields("/proc/" + std::to_string(pid) + "/stat"); }

}  // namespace

long ResidentKiB(pid_t pid) { return StatusKiB(pid, "VmRSS:"); }

long PeakResidentKiB(pid_t pid) { return StatusKiB(pid, "VmHWM:"); }

long MinorFaults(pid_t pid) {
  std::istringstream fields = StatFields(pid);
  std::string field;
  for (int i = 3; i <= 10; ++i) {
    if (!(fields >> field)) return -1;
  }
  return std::stol(field);
}

bool WaitAllThreadsStopped(pid_t pid, int max_wait_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(max_wait_ms);
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (;;) {
    bool all = true;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(tasks, ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec)) {
      std::ifstream in(it->path() / "stat");
      std::string line;
      std::getline(in, line);
      const size_t close = line.rfind(')');
      if (close == std::string::npos || close + 2 >= line.size() || line[close + 2] != 'T') all = false;
    }
    if (all && !ec) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

std::map<pid_t, int> ThreadNices(pid_t pid) {
  std::map<pid_t, int> nices;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::istringstream fields = StatFields(it->path() / "stat");
    std::string field;
    for (int i = 3; i < 19 && fields >> field; ++i) {
    }
    int nice = 0;
    if (fields >> nice) nices[std::atoi(it->path().filename().c_str())] = nice;
  }
  return nices;
}

long OpenFds(pid_t pid) {
  long n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

double CpuSeconds(pid_t pid) {
  std::istringstream fields = StatFields(pid);
  if (fields.str().empty()) return -1;
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

long SettledFds(pid_t pid, long at_most, int max_wait_ms) {
  long last = OpenFds(pid);
  for (int waited = 0; waited < max_wait_ms; waited += 100) {
    if (at_most >= 0 && last <= at_most) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const long now = OpenFds(pid);
    if (at_most < 0 && now == last) break;
    last = now;
  }
  return last;
}

}  // namespace lather::test
