#include "service/dispatch/fault_injection.h"

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <new>

#include "common/log.h"

namespace lather {

bool InjectFault(std::string_view fault) {
  if (fault == "crash") {
    LogLine("fault injection: crashing (SIGSEGV) as the request's X-Lather-Fault asked");
    std::signal(SIGSEGV, SIG_DFL);
    std::raise(SIGSEGV);
    _exit(139);  // not reached
  }
  if (fault == "hang") {
    LogLine("fault injection: hanging this thread for ever as the request's X-Lather-Fault asked");
    for (;;) pause();
  }
  if (fault == "leak") {
    constexpr size_t kLeak = 16 << 20;
    char* leaked = new char[kLeak];
    std::memset(leaked, 1, kLeak);  // touched, so it counts in the RSS
    return true;                    // and never freed
  }
  return false;
}

}  // namespace lather
