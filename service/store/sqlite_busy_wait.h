// SqliteBusyWait: how a SQLite connection waits for a lock another connection holds (the write lock of another
// worker's commit, a checkpoint's). SQLite's own busy timeout sleeps 1, 2, 5, 10, 15, 20, 25 ... 100 ms between
// tries, so a commit that met a lock held for half a millisecond could sleep 30 ms before it looked again: with
// two workers committing to one file, and the log's checkpoints, that set IncCounter's p99. This one looks again
// after 50, 100, 200, 400, 800 us, then every millisecond, up to the same timeout. Any thread; the time waited is
// kept per thread (BusyWaitedUs).
#pragma once

struct sqlite3;

namespace lather {

// Replaces `db`'s busy handler (and any busy_timeout) with the fine-grained wait, giving up (SQLITE_BUSY) after
// about `timeout_ms`.
void SetBusyWait(sqlite3* db, int timeout_ms);

// The microseconds the calling thread has slept in this wait so far, all connections together (by the wait's
// schedule, not a clock): the difference across a transaction is the part of it spent waiting for locks.
long long BusyWaitedUs();

}  // namespace lather
