// The CPU of each thread of a process, from /proc/PID/task/*/stat: a server whose busiest thread is
// pegged is saturated even when its process uses half the machine. Functions; thread-safe.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace lather {

struct ThreadCpu {
  pid_t tid = 0;
  double cpu_seconds = 0;  // user + system so far
};

// utime + stime, in seconds, of one line of /proc/PID/stat or /proc/PID/task/TID/stat; -1 if malformed.
double StatCpuSeconds(const std::string& line);

// Every thread of `pid` now; empty if the process cannot be read.
std::vector<ThreadCpu> ReadThreadCpu(pid_t pid);

// The most CPU any one thread used between two readings (a thread absent from `before` started in
// between and counts from 0; one absent from `after` ended and is not counted); -1 if `after` is empty.
double PeakThreadCpu(const std::vector<ThreadCpu>& before, const std::vector<ThreadCpu>& after);

}  // namespace lather
