// SqliteStatement: one SQL statement compiled once on a SQLite connection and run again and again
// (bind, step, read, reset), for the counter store's per-increment statements: Poco::Data compiles a
// statement every time it runs one, which cost an increment more than the statement itself.
// Errors throw Poco::Exception (what the store's callers catch for Poco's own statements).
// One connection's statements are used by the thread that owns the connection; not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace lather {

class SqliteStatement {
 public:
  // Compiles `sql` on `db`; throws Poco::Exception with SQLite's message if it does not compile.
  SqliteStatement(sqlite3* db, const char* sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // One run of the statement: binds (1-based, as in SQL's ?), steps, reads the current row's columns
  // (0-based), and resets the statement when it goes out of scope, so that a statement never holds a
  // read or write lock past its run.
  class Run {
   public:
    explicit Run(SqliteStatement* statement) : statement_(statement) {}
    ~Run();
    Run(const Run&) = delete;
    Run& operator=(const Run&) = delete;

    Run& Bind(int index, std::string_view text);
    Run& Bind(int index, int64_t value);
    // Steps once: true when a row is there to read, false when the statement is done; throws on error.
    bool Step();
    int64_t Int64(int column) const;
    std::string Text(int column) const;

   private:
    SqliteStatement* statement_;
  };

  Run Start() { return Run(this); }
  // Runs a statement that has no parameters and returns no rows (BEGIN, COMMIT, ROLLBACK).
  void Execute();

 private:
  [[noreturn]] void Throw(int code) const;

  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
  const char* sql_;
};

}  // namespace lather
