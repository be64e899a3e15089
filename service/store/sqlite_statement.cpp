#include "service/store/sqlite_statement.h"

#include <Poco/Exception.h>
#include <sqlite3.h>

namespace lather {

SqliteStatement::SqliteStatement(sqlite3* db, const char* sql) : db_(db), sql_(sql) {
  const int code = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement_, nullptr);
  if (code != SQLITE_OK) Throw(code);
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

void SqliteStatement::Throw(int code) const {
  // SQLite's own message names the problem ("database is locked", "disk I/O error", a constraint).
  throw Poco::Exception(std::string(sqlite3_errstr(code)) + ": " + sqlite3_errmsg(db_) + " (in: " + sql_ + ")");
}

void SqliteStatement::Execute() {
  Run run(this);
  while (run.Step()) {
  }
}

SqliteStatement::Run::~Run() {
  sqlite3_reset(statement_->statement_);
  sqlite3_clear_bindings(statement_->statement_);
}

SqliteStatement::Run& SqliteStatement::Run::Bind(int index, std::string_view text) {
  const int code = sqlite3_bind_text(statement_->statement_, index, text.data(), static_cast<int>(text.size()),
                                     SQLITE_STATIC);  // the caller's text outlives the run
  if (code != SQLITE_OK) statement_->Throw(code);
  return *this;
}

SqliteStatement::Run& SqliteStatement::Run::Bind(int index, int64_t value) {
  const int code = sqlite3_bind_int64(statement_->statement_, index, value);
  if (code != SQLITE_OK) statement_->Throw(code);
  return *this;
}

bool SqliteStatement::Run::Step() {
  const int code = sqlite3_step(statement_->statement_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  statement_->Throw(code);
}

int64_t SqliteStatement::Run::Int64(int column) const {
  return sqlite3_column_int64(statement_->statement_, column);
}

std::string SqliteStatement::Run::Text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement_->statement_, column));
  return text == nullptr ? std::string() : std::string(text, static_cast<size_t>(sqlite3_column_bytes(statement_->statement_, column)));
}

}  // namespace lather
