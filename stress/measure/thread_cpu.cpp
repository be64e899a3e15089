#include "stress/measure/thread_cpu.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>

namespace lather {

double StatCpuSeconds(const std::string& line) {
  const size_t close = line.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos || close + 2 > line.size()) return -1;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {  // field 3 is the state
    if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::vector<ThreadCpu> ReadThreadCpu(pid_t pid) {
  std::vector<ThreadCpu> threads;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(tasks.c_str());
  if (dir == nullptr) return threads;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::ifstream in(tasks + "/" + entry->d_name + "/stat");
    std::string line;
    if (!std::getline(in, line)) continue;  // the thread ended meanwhile
    const double seconds = StatCpuSeconds(line);
    if (seconds >= 0) threads.push_back({static_cast<pid_t>(std::atoi(entry->d_name)), seconds});
  }
  closedir(dir);
  return threads;
}

double PeakThreadCpu(const std::vector<ThreadCpu>& before, const std::vector<ThreadCpu>& after) {
  if (after.empty()) return -1;
  std::unordered_map<pid_t, double> start;
  for (const ThreadCpu& t : before) start[t.tid] = t.cpu_seconds;
  double peak = 0;
  for (const ThreadCpu& t : after) {
    const auto it = start.find(t.tid);
    const double used = t.cpu_seconds - (it == start.end() ? 0 : it->second);
    if (used > peak) peak = used;
  }
  return peak;
}

}  // namespace lather
