// PgConnection: one PostgreSQL connection through libpq, for the counter store. Its statements are
// prepared once per connection (PQprepare) and then run with PQexecPrepared: one round trip each, where
// Poco's connector prepared, described, ran and deallocated every statement it ran (about four).
// PgResult holds one statement's answer. PgArray() spells a list of values as a PostgreSQL array literal,
// for the statements that take a whole batch at once (unnest). Errors throw Poco::Exception with the
// server's message on one line (what the store's callers catch). One thread; not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct pg_conn;
struct pg_result;

namespace lather {

class PgResult {
 public:
  explicit PgResult(pg_result* result) : result_(result) {}  // takes ownership; nullptr: no rows
  ~PgResult();
  PgResult(PgResult&& other) noexcept : result_(other.result_) { other.result_ = nullptr; }
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;
  PgResult& operator=(PgResult&&) = delete;

  int rows() const;
  std::string Text(int row, int column) const;
  // Throws Poco::Exception if the column is not an integer.
  int64_t Int64(int row, int column) const;
  // Rows an INSERT, UPDATE or DELETE touched.
  int64_t affected() const;

 private:
  pg_result* result_;
};

class PgConnection {
 public:
  // Connects with the libpq connection string `conninfo`; throws Poco::Exception if it cannot.
  explicit PgConnection(const std::string& conninfo);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs SQL without parameters (BEGIN, COMMIT, SET, CREATE, EXPLAIN ...); its rows, if any.
  PgResult Execute(const char* sql);
  // Prepares `sql` ($1, $2 ... placeholders) as statement `name` on this connection.
  void Prepare(const char* name, const char* sql);
  // Runs prepared statement `name` with text parameters (null-terminated; nullptr is SQL NULL).
  PgResult Run(const char* name, const std::vector<const char*>& params);
  // Run(), but a failure with SQLSTATE `sqlstate` (e.g. "23505", unique_violation) sets *matched and returns
  // an empty result instead of throwing (nullptr: every failure throws, as Run()).
  PgResult RunUnless(const char* sqlstate, bool* matched, const char* name, const std::vector<const char*>& params);
  // False if the server closed or is closing this idle connection (a restart, an administrator): a look at
  // the socket, without waiting (one recv). A statement sent on a closed connection fails without saying
  // whether it ran; this tells beforehand.
  bool Alive();

 private:
  [[noreturn]] void Throw(const std::string& what, pg_result* result) const;

  pg_conn* conn_ = nullptr;
};

// The array literal of `values` ({"a","b\"c"}), every element quoted: for a text[] parameter.
std::string PgArray(const std::vector<const std::string*>& values);
// The array literal of integers ({1,2,3}): for a bigint[] parameter.
std::string PgArray(const std::vector<int64_t>& values);

}  // namespace lather
