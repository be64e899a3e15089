// Process statistics a test reads from /proc about the service it started: resident memory (and its
// peak), page faults, open descriptors and CPU time, to check that a bad input leaves nothing behind and that nothing spins.
#pragma once

#include <sys/types.h>

#include <map>

namespace lather::test {

// Resident memory of `pid` in KiB (VmRSS), -1 if unreadable.
long ResidentKiB(pid_t pid);

// Peak resident memory of `pid` in KiB (VmHWM), -1 if unreadable.
long PeakResidentKiB(pid_t pid);

// Minor page faults of `pid` so far (/proc/PID/stat), -1 if unreadable.
long MinorFaults(pid_t pid);

// The nice value of every thread of `pid` (field 19 of /proc/PID/task/TID/stat), by thread id.
std::map<pid_t, int> ThreadNices(pid_t pid);

// Number of open file descriptors of `pid`.
long OpenFds(pid_t pid);

// User + system CPU time `pid` has used so far, in seconds (from /proc/PID/stat), -1 if unreadable.
double CpuSeconds(pid_t pid);

// Waits (up to `max_wait_ms`) until every thread of `pid` is stopped (state T, after a SIGSTOP: kill()
// returns before the signal has stopped them); false if they were not by then.
bool WaitAllThreadsStopped(pid_t pid, int max_wait_ms = 5000);

// Waits (up to `max_wait_ms`) until the open descriptors of `pid` stop changing or drop to at most
// `at_most` (when >= 0), and returns the count then.
long SettledFds(pid_t pid, long at_most = -1, int max_wait_ms = 5000);

}  // namespace lather::test
