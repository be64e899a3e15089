// Reading a TCP socket together with the kernel's receive time of the data (SO_TIMESTAMPNS): the
// service measures and limits how long a request waited in its socket (ServerOptions::max_queue_wait;
// both engines read their connections through this), and lather-stress --receive-stamps times an
// answer at its arrival, not at its own late read. Stateless functions; thread-safe.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace lather {

// Asks the kernel to stamp received data on `fd`; false if it cannot (the caller then measures
// from when it read the bytes). The kernel switches stamping on and off for the whole machine, from a
// deferred work item, as the first stamped socket opens and the last closes: data arriving while the
// switch is in flight has no stamp. So the first call also holds one stamped socket open for the rest
// of the process: a process whose last stamped connection closed does not turn stamping off, and its
// next connection's first bytes are stamped.
bool EnableArrivalStamps(int fd);

// recv() into `buffer`; on data, *arrival_ns is when the kernel received the newest of the bytes
// read (CLOCK_REALTIME nanoseconds), or now if the kernel gave no stamp. Returns recv()'s result
// (errno set as recv sets it).
ssize_t ReceiveStamped(int fd, char* buffer, size_t length, int64_t* arrival_ns);

// As ReceiveStamped, but *arrival_ns is 0 when the kernel gave no stamp (a measurement that must not
// take the read's time for the arrival).
ssize_t ReceiveWithKernelStamp(int fd, char* buffer, size_t length, int64_t* arrival_ns);

// CLOCK_REALTIME in nanoseconds, the clock of the stamps.
int64_t RealtimeNanos();

// Seconds from `arrival_ns` (a stamp) until now; 0 if the clocks disagree.
double SecondsSince(int64_t arrival_ns);

}  // namespace lather
