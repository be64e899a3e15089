// bench/soak's witness of the machine itself: on one core, at real-time priority (SCHED_FIFO, above every
// process of the bench and the service), a thread sleeps --interval-us again and again and prints each wake-up
// that came --threshold-ms or more late. Nothing in user space at normal priority can delay it, so what it
// sees is the machine stopping: the hypervisor not running the virtual CPU, or the kernel not preemptible.
// A soak's latency at the same seconds is then the machine's, not the service's.
// Output, one line each, for bench/soak to read: "stall <CLOCK_MONOTONIC seconds> <ms late>", and at the end
// "done <wake-ups> <realtime 1|0>" (0: SCHED_FIFO was refused and it ran at normal priority: its stalls then
// include the other processes on the core).
//
// usage: lather-stall-monitor --cpu N [--seconds S] [--threshold-ms T] [--interval-us U]   (--help: defaults)
#include <sched.h>
#include <signal.h>
#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

volatile sig_atomic_t g_stop = 0;

void OnSignal(int) { g_stop = 1; }

double Seconds(const timespec& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9; }

[[noreturn]] void Usage(int status) {
  std::fprintf(status == 0 ? stdout : stderr,
               "usage: lather-stall-monitor --cpu N [--seconds S] [--threshold-ms T] [--interval-us U]\n"
               "  --cpu N           the core to watch (required)\n"
               "  --seconds S       how long (default 600)\n"
               "  --threshold-ms T  print wake-ups this late or later (default 5)\n"
               "  --interval-us U   the sleep between wake-ups (default 1000)\n");
  std::exit(status);
}

}  // namespace

int main(int argc, char** argv) {
  int cpu = -1;
  double seconds = 600, threshold_ms = 5;
  long interval_us = 1000;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") Usage(0);
    if (i + 1 >= argc) Usage(2);
    const char* value = argv[++i];
    char* end = nullptr;
    const double number = std::strtod(value, &end);
    if (end == value || *end != '\0' || number < 0) {
      std::fprintf(stderr, "lather-stall-monitor: %s needs a number, not '%s'\n", flag.c_str(), value);
      return 2;
    }
    if (flag == "--cpu") {
      cpu = static_cast<int>(number);
    } else if (flag == "--seconds") {
      seconds = number;
    } else if (flag == "--threshold-ms") {
      threshold_ms = number;
    } else if (flag == "--interval-us") {
      interval_us = static_cast<long>(number);
    } else {
      std::fprintf(stderr, "lather-stall-monitor: unknown flag %s\n", flag.c_str());
      Usage(2);
    }
  }
  if (cpu < 0 || interval_us < 1 || interval_us >= 1000000) Usage(2);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    std::fprintf(stderr, "lather-stall-monitor: cannot run on cpu %d: %s\n", cpu, std::strerror(errno));
    return 1;
  }
  sched_param param{};
  param.sched_priority = 50;
  const bool realtime = sched_setscheduler(0, SCHED_FIFO, &param) == 0;
  signal(SIGTERM, OnSignal);
  signal(SIGINT, OnSignal);
  const timespec interval{0, interval_us * 1000};
  const double interval_s = static_cast<double>(interval_us) * 1e-6;
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const double start = Seconds(now);
  double before = start;
  long wakeups = 0;
  while (!g_stop && before - start < seconds) {
    clock_nanosleep(CLOCK_MONOTONIC, 0, &interval, nullptr);
    clock_gettime(CLOCK_MONOTONIC, &now);
    const double after = Seconds(now);
    const double late_ms = (after - before - interval_s) * 1e3;
    ++wakeups;
    if (late_ms >= threshold_ms) {
      std::printf("stall %.3f %.1f\n", after, late_ms);
      std::fflush(stdout);
    }
    before = after;
  }
  std::printf("done %ld %d\n", wakeups, realtime ? 1 : 0);
  return 0;
}
