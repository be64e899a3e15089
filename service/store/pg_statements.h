// The PostgreSQL counter store's SQL in one place: the settings each connection starts with, and the
// statements it prepares once and runs with one round trip each. The store prepares them on every
// connection; a test plans them against a large message_ids table to check that no plan reads the table
// from end to end. Constant data; thread-safe.
#pragma once

#include <vector>

namespace lather {

struct PgStatement {
  const char* name;  // the prepared statement's name (PgConnection::Run)
  const char* sql;   // $1, $2 ... are its parameters
};

// SET commands run first on each connection, in order.
const std::vector<const char*>& PgSessionSettings();

// Every statement the store prepares on each connection.
const std::vector<PgStatement>& PgStatements();

}  // namespace lather
