// Start priority: a worker starting beside serving ones (a replacement for a crashed or hung worker, a hot
// swap's new generation) spends 100-200 ms of CPU before it serves - exec, dynamic linking, first touches of
// its memory, opening the store - on the same cores as the workers that serve. That start runs under
// SCHED_IDLE (any serving thread that wakes takes the core from it at once) and at nice + kStartNiceOffset,
// which marks its threads as the start's; the worker takes its normal policy and priority back, on every
// thread it has by then, once it listens. A start still not serving after kIdleStartNs (a core kept busy
// starves SCHED_IDLE) is lifted by the supervisor to the normal policy at the start's nice. Likewise a hung
// worker is put under SCHED_IDLE before it is killed, so that its exit (unmapping its memory) yields to the
// workers that serve, and lifted again shortly after SIGKILL (an exit a busy core starves would keep what it
// holds, such as the store's lock, for seconds). Only where a thread of this process may leave SCHED_IDLE and
// raise its priority again (CAP_SYS_NICE or RLIMIT_NICE): elsewhere workers start as before. Functions only;
// the probe starts and joins a thread of its own; the others act on one process's threads through /proc.
#pragma once

namespace lather {

// The nice value a worker starts at, above the supervisor's.
inline constexpr int kStartNiceOffset = 5;
// How long a start may stay under SCHED_IDLE before the supervisor lifts it (LiftIdleThreads).
inline constexpr long long kIdleStartNs = 300'000'000;
// The worker's environment: the nice value to return to once it listens (set only when it may).
inline constexpr char kWorkerNiceEnv[] = "LATHER_WORKER_NICE";

// The supervisor's probe: whether a thread of this process can go kStartNiceOffset above its nice value and
// under SCHED_IDLE, and back again.
bool CanStartWorkersNiced();

// The child's side, between fork and exec (async-signal-safe): SCHED_IDLE at nice `start_nice`.
void EnterStart(int start_nice);

// The supervisor's side: every thread of `pid` still under SCHED_IDLE goes to the normal policy (a start, an exit or a
// silent worker that a busy core starves); threads keep their nice value. Returns how many moved.
int LiftIdleThreads(int pid);

// The supervisor's side: every thread of `pid` goes under SCHED_IDLE (a hung worker about to be killed).
void Demote(int pid);

// The worker's side, once it listens: every thread still at the nice value the process started with goes back
// to the normal policy and kWorkerNiceEnv's nice (threads that chose their own nice keep it). Does nothing when
// the variable is not set; a thread that cannot be changed is logged, not fatal.
void TakeNormalPriority();

}  // namespace lather
