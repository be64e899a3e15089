// CallOutcome: the categories a finished call is counted in (as wrk counts connect, read, write,
// timeout and status errors). Plain values; thread-safe.
#pragma once

namespace lather {

// How a call ended. Everything but kOk is a failure, counted by kind and never as a success.
enum class CallOutcome { kOk, kConnect, kIo, kTimeout, kStatus, kMalformed, kFault, kMismatch };
inline constexpr int kCallOutcomeCount = 8;
// The outcome's name as reports print it ("ok", "connect", "io", ...).
const char* CallOutcomeName(CallOutcome outcome);

}  // namespace lather
