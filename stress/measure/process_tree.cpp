#include "stress/measure/process_tree.h"

#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>


namespace lather {
namespace {

// The fields of /proc/PID/stat this unit reads.
struct ProcStat {
  pid_t ppid = 0;
  double cpu_seconds = 0;  // utime + stime + cutime + cstime
};

bool ReadProcStat(pid_t pid, ProcStat* out) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  // The command (field 2) is in parentheses and may hold spaces; the fields after it are plain.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(line.substr(close + 1));
  std::string state;
  long long ppid = 0;
  unsigned long long skip = 0, utime = 0, stime = 0;
  long long cutime = 0, cstime = 0;
  fields >> state >> ppid;                        // fields 3, 4
  for (int i = 5; i <= 13; ++i) fields >> skip;   // pgrp .. cmajflt
  fields >> utime >> stime >> cutime >> cstime;   // fields 14-17
  if (!fields) return false;
  out->ppid = static_cast<pid_t>(ppid);
  out->cpu_seconds = static_cast<double>(utime + stime) + static_cast<double>(cutime + cstime);
  out->cpu_seconds /= static_cast<double>(sysconf(_SC_CLK_TCK));
  return true;
}

// Every process's parent, from /proc.
std::map<pid_t, std::vector<pid_t>> ChildrenByParent() {
  std::map<pid_t, std::vector<pid_t>> children;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return children;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    ProcStat stat;
    if (ReadProcStat(static_cast<pid_t>(pid), &stat)) children[stat.ppid].push_back(static_cast<pid_t>(pid));
  }
  closedir(dir);
  return children;
}

// A cgroup hierarchy mounted on this machine: where, from which root, v1 or v2.
struct CgroupMount {
  std::string mount_point;
  std::string root;  // the cgroup path the mount shows as its top
  bool v2 = false;
};

// The hierarchy that holds the cpu controller (v1), else the unified one (v2).
bool FindCpuMount(CgroupMount* out) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  bool have_v2 = false;
  CgroupMount v2;
  while (std::getline(in, line)) {
    // "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS"
    std::istringstream fields(line);
    std::string id, parent, dev, root, mount_point, options, field;
    fields >> id >> parent >> dev >> root >> mount_point >> options;
    while (fields >> field && field != "-") {}
    std::string fstype, source, super_options;
    fields >> fstype >> source >> super_options;
    if (fstype == "cgroup2" && !have_v2) {
      have_v2 = true;
      v2 = {mount_point, root, true};
    } else if (fstype == "cgroup") {
      std::istringstream opts(super_options);
      std::string opt;
      while (std::getline(opts, opt, ',')) {
        if (opt == "cpu") {
          *out = {mount_point, root, false};
          return true;
        }
      }
    }
  }
  if (have_v2) *out = v2;
  return have_v2;
}

// The cgroup path of `pid` in the hierarchy `mount` ("" if not found).
std::string CgroupPathOf(pid_t pid, const CgroupMount& mount) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    // "ID:CONTROLLERS:PATH"; v2's line is "0::PATH".
    const size_t a = line.find(':');
    const size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    bool match = mount.v2 ? controllers.empty() : false;
    if (!mount.v2) {
      std::istringstream list(controllers);
      std::string c;
      while (std::getline(list, c, ',')) match = match || c == "cpu";
    }
    if (match) return line.substr(b + 1);
  }
  return "";
}

// The quota of one cgroup directory in cores; -1 when unlimited or unreadable.
double DirectoryQuota(const std::string& dir, bool v2) {
  if (v2) {
    std::ifstream in(dir + "/cpu.max");
    std::string quota;
    double period = 0;
    if (!(in >> quota >> period) || quota == "max" || period <= 0) return -1;
    return std::atof(quota.c_str()) / period;
  }
  std::ifstream q(dir + "/cpu.cfs_quota_us"), p(dir + "/cpu.cfs_period_us");
  double quota = -1, period = 0;
  if (!(q >> quota) || !(p >> period) || quota <= 0 || period <= 0) return -1;
  return quota / period;
}

}  // namespace

double ProcessTreeCpuSeconds(pid_t pid) {
  ProcStat root;
  if (!ReadProcStat(pid, &root)) return -1;
  double total = root.cpu_seconds;
  const std::map<pid_t, std::vector<pid_t>> children = ChildrenByParent();
  std::vector<pid_t> pending;
  auto add_children = [&](pid_t parent) {
    const auto it = children.find(parent);
    if (it != children.end()) pending.insert(pending.end(), it->second.begin(), it->second.end());
  };
  add_children(pid);
  for (size_t visited = 0; !pending.empty() && visited < 100000; ++visited) {  // bounded: a tree, not a cycle
    const pid_t child = pending.back();
    pending.pop_back();
    ProcStat stat;
    if (ReadProcStat(child, &stat)) total += stat.cpu_seconds;  // gone in between: its CPU went to a cutime
    add_children(child);
  }
  return total;
}

namespace {
// The cgroup directory of `pid` whose CPU quota is the smallest of its own and its ancestors' (the one that
// binds), and that quota in cores; false when there is none or it cannot be read.
bool BindingQuota(pid_t pid, std::string* cgroup_path, std::string* directory, double* cores, bool* v2) {
  CgroupMount mount;
  if (!FindCpuMount(&mount)) return false;
  std::string path = CgroupPathOf(pid, mount);
  if (path.empty()) return false;
  if (cgroup_path != nullptr) *cgroup_path = path;
  // The mount shows the hierarchy from `root` down (inside a container, not from the top).
  if (mount.root != "/" && path.compare(0, mount.root.size(), mount.root) == 0) path = path.substr(mount.root.size());
  double lowest = -1;
  for (;;) {
    const std::string dir = mount.mount_point + (path == "/" ? "" : path);
    const double quota = DirectoryQuota(dir, mount.v2);
    if (quota > 0 && (lowest < 0 || quota < lowest)) {
      lowest = quota;
      *directory = dir;
    }
    if (path.empty() || path == "/") break;
    const size_t slash = path.rfind('/');
    path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }
  *cores = lowest;
  *v2 = mount.v2;
  return lowest > 0;
}
}  // namespace

double CgroupCpuQuotaCores(pid_t pid, std::string* cgroup_path) {
  std::string directory;
  double cores = -1;
  bool v2 = false;
  return BindingQuota(pid, cgroup_path, &directory, &cores, &v2) ? cores : -1;
}

CgroupThrottling CgroupCpuThrottling(pid_t pid) {
  CgroupThrottling t;
  std::string directory;
  double cores = -1;
  bool v2 = false;
  if (!BindingQuota(pid, nullptr, &directory, &cores, &v2)) return t;
  // cpu.stat: "nr_periods N", "nr_throttled N", and the time throttled: v1 "throttled_time" in ns, v2
  // "throttled_usec" in us.
  std::ifstream in(directory + "/cpu.stat");
  std::string key;
  double value = 0;
  CgroupThrottling read;
  while (in >> key >> value) {
    if (key == "nr_periods") read.periods = value;
    if (key == "nr_throttled") read.throttled_periods = value;
    if (key == "throttled_time" && !v2) read.throttled_seconds = value / 1e9;
    if (key == "throttled_usec" && v2) read.throttled_seconds = value / 1e6;
  }
  return read.periods >= 0 && read.throttled_periods >= 0 ? read : t;
}

bool CgroupCpuVisible() {
  CgroupMount mount;
  if (!FindCpuMount(&mount)) return false;
  std::ifstream probe(mount.mount_point + (mount.v2 ? "/cgroup.controllers" : "/cpu.shares"));
  return static_cast<bool>(probe);
}

double BudgetCores(pid_t pid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  double cores = sched_getaffinity(pid, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                               : static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
  const double quota = CgroupCpuQuotaCores(pid);
  if (quota > 0 && quota < cores) cores = quota;
  return cores;
}

}  // namespace lather
