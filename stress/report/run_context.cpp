#include "stress/report/run_context.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <stdsoap2.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>

namespace lather {

MachineInfo TakeMachineInfo() {
  MachineInfo m;
  utsname u{};
  if (uname(&u) == 0) {
    m.hostname = u.nodename;
    m.kernel = std::string(u.sysname) + " " + u.release;
    m.arch = u.machine;
  }
  m.cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    if (start != std::string::npos) m.cpu_model = line.substr(start);
    break;
  }
  m.lather_version = LATHER_VERSION;
  m.compiler = __VERSION__;
  m.gsoap_version = std::to_string(GSOAP_VERSION / 100000) + "." + std::to_string(GSOAP_VERSION / 1000 % 100) + "." +
                    std::to_string(GSOAP_VERSION % 1000);
  return m;
}

int64_t UnixNanosNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Rfc3339(int64_t unix_ns) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1000000000);
  const int millis = static_cast<int>(unix_ns % 1000000000 / 1000000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  return text;
}

}  // namespace lather
