// SqliteLog: SQLite's own error log (sqlite3_log) routed into the service's log, for what an operator must see:
// a write-ahead log recovered after a writer died mid-commit (SQLITE_NOTICE_RECOVER_WAL), a rolled-back journal,
// I/O errors, corruption, a full disk, a file that cannot be opened, SQLite's warnings. Not the codes a busy
// service meets by design (BUSY and LOCKED waits, constraint answers, schema changes): they would flood the log.
//
// Thread-safe: SQLite calls the callback from whichever thread met the condition; each line is one write(2).
#pragma once

#include <string>

namespace lather {

// Installs the callback. SQLite takes it only before its first connection in the process: call it first;
// later, or twice, it leaves the log as it is and returns false.
bool InstallSqliteLog();

// The line logged for SQLite's (extended) result code `code` and message `message`, or "" for a code that is
// not logged (see above). Exposed for tests.
std::string SqliteLogLine(int code, const char* message);

}  // namespace lather
