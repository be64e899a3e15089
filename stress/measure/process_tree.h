// The CPU a server really uses and the CPU it may use: a process together with its descendants (a
// supervisor's workers, PostgreSQL's backends, HAProxy's threads), and the budget the kernel gives it (its
// affinity mask, capped by the CPU quota of its cgroup and of the cgroup's ancestors, v1 or v2). Read from
// /proc and /sys/fs/cgroup. Functions; thread-safe.
#pragma once

#include <sys/types.h>

#include <string>

namespace lather {

// CPU seconds (user + system) of `pid` and of every live descendant, plus the CPU of the children they
// already reaped (cutime + cstime), so that a worker that dies in the window does not take its CPU along;
// -1 if `pid` cannot be read.
double ProcessTreeCpuSeconds(pid_t pid);

// The CPU quota, in cores, of the cgroup `pid` runs in: the smallest of its cgroup's and its ancestors'
// quotas (cgroup v1 cpu.cfs_quota_us / cpu.cfs_period_us, v2 cpu.max); -1 when there is none or it cannot
// be read. `cgroup_path` receives the cgroup's path under the cpu controller when not null.
double CgroupCpuQuotaCores(pid_t pid, std::string* cgroup_path = nullptr);

// What the kernel's CFS bandwidth control did to the cgroup whose quota binds `pid` (see
// CgroupCpuQuotaCores), so far: quota periods elapsed, periods in which the group ran out of its quota and
// was stopped, and the time it spent stopped (cpu.stat). A group throttled in most periods of a window was
// held to its quota: CPU-bound by it, whatever its measured use. All -1 without a quota or when unreadable.
struct CgroupThrottling {
  double periods = -1;
  double throttled_periods = -1;
  double throttled_seconds = -1;
};
CgroupThrottling CgroupCpuThrottling(pid_t pid);

// True when this process sees a cgroup hierarchy with the cpu controller (under `ip netns exec` /sys is
// private and /sys/fs/cgroup is not mounted: quotas cannot be read, and budgets fall back to affinity).
bool CgroupCpuVisible();

// The cores `pid` may use: its affinity mask's count, capped by its cgroup quota (a quarter of a core is
// 0.25).
double BudgetCores(pid_t pid);

}  // namespace lather
