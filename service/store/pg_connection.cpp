#include "service/store/pg_connection.h"

#include <Poco/Exception.h>
#include <libpq-fe.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace lather {
namespace {
// libpq's messages on one line (they end lines with "\n\t").
std::string OneLine(const char* text) {
  std::string out = text != nullptr ? text : "";
  for (char& c : out) {
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}
}  // namespace

PgResult::~PgResult() { PQclear(result_); }

int PgResult::rows() const { return result_ != nullptr ? PQntuples(result_) : 0; }

std::string PgResult::Text(int row, int column) const {
  return std::string(PQgetvalue(result_, row, column), static_cast<size_t>(PQgetlength(result_, row, column)));
}

int64_t PgResult::Int64(int row, int column) const {
  const char* text = PQgetvalue(result_, row, column);
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0') {
    throw Poco::DataFormatException(std::string("PostgreSQL answered '") + text + "' where a number was expected");
  }
  return value;
}

int64_t PgResult::affected() const {
  const char* text = PQcmdTuples(result_);
  return text[0] == '\0' ? 0 : std::strtoll(text, nullptr, 10);
}

PgConnection::PgConnection(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str())) {
  if (conn_ == nullptr) throw Poco::IOException("PostgreSQL: out of memory for a connection");
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string what = OneLine(PQerrorMessage(conn_));
    PQfinish(conn_);
    conn_ = nullptr;
    throw Poco::IOException("PostgreSQL: cannot connect: " + what);
  }
}

PgConnection::~PgConnection() { PQfinish(conn_); }

void PgConnection::Throw(const std::string& what, pg_result* result) const {
  std::string message = OneLine(result != nullptr ? PQresultErrorMessage(result) : nullptr);
  if (message.empty()) message = OneLine(PQerrorMessage(conn_));
  PQclear(result);
  throw Poco::IOException("PostgreSQL: " + what + ": " + message);
}

PgResult PgConnection::Execute(const char* sql) {
  pg_result* result = PQexec(conn_, sql);
  const ExecStatusType status = PQresultStatus(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) Throw(sql, result);
  return PgResult(result);
}

void PgConnection::Prepare(const char* name, const char* sql) {
  pg_result* result = PQprepare(conn_, name, sql, 0, nullptr);
  if (PQresultStatus(result) != PGRES_COMMAND_OK) Throw(std::string("preparing ") + name, result);
  PQclear(result);
}

PgResult PgConnection::Run(const char* name, const std::vector<const char*>& params) {
  bool matched = false;
  return RunUnless(nullptr, &matched, name, params);
}

PgResult PgConnection::RunUnless(const char* sqlstate, bool* matched, const char* name,
                                 const std::vector<const char*>& params) {
  *matched = false;
  pg_result* result = PQexecPrepared(conn_, name, static_cast<int>(params.size()), params.data(), nullptr, nullptr, 0);
  const ExecStatusType status = PQresultStatus(result);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return PgResult(result);
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  if (sqlstate == nullptr || state == nullptr || std::strcmp(state, sqlstate) != 0) Throw(name, result);
  PQclear(result);
  *matched = true;
  return PgResult(nullptr);
}

bool PgConnection::Alive() {
  if (PQstatus(conn_) != CONNECTION_OK || PQtransactionStatus(conn_) != PQTRANS_IDLE) return false;
  // Between statements the server sends nothing unasked but its last words (a restart's or an administrator's
  // FATAL error, then the end of the stream): anything waiting to be read, or the end, means closed. A peek,
  // not PQconsumeInput: that reads the FATAL as a notice (printed) and the end only on a second call.
  char byte = 0;
  const ssize_t got = ::recv(PQsocket(conn_), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

std::string PgArray(const std::vector<const std::string*>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += '"';
    for (const char c : *values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += '}';
  return out;
}

std::string PgArray(const std::vector<int64_t>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(values[i]);
  }
  out += '}';
  return out;
}

}  // namespace lather
