#include "stress/measure/call_outcome.h"

namespace lather {

const char* CallOutcomeName(CallOutcome outcome) {
  switch (outcome) {
    case CallOutcome::kOk: return "ok";
    case CallOutcome::kConnect: return "connect";
    case CallOutcome::kIo: return "io";
    case CallOutcome::kTimeout: return "timeout";
    case CallOutcome::kStatus: return "status";
    case CallOutcome::kMalformed: return "malformed";
    case CallOutcome::kFault: return "fault";
    case CallOutcome::kMismatch: return "mismatch";
  }
  return "unknown";
}

}  // namespace lather
