#include "service/store/sqlite_busy_wait.h"

#include <sqlite3.h>
#include <time.h>

#include <cstdint>

namespace lather {

namespace {
constexpr int64_t kFirstWaitUs = 50;
constexpr int64_t kLongestWaitUs = 1000;

thread_local int64_t t_waited_us = 0;

// The wait before try number `tries` + 1.
int64_t WaitUs(int tries) { return tries < 5 ? kFirstWaitUs << tries : kLongestWaitUs; }

// SQLite's busy callback: `tries` counts the calls for this lock so far (0 at the first).
int Wait(void* timeout_ms, int tries) {
  // The time waited so far, from the schedule (no clock read): 50 + 100 + 200 + 400 + 800 us, then 1 ms each.
  const int64_t waited_us = tries < 5 ? kFirstWaitUs * ((int64_t{1} << tries) - 1)
                                      : kFirstWaitUs * 31 + int64_t{tries - 5} * kLongestWaitUs;
  if (waited_us >= static_cast<int64_t>(reinterpret_cast<intptr_t>(timeout_ms)) * 1000) return 0;  // give up: BUSY
  const int64_t us = WaitUs(tries);
  t_waited_us += us;
  timespec pause{0, static_cast<long>(us * 1000)};
  nanosleep(&pause, nullptr);
  return 1;
}
}  // namespace

void SetBusyWait(sqlite3* db, int timeout_ms) {
  sqlite3_busy_handler(db, &Wait, reinterpret_cast<void*>(static_cast<intptr_t>(timeout_ms)));
}

long long BusyWaitedUs() { return t_waited_us; }

}  // namespace lather
