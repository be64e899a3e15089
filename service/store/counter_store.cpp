#include "service/store/counter_store.h"

#include <Poco/Data/SQLite/Connector.h>
#include <Poco/Data/SQLite/Utility.h>
#include <Poco/Data/Session.h>
#include <Poco/Data/Statement.h>
#include <Poco/Exception.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <thread>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/log.h"
#include "service/store/pg_connection.h"
#include "service/store/pg_statements.h"
#include "service/store/sqlite_busy_wait.h"
#include "service/store/sqlite_checkpointer.h"
#include "service/store/sqlite_log.h"
#include "service/store/sqlite_statement.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::useRef;

namespace lather {
namespace {

constexpr char kSqlitePrefix[] = "sqlite:";
constexpr char kPostgresPrefix[] = "postgresql:";
constexpr size_t kOpenTimeoutSeconds = 2;
constexpr int kBusyTimeoutMs = 10000;  // SQLite: how long a statement waits for another connection's lock
constexpr int64_t kReconnectGapNs = 200'000'000;  // between two attempts to reach a PostgreSQL server

void RegisterConnectors() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Before any connection: SQLite takes its log callback only then.
    if (!InstallSqliteLog()) LogLine("store: SQLite was started before its log could be routed here; its notices go unseen");
    Poco::Data::SQLite::Connector::registerConnector();
  });
}

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// `text` on one line: libpq's messages end lines with "\n\t".
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// %XX escapes of a URI part decoded ("%2Frun%2Fpostgresql" -> "/run/postgresql").
std::string Unescape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The libpq key=value connection string of a store URI: postgresql://[USER[:PASSWORD]@][HOST][:PORT]
// [/DB][?KEY=VALUE&...] (Poco's connector takes key=value pairs, not URIs), or what follows "postgresql:"
// when it is key=value pairs already; with connect_timeout=2 unless one is given.
std::string PostgresConnectString(const std::string& uri) {
  std::string pairs;
  if (uri.rfind("postgresql://", 0) != 0) {
    pairs = uri.substr(sizeof kPostgresPrefix - 1);
  } else {
    std::string rest = uri.substr(13);
    std::string query;
    if (const size_t q = rest.find('?'); q != std::string::npos) {
      query = rest.substr(q + 1);
      rest.resize(q);
    }
    std::string database;
    if (const size_t slash = rest.find('/'); slash != std::string::npos) {
      database = rest.substr(slash + 1);
      rest.resize(slash);
    }
    std::string user, password;
    if (const size_t at = rest.rfind('@'); at != std::string::npos) {
      user = rest.substr(0, at);
      rest = rest.substr(at + 1);
      if (const size_t colon = user.find(':'); colon != std::string::npos) {
        password = user.substr(colon + 1);
        user.resize(colon);
      }
    }
    std::string host = rest, port;
    if (!rest.empty() && rest[0] == '[') {  // [IPv6]:port
      const size_t close = rest.find(']');
      host = rest.substr(1, close == std::string::npos ? std::string::npos : close - 1);
      if (close != std::string::npos && close + 1 < rest.size() && rest[close + 1] == ':') port = rest.substr(close + 2);
    } else if (const size_t colon = rest.rfind(':'); colon != std::string::npos) {
      host = rest.substr(0, colon);
      port = rest.substr(colon + 1);
    }
    auto add = [&pairs](const std::string& key, const std::string& value) {
      if (!value.empty()) pairs += (pairs.empty() ? "" : " ") + key + "=" + Unescape(value);
    };
    add("host", host);
    add("port", port);
    add("dbname", database);
    add("user", user);
    add("password", password);
    size_t start = 0;
    while (start < query.size()) {
      const size_t end = std::min(query.find('&', start), query.size());
      const std::string param = query.substr(start, end - start);
      if (const size_t eq = param.find('='); eq != std::string::npos) add(param.substr(0, eq), param.substr(eq + 1));
      start = end + 1;
    }
  }
  if (pairs.find("connect_timeout") == std::string::npos) pairs += (pairs.empty() ? "" : " ") + std::string("connect_timeout=2");
  return pairs;
}

// Wall-clock milliseconds since the epoch: message ids outlive the process, so not steady_clock.
int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool HasMessageId(const CounterIncrement& item) { return item.message_id != nullptr && !item.message_id->empty(); }

// The answer to an increment whose message id was used for another counter's increment.
Status IdOfAnotherCounter(const std::string& message_id) {
  return Status::InvalidArgument("wsa:MessageID '" + message_id + "' was already used for a request to another "
                                 "counter; a message id names one request (send a new id for a new request)");
}

// Each counter `batch` increments, once, in the order of first use.
std::vector<const std::string*> DistinctCounters(const std::vector<CounterIncrement>& batch) {
  std::vector<const std::string*> names;
  std::unordered_set<std::string_view> seen;
  for (const CounterIncrement& item : batch) {
    if (seen.insert(*item.name).second) names.push_back(item.name);
  }
  return names;
}

}  // namespace

// The SQLite statements an increment, a message id and a read run, compiled once per connection.
struct SqliteStatements {
  explicit SqliteStatements(sqlite3* db)
      : begin(db, "BEGIN IMMEDIATE"),
        commit(db, "COMMIT"),
        rollback(db, "ROLLBACK"),
        increment(db, "INSERT INTO counters (name, value) VALUES (?, ?) "
                      "ON CONFLICT (name) DO UPDATE SET value = counters.value + excluded.value RETURNING value"),
        get(db, "SELECT value FROM counters WHERE name = ?"),
        claim(db, "INSERT INTO message_ids (message_id, name, value, at) VALUES (?, ?, 0, ?) "
                  "ON CONFLICT (message_id) DO NOTHING RETURNING 1"),
        remembered(db, "SELECT name, value, at FROM message_ids WHERE message_id = ?"),
        remember(db, "UPDATE message_ids SET name = ?, value = ?, at = ? WHERE message_id = ?") {}
  SqliteStatement begin, commit, rollback, increment, get, claim, remembered, remember;
};

CounterStore::CounterStore(bool postgres, std::string connect) : postgres_(postgres), connect_(std::move(connect)) {}

CounterStore::~CounterStore() = default;

void CounterStore::Connect() {
  if (postgres_) {
    auto pg = std::make_unique<PgConnection>(connect_);
    for (const char* setting : PgSessionSettings()) pg->Execute(setting);
    // Many connections (pool threads, workers, nodes) open at once: concurrent CREATE ... IF NOT EXISTS
    // can still collide in PostgreSQL's catalog, so the set-up is serialized by an advisory lock.
    pg->Execute("BEGIN");
    try {
      pg->Execute("SELECT pg_advisory_xact_lock(7316385)");  // any constant of ours
      pg->Execute("CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY NOT NULL, value BIGINT NOT NULL)");
      pg->Execute("CREATE TABLE IF NOT EXISTS message_ids (message_id TEXT PRIMARY KEY NOT NULL, "
                  "name TEXT NOT NULL, value BIGINT NOT NULL, at BIGINT NOT NULL)");
      pg->Execute("CREATE INDEX IF NOT EXISTS message_ids_at ON message_ids (at)");
      pg->Execute("COMMIT");
    } catch (...) {
      try {
        pg->Execute("ROLLBACK");
      } catch (const Poco::Exception&) {
        // The first error is the one to report.
      }
      throw;
    }
    // Prepared once for this connection: each later run is one round trip.
    for (const PgStatement& statement : PgStatements()) pg->Prepare(statement.name, statement.sql);
    pg_ = std::move(pg);
    return;
  }
  auto session = std::make_unique<Poco::Data::Session>("SQLite", connect_, kOpenTimeoutSeconds);
  // The busy wait first: several processes (the workers of --workers) open a new file at once, and switching
  // it to WAL or creating the tables waits for the others' locks instead of failing; later, a commit waits for
  // another worker's (or a checkpoint's) lock, in steps well under SQLite's own (sqlite_busy_wait.h).
  SetBusyWait(Poco::Data::SQLite::Utility::dbHandle(*session), kBusyTimeoutMs);
  std::string journal_mode;
  if (connect_ != ":memory:") {
    *session << "PRAGMA journal_mode=WAL", into(journal_mode), now;
  }
  *session << "PRAGMA synchronous=FULL", now;
  *session << "CREATE TABLE IF NOT EXISTS counters ("
              "name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID",
      now;
  // message_id -> the increment it made: which counter, the value it answered, when (ms since the
  // epoch; the index finds expired rows without a scan).
  *session << "CREATE TABLE IF NOT EXISTS message_ids (message_id TEXT PRIMARY KEY NOT NULL, "
              "name TEXT NOT NULL, value INTEGER NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID",
      now;
  *session << "CREATE INDEX IF NOT EXISTS message_ids_at ON message_ids (at)", now;
  sqlite_ = std::make_unique<SqliteStatements>(Poco::Data::SQLite::Utility::dbHandle(*session));
  session_ = std::move(session);
}

Status CounterStore::CheckpointInBackground() {
  if (postgres_ || connect_ == ":memory:" || session_ == nullptr || checkpointer_ != nullptr) return Status::Ok();
  std::unique_ptr<SqliteCheckpointer> checkpointer;
  const Status s = SqliteCheckpointer::Start(connect_, &checkpointer);
  if (!s.ok()) return s;
  checkpointer->Attach(Poco::Data::SQLite::Utility::dbHandle(*session_));
  checkpointer_ = std::move(checkpointer);
  return Status::Ok();
}

uint64_t CounterStore::checkpoints() const { return checkpointer_ != nullptr ? checkpointer_->checkpoints() : 0; }

uint64_t CounterStore::checkpoint_restarts() const {
  return checkpointer_ != nullptr ? checkpointer_->restarts() : 0;
}

uint64_t CounterStore::inline_checkpoints() const {
  return checkpointer_ != nullptr ? checkpointer_->inline_restarts() : 0;
}

Status CounterStore::EnsureConnected() {
  if (session_ != nullptr || pg_ != nullptr) return Status::Ok();
  const int64_t now_ns = SteadyNanos();
  if (now_ns < next_connect_ns_) {
    return Status::Unavailable("the counter store (PostgreSQL) cannot be reached: " + last_error_);
  }
  next_connect_ns_ = now_ns + kReconnectGapNs;
  try {
    Connect();
    last_error_.clear();
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    last_error_ = OneLine(e.displayText());
  } catch (const std::exception& e) {
    last_error_ = OneLine(e.what());
  }
  pg_.reset();
  return Status::Unavailable("the counter store (PostgreSQL) cannot be reached: " + last_error_);
}

Status CounterStore::Failed(const std::string& raw) {
  const std::string what = OneLine(raw);
  if (postgres_) {
    // The connection may be gone (a restarted server, a network cut): the next call makes a new one (and
    // the server rolls back whatever transaction this one had open).
    pg_.reset();
    last_error_ = what;
    next_connect_ns_ = 0;
  }
  return Status::Unavailable("counter store: " + what);
}

Status CounterStore::Open(const std::string& uri, std::unique_ptr<CounterStore>* store) {
  RegisterConnectors();
  if (uri.rfind(kPostgresPrefix, 0) == 0) {
    if (uri.size() == sizeof kPostgresPrefix - 1) return Status::InvalidArgument("store '" + uri + "' names no database");
    std::unique_ptr<CounterStore> opened(new CounterStore(true, PostgresConnectString(uri)));
    const Status s = opened->EnsureConnected();  // not reachable now: it will be, or calls say so
    if (!s.ok()) LogLine(s.message() + "; serving without it and reconnecting");
    *store = std::move(opened);
    return Status::Ok();
  }
  if (uri.rfind(kSqlitePrefix, 0) != 0) {
    return Status::InvalidArgument("unknown store '" + uri +
                                   "' (expected sqlite:PATH or postgresql://USER@HOST:PORT/DATABASE)");
  }
  const std::string path = uri.substr(sizeof kSqlitePrefix - 1);
  if (path.empty()) return Status::InvalidArgument("store '" + uri + "' names no file");
  if (path != ":memory:") {
    // Poco retries a failing open for its whole login timeout; tell a bad path at once instead.
    const std::filesystem::path file(path);
    const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec)) {
      return Status::IOError("cannot open store '" + path + "': folder " + folder.string() + " does not exist");
    }
    const bool exists = std::filesystem::exists(file, ec);
    if (::access(exists ? path.c_str() : folder.c_str(), W_OK) != 0) {
      return Status::IOError("cannot open store '" + path + "': " + (exists ? "file" : "folder " + folder.string()) +
                             " is not writable");
    }
  }
  // A journal-mode switch that meets another process's lock can fail at once despite the busy timeout
  // (SQLite does not always wait there): a locked database is tried again for up to about 5 s.
  for (int attempt = 0;; ++attempt) {
    try {
      std::unique_ptr<CounterStore> opened(new CounterStore(false, path));
      opened->Connect();
      *store = std::move(opened);
      return Status::Ok();
    } catch (const Poco::Exception& e) {
      const std::string text = e.displayText();
      const bool locked = text.find("locked") != std::string::npos || text.find("busy") != std::string::npos;
      if (!locked || attempt >= 100) return Status::IOError("cannot open store '" + path + "': " + text);
    } catch (const std::exception& e) {
      return Status::IOError("cannot open store '" + path + "': " + e.what());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Status CounterStore::Increment(const std::string& name, const std::string& message_id, int64_t* value) {
  // PostgreSQL: through a transaction too, whose BEGIN may be retried on a new connection (IncrementBatch).
  if (postgres_ || (!message_id.empty() && window_.count() > 0)) {
    std::vector<CounterIncrement> batch(1);
    batch[0].name = &name;
    batch[0].message_id = &message_id;
    Status s = IncrementBatch(&batch);
    if (!s.ok()) return s;
    *value = batch[0].value;
    return batch[0].status;
  }
  Status s = EnsureConnected();
  if (!s.ok()) return s;
  try {
    *value = IncrementRow(name, 1);
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    return Failed(e.displayText());
  }
}

int64_t CounterStore::IncrementRow(const std::string& name, int64_t by) {
  if (sqlite_ != nullptr) {
    SqliteStatement::Run run = sqlite_->increment.Start();
    run.Bind(1, name).Bind(2, by);
    if (!run.Step()) throw Poco::Exception("the increment of counter '" + name + "' returned no value");
    return run.Int64(0);
  }
  const std::string amount = std::to_string(by);
  const PgResult result = pg_->Run("increment", {name.c_str(), amount.c_str()});
  if (result.rows() != 1) throw Poco::Exception("the increment of counter '" + name + "' returned no value");
  return result.Int64(0, 0);
}

void CounterStore::ClaimAll(const std::vector<const std::string*>& ids, const std::vector<const std::string*>& names,
                            int64_t at, std::vector<ClaimOutcome>* outcomes) {
  outcomes->assign(ids.size(), ClaimOutcome{});
  if (ids.empty()) return;
  if (sqlite_ != nullptr) {
    for (size_t i = 0; i < ids.size(); ++i) {
      ClaimOutcome& outcome = (*outcomes)[i];
      {
        SqliteStatement::Run claim = sqlite_->claim.Start();
        claim.Bind(1, *ids[i]).Bind(2, *names[i]).Bind(3, at);
        outcome.claimed = claim.Step();
      }
      if (outcome.claimed) continue;
      SqliteStatement::Run select = sqlite_->remembered.Start();
      select.Bind(1, *ids[i]);
      if (!select.Step()) throw Poco::Exception("message id '" + *ids[i] + "' is neither new nor remembered");
      outcome.name = select.Text(0);
      outcome.value = select.Int64(1);
      outcome.at = select.Int64(2);
    }
    return;
  }
  // PostgreSQL: the whole batch's ids in one statement, and what the taken ones were remembered as in a second.
  const std::string id_array = PgArray(ids), name_array = PgArray(names), when = std::to_string(at);
  const PgResult claimed = pg_->Run("claim_all", {id_array.c_str(), name_array.c_str(), when.c_str()});
  std::unordered_map<std::string, size_t> index;  // id -> its place in ids
  for (size_t i = 0; i < ids.size(); ++i) index.emplace(*ids[i], i);
  size_t taken = ids.size();
  for (int row = 0; row < claimed.rows(); ++row) {
    (*outcomes)[index.at(claimed.Text(row, 0))].claimed = true;
    --taken;
  }
  if (taken == 0) return;
  std::vector<const std::string*> repeats;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!(*outcomes)[i].claimed) repeats.push_back(ids[i]);
  }
  const std::string repeat_array = PgArray(repeats);
  const PgResult remembered = pg_->Run("remembered_all", {repeat_array.c_str()});
  if (static_cast<size_t>(remembered.rows()) != repeats.size()) {
    throw Poco::Exception("of " + std::to_string(repeats.size()) + " message ids neither new nor claimable, " +
                          std::to_string(remembered.rows()) + " are remembered");
  }
  for (int row = 0; row < remembered.rows(); ++row) {
    ClaimOutcome& outcome = (*outcomes)[index.at(remembered.Text(row, 0))];
    outcome.name = remembered.Text(row, 1);
    outcome.value = remembered.Int64(row, 2);
    outcome.at = remembered.Int64(row, 3);
  }
}

void CounterStore::RememberAll(const std::vector<const std::string*>& ids, const std::vector<const std::string*>& names,
                               const std::vector<int64_t>& values, int64_t at) {
  if (ids.empty()) return;
  if (sqlite_ != nullptr) {
    for (size_t i = 0; i < ids.size(); ++i) {
      sqlite_->remember.Start().Bind(1, *names[i]).Bind(2, values[i]).Bind(3, at).Bind(4, *ids[i]).Step();
    }
    return;
  }
  const std::string id_array = PgArray(ids), name_array = PgArray(names), value_array = PgArray(values),
                    when = std::to_string(at);
  pg_->Run("remember_all", {id_array.c_str(), name_array.c_str(), value_array.c_str(), when.c_str()});
}

void CounterStore::RunBatch(std::vector<CounterIncrement>* batch, int64_t now_ms) {
  // An increment either counts (no message id, or the first use of its id in this batch when the id is
  // new or expired) or answers what its id was remembered as. Counting ones are added per counter: one
  // statement adds a counter's k increments of this batch, and its k callers get the k values it stepped
  // through, in queue order: the answers of k statements in a row in this transaction, for one statement.
  // The ids are claimed first, all of them (ClaimAll): two writers (processes, nodes) with the same id cannot
  // both count it. A concurrent claim waits on the other's transaction (PostgreSQL) or is excluded by the
  // write lock (SQLite's BEGIN IMMEDIATE).
  enum class Role : char { kCounts, kCountsAndRemembers, kRepeat };
  struct Tally {
    const std::string* name = nullptr;
    int64_t count = 0;
    int64_t next = 0;  // the value the next counting increment of this counter gets
  };
  const bool use_ids = window_.count() > 0;
  std::vector<Role> roles(batch->size(), Role::kCounts);
  // The batch's ids, each once (its first item claims it), and where each item's id is in that list.
  std::vector<const std::string*> ids, id_names;
  std::vector<size_t> id_of(batch->size(), 0);
  std::unordered_map<std::string_view, size_t> first_use;  // allocates only with ids
  for (size_t i = 0; i < batch->size(); ++i) {
    CounterIncrement& item = (*batch)[i];
    item.status = Status::Ok();
    if (!use_ids || !HasMessageId(item)) continue;
    const auto [it, fresh] = first_use.emplace(*item.message_id, ids.size());
    id_of[i] = it->second;
    if (fresh) {
      ids.push_back(item.message_id);
      id_names.push_back(item.name);
      roles[i] = Role::kCountsAndRemembers;  // unless ClaimAll finds it remembered (below)
    } else {
      roles[i] = Role::kRepeat;
    }
  }
  if (pg_ != nullptr) {
    const std::string name_array = PgArray(DistinctCounters(*batch));
    pg_->Run("lock_counters", {name_array.c_str()});
  }
  std::vector<ClaimOutcome> outcomes;
  ClaimAll(ids, id_names, now_ms, &outcomes);
  std::vector<int64_t> answered(ids.size(), 0);    // the value each id answers
  std::vector<const std::string*> answered_name(ids.size(), nullptr);  // the counter each id belongs to
  std::unordered_map<std::string_view, Tally> tallies;
  for (size_t i = 0; i < batch->size(); ++i) {
    CounterIncrement& item = (*batch)[i];
    if (roles[i] == Role::kCountsAndRemembers) {
      const ClaimOutcome& outcome = outcomes[id_of[i]];
      // Remembered longer than the window: new again. Otherwise it answers what it was remembered as.
      if (!outcome.claimed && now_ms - outcome.at < window_.count()) {
        roles[i] = Role::kRepeat;
        answered[id_of[i]] = outcome.value;
        answered_name[id_of[i]] = &outcome.name;
        continue;
      }
      answered_name[id_of[i]] = item.name;
    }
    if (roles[i] == Role::kRepeat) continue;
    Tally& tally = tallies[*item.name];
    tally.name = item.name;
    ++tally.count;
  }
  for (auto& entry : tallies) {
    Tally& tally = entry.second;
    tally.next = IncrementRow(*tally.name, tally.count) - tally.count + 1;
  }
  std::vector<const std::string*> remember_ids, remember_names;
  std::vector<int64_t> remember_values;
  for (size_t i = 0; i < batch->size(); ++i) {
    CounterIncrement& item = (*batch)[i];
    if (roles[i] != Role::kRepeat) {
      item.value = tallies[*item.name].next++;
      if (roles[i] == Role::kCountsAndRemembers) {
        answered[id_of[i]] = item.value;
        remember_ids.push_back(item.message_id);
        remember_names.push_back(item.name);
        remember_values.push_back(item.value);
      }
      continue;
    }
    if (*answered_name[id_of[i]] == *item.name) {
      item.value = answered[id_of[i]];
    } else {
      item.value = 0;
      item.status = IdOfAnotherCounter(*item.message_id);
    }
  }
  RememberAll(remember_ids, remember_names, remember_values, now_ms);
}

bool CounterStore::CountInOneStatement(std::vector<CounterIncrement>* batch, int64_t now_ms, size_t purge_limit,
                                       size_t* purged) {
  // Each counter of the batch once, how many increments it gets, and for each item which counter and which
  // of that counter's increments it is (1, 2, ...); an item repeating an id of this batch answers what the
  // id's first item does (and counts nothing).
  constexpr size_t kCounts = SIZE_MAX;  // first_of[i] of an item that counts (repeats no id of this batch)
  const bool use_ids = window_.count() > 0;
  std::vector<const std::string*> names;
  std::vector<int64_t> counts;
  std::vector<size_t> counter_of(batch->size(), 0), first_of(batch->size(), kCounts);
  std::vector<int64_t> nth(batch->size(), 0);
  std::vector<size_t> id_items;  // the items whose ids the statement remembers
  std::unordered_map<std::string_view, size_t> first_use;  // id -> its first item; allocates only with ids
  std::unordered_map<std::string_view, size_t> counter_index;  // name -> its place in names
  for (size_t i = 0; i < batch->size(); ++i) {
    CounterIncrement& item = (*batch)[i];
    item.status = Status::Ok();
    if (use_ids && HasMessageId(item)) {
      const auto [it, fresh] = first_use.emplace(*item.message_id, i);
      if (!fresh) {
        first_of[i] = it->second;
        continue;
      }
      id_items.push_back(i);
    }
    const auto [counter, added] = counter_index.emplace(*item.name, names.size());
    if (added) {
      names.push_back(item.name);
      counts.push_back(0);
    }
    counter_of[i] = counter->second;
    nth[i] = ++counts[counter->second];
  }
  std::vector<const std::string*> ids, id_names;
  std::vector<int64_t> below;
  for (const size_t i : id_items) {
    ids.push_back((*batch)[i].message_id);
    id_names.push_back((*batch)[i].name);
    below.push_back(counts[counter_of[i]] - nth[i]);
  }
  const std::string name_array = PgArray(names), count_array = PgArray(counts), id_array = PgArray(ids),
                    id_name_array = PgArray(id_names), below_array = PgArray(below), when = std::to_string(now_ms),
                    cutoff = std::to_string(now_ms - window_.count()),
                    limit = std::to_string(use_ids ? purge_limit : 0);
  bool taken = false;
  const PgResult result = pg_->RunUnless("23505", &taken, "count_all",
                                         {name_array.c_str(), count_array.c_str(), id_array.c_str(),
                                          id_name_array.c_str(), below_array.c_str(), when.c_str(), cutoff.c_str(),
                                          limit.c_str()});
  if (taken) return false;  // an id was used before: nothing was written
  if (static_cast<size_t>(result.rows()) != names.size()) {
    throw Poco::Exception("the batch's " + std::to_string(names.size()) + " counters returned " +
                          std::to_string(result.rows()) + " values");
  }
  std::vector<int64_t> last(names.size(), 0);  // each counter's value after the batch
  for (int row = 0; row < result.rows(); ++row) {
    const std::string name = result.Text(row, 0);
    const auto counter = counter_index.find(name);
    if (counter == counter_index.end()) throw Poco::Exception("the batch's increments returned counter '" + name + "'");
    last[counter->second] = result.Int64(row, 1);
  }
  // A counting item's value: its counter's value before the batch plus its place among the counter's increments.
  auto value_of = [&](size_t i) { return last[counter_of[i]] - counts[counter_of[i]] + nth[i]; };
  for (size_t i = 0; i < batch->size(); ++i) {
    CounterIncrement& item = (*batch)[i];
    if (first_of[i] == kCounts) {
      item.value = value_of(i);
      continue;
    }
    if (*(*batch)[first_of[i]].name == *item.name) {
      item.value = value_of(first_of[i]);
    } else {
      item.value = 0;
      item.status = IdOfAnotherCounter(*item.message_id);
    }
  }
  if (purged != nullptr) *purged = result.rows() > 0 ? static_cast<size_t>(result.Int64(0, 3)) : 0;
  ++one_statement_batches_;
  return true;
}

size_t CounterStore::DeleteExpired(int64_t now_ms, size_t limit) {
  Poco::Int64 cutoff = now_ms - window_.count();
  if (pg_ != nullptr) {
    const std::string at = std::to_string(cutoff), rows = std::to_string(limit);
    return static_cast<size_t>(pg_->Run("purge", {at.c_str(), rows.c_str()}).affected());
  }
  Poco::UInt64 max_rows = limit;
  Poco::Data::Statement purge(*session_);
  purge << "DELETE FROM message_ids WHERE message_id IN "
           "(SELECT message_id FROM message_ids WHERE at <= ? ORDER BY at LIMIT ?)",
      useRef(cutoff), useRef(max_rows);
  return purge.execute();
}

Status CounterStore::IncrementBatch(std::vector<CounterIncrement>* batch, size_t purge_limit, size_t* purged) {
  const int64_t now_ms = NowMillis();
  size_t deleted = 0;
  Status connected = EnsureConnected();
  if (!connected.ok()) {
    for (CounterIncrement& item : *batch) item.value = 0;
    return connected;
  }
  if (postgres_) {
    // A batch of new ids (the usual one) is one statement; one with an id taken before goes to the claim-first
    // transaction below. A connection the server closed while it sat idle (a restart) is replaced first: a
    // statement that fails on it cannot tell whether it ran.
    try {
      if (!pg_->Alive()) {
        Failed("the server closed the connection");
        if (!(connected = EnsureConnected()).ok()) {
          for (CounterIncrement& item : *batch) item.value = 0;
          return connected;
        }
      }
      if (CountInOneStatement(batch, now_ms, purge_limit, purged)) return Status::Ok();
    } catch (const Poco::Exception& e) {
      for (CounterIncrement& item : *batch) item.value = 0;
      return Failed(e.displayText());
    }
    ++claim_first_batches_;
    // A connection that sat idle through a server restart is dead and says so only when used: BEGIN has
    // done nothing yet, so a failed BEGIN is retried once on a new connection.
    try {
      pg_->Execute("BEGIN");
    } catch (const Poco::Exception& e) {
      Failed(e.displayText());
      if (!(connected = EnsureConnected()).ok()) {
        for (CounterIncrement& item : *batch) item.value = 0;
        return connected;
      }
      try {
        pg_->Execute("BEGIN");
      } catch (const Poco::Exception& again) {
        for (CounterIncrement& item : *batch) item.value = 0;
        return Failed(again.displayText());
      }
    }
  }
  try {
    if (sqlite_ != nullptr) sqlite_->begin.Execute();
    try {
      RunBatch(batch, now_ms);
      if (purge_limit > 0 && window_.count() > 0) deleted = DeleteExpired(now_ms, purge_limit);
      if (sqlite_ != nullptr) {
        sqlite_->commit.Execute();
      } else {
        pg_->Execute("COMMIT");
      }
    } catch (...) {
      try {
        if (sqlite_ != nullptr) {
          sqlite_->rollback.Execute();
        } else {
          pg_->Execute("ROLLBACK");
        }
      } catch (const Poco::Exception&) {
        // The transaction is gone either way; the first error is the one to report.
      }
      throw;
    }
    if (purged != nullptr) *purged = deleted;
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    for (CounterIncrement& item : *batch) item.value = 0;
    return Failed(e.displayText());
  }
}

Status CounterStore::PurgeExpiredMessageIds(size_t limit, size_t* deleted) {
  *deleted = 0;
  if (window_.count() <= 0) return Status::Ok();
  Status s = EnsureConnected();
  if (!s.ok()) return s;
  try {
    *deleted = DeleteExpired(NowMillis(), limit);
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    return Failed(e.displayText());
  }
}

Status CounterStore::LockForTest() {
  if (postgres_) return Status::InvalidArgument("LockForTest is for SQLite stores");
  try {
    *session_ << "BEGIN EXCLUSIVE", now;
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    return Status::Unavailable(e.displayText());
  }
}

Status CounterStore::UnlockForTest() {
  try {
    *session_ << "COMMIT", now;
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    return Status::Unavailable(e.displayText());
  }
}

Status CounterStore::Get(const std::string& name, int64_t* value) {
  // A read is safe to repeat: on PostgreSQL a failure (an idle connection that died with a restarted
  // server) is retried once on a new connection.
  for (int attempt = 0;; ++attempt) {
    Status s = EnsureConnected();
    if (!s.ok()) return s;
    try {
      if (sqlite_ != nullptr) {
        SqliteStatement::Run run = sqlite_->get.Start();
        *value = run.Bind(1, name).Step() ? run.Int64(0) : 0;
        return Status::Ok();
      }
      const PgResult result = pg_->Run("get", {name.c_str()});
      *value = result.rows() > 0 ? result.Int64(0, 0) : 0;
      return Status::Ok();
    } catch (const Poco::Exception& e) {
      s = Failed(e.displayText());
      if (!postgres_ || attempt > 0) return s;
    }
  }
}

}  // namespace lather
