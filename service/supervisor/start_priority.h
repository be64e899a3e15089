// Start priority: a worker starting beside serving ones (a replacement for a crashed or hung worker, a hot
// swap's new generation) spends 100-200 ms of CPU before it serves - exec, dynamic linking, first touches of
// its memory, opening the store - on the same cores as the workers that serve. That start runs at a lower
// priority (nice + kStartNiceOffset) so that it does not take the core from them, and the worker takes its
// normal priority back, on every thread it has by then, once it listens. Only where a thread of this
// process may raise its priority again (CAP_SYS_NICE or RLIMIT_NICE): elsewhere workers start as before.
// Functions only; the probe starts and joins a thread of its own.
#pragma once

namespace lather {

// The nice value a worker starts at, above the supervisor's.
inline constexpr int kStartNiceOffset = 5;
// The worker's environment: the nice value to return to once it listens (set only when it may).
inline constexpr char kWorkerNiceEnv[] = "LATHER_WORKER_NICE";

// The supervisor's probe: whether a thread of this process can go kStartNiceOffset above its nice value and
// back again.
bool CanStartWorkersNiced();

// The worker's side, once it listens: every thread still at the nice value the process started with goes back
// to kWorkerNiceEnv's (threads that chose their own, as the blocking pool's, keep it). Does nothing when the
// variable is not set; a thread that cannot be changed is logged, not fatal.
void TakeNormalPriority();

}  // namespace lather
