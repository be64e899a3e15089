#include "service/store/sqlite_log.h"

#include <sqlite3.h>

#include "common/log.h"

namespace lather {

namespace {
void OnSqliteLog(void*, int code, const char* message) {
  const std::string line = SqliteLogLine(code, message);
  if (!line.empty()) LogLine(line);
}
}  // namespace

std::string SqliteLogLine(int code, const char* message) {
  switch (code & 0xff) {  // the primary code of an extended one
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_CONSTRAINT:
    case SQLITE_SCHEMA:
    case SQLITE_OK:  // sqlite3_log's callers never pass it; nothing to say
    case SQLITE_ROW:
    case SQLITE_DONE:
      return "";
    default:
      break;
  }
  std::string line = "store (SQLite): ";
  line += code == SQLITE_NOTICE_RECOVER_WAL       ? "recovered its write-ahead log (a writer died mid-commit): "
          : code == SQLITE_NOTICE_RECOVER_ROLLBACK ? "rolled back a hot journal: "
          : (code & 0xff) == SQLITE_WARNING        ? "warning: "
          : (code & 0xff) == SQLITE_NOTICE         ? "notice: "
                                                   : std::string(sqlite3_errstr(code)) + ": ";
  line += message != nullptr ? message : "";
  line += " (code " + std::to_string(code) + ")";
  return line;
}

bool InstallSqliteLog() { return sqlite3_config(SQLITE_CONFIG_LOG, &OnSqliteLog, nullptr) == SQLITE_OK; }

}  // namespace lather
