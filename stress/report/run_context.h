// RunContext: where and when a run happened and what reports call it: the load host's machine (name,
// cores, kernel, CPU model), the wall-clock times of the measured window, and, for a merged run, the runs
// it was made of. Plain data; TakeMachineInfo() reads this machine. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lather {

// The machine a run's harness ran on, as the JSON's "machine" object carries it.
struct MachineInfo {
  std::string hostname;        // uname's node name
  int cores = 0;               // online cores; 0 when unknown (not filled)
  std::string kernel;          // "Linux 6.1.0-18-amd64"
  std::string arch;            // uname's machine, e.g. "x86_64"
  std::string cpu_model;       // /proc/cpuinfo's first "model name"; "" when unknown
  std::string lather_version;  // of the lather-stress that ran
  std::string compiler;
  std::string gsoap_version;
};

// This machine, now (uname, sysconf, /proc/cpuinfo) and the versions this binary was built with.
MachineInfo TakeMachineInfo();

struct RunContext {
  MachineInfo machine;                  // the load host's; cores == 0: not filled (the JSON then takes this machine's)
  int64_t window_start_unix_ns = 0;     // wall clock at the measured window's ends; 0 unknown
  int64_t window_end_unix_ns = 0;
  std::string start_at;                 // --start-at as given; "" none
  std::string name;                     // what reports call the run (a saved run: its file name); "" none
  std::vector<std::string> merged_from;  // a merged run: the names of its inputs, in order
  std::vector<MachineInfo> load_hosts;   // a merged run: each input's machine, in the same order
};

// The wall clock now, in nanoseconds since the Unix epoch.
int64_t UnixNanosNow();

// "2024-05-01T12:00:03.250Z" for a time in ns since the epoch (UTC, milliseconds).
std::string Rfc3339(int64_t unix_ns);

}  // namespace lather
