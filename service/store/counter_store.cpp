#include "service/store/counter_store.h"

#include <Poco/Data/SQLite/Connector.h>
#include <Poco/Data/Session.h>
#include <Poco/Exception.h>

#include <unistd.h>

#include <Poco/Data/Statement.h>

#include <filesystem>
#include <mutex>
#include <unordered_map>

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::useRef;

namespace lather {
namespace {

constexpr char kSqlitePrefix[] = "sqlite:";
constexpr size_t kOpenTimeoutSeconds = 2;

void RegisterConnectors() {
  static std::once_flag once;
  std::call_once(once, [] { Poco::Data::SQLite::Connector::registerConnector(); });
}

// Wall-clock milliseconds since the epoch: message ids outlive the process, so not steady_clock.
int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool HasMessageId(const CounterIncrement& item) { return item.message_id != nullptr && !item.message_id->empty(); }

}  // namespace

CounterStore::CounterStore(std::unique_ptr<Poco::Data::Session> session) : session_(std::move(session)) {}

CounterStore::~CounterStore() = default;

Status CounterStore::Open(const std::string& uri, std::unique_ptr<CounterStore>* store) {
  if (uri.rfind(kSqlitePrefix, 0) != 0) {
    return Status::InvalidArgument("unknown store '" + uri + "' (expected sqlite:PATH)");
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
  RegisterConnectors();
  try {
    auto session = std::make_unique<Poco::Data::Session>("SQLite", path, kOpenTimeoutSeconds);
    std::string journal_mode;
    if (path != ":memory:") {
      *session << "PRAGMA journal_mode=WAL", into(journal_mode), now;
    }
    *session << "PRAGMA synchronous=FULL", now;
    *session << "PRAGMA busy_timeout=10000", now;
    *session << "CREATE TABLE IF NOT EXISTS counters ("
                "name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID",
        now;
    // message_id -> the increment it made: which counter, the value it answered, when (ms since the
    // epoch; the index finds expired rows without a scan).
    *session << "CREATE TABLE IF NOT EXISTS message_ids (message_id TEXT PRIMARY KEY NOT NULL, "
                "name TEXT NOT NULL, value INTEGER NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID",
        now;
    *session << "CREATE INDEX IF NOT EXISTS message_ids_at ON message_ids (at)", now;
    store->reset(new CounterStore(std::move(session)));
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    return Status::IOError("cannot open store '" + path + "': " + e.displayText());
  } catch (const std::exception& e) {
    return Status::IOError("cannot open store '" + path + "': " + e.what());
  }
}

Status CounterStore::Increment(const std::string& name, const std::string& message_id, int64_t* value) {
  if (!message_id.empty() && window_.count() > 0) {
    std::vector<CounterIncrement> batch(1);
    batch[0].name = &name;
    batch[0].message_id = &message_id;
    Status s = IncrementBatch(&batch);
    if (!s.ok()) return s;
    *value = batch[0].value;
    return batch[0].status;
  }
  try {
    *value = IncrementRow(name);
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    return Status::Unavailable("counter store: " + e.displayText());
  }
}

int64_t CounterStore::IncrementRow(const std::string& name) {
  Poco::Int64 result = 0;
  *session_ << "INSERT INTO counters (name, value) VALUES (?, 1) "
               "ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value",
      useRef(name), into(result), now;
  return result;
}

void CounterStore::RunBatch(std::vector<CounterIncrement>* batch, int64_t now_ms) {
  // What each message id of this batch resolved to: the counter it names and the value it answers.
  struct Remembered {
    std::string name;
    int64_t value;
  };
  std::unordered_map<std::string, Remembered> seen;  // allocates only when ids are present
  const bool use_ids = window_.count() > 0;
  for (CounterIncrement& item : *batch) {
    item.status = Status::Ok();
    if (!use_ids || !HasMessageId(item)) {
      item.value = IncrementRow(*item.name);
      continue;
    }
    const std::string& id = *item.message_id;
    auto it = seen.find(id);
    if (it == seen.end()) {
      std::string stored_name;
      Poco::Int64 stored_value = 0, stored_at = 0;
      Poco::Data::Statement select(*session_);
      select << "SELECT name, value, at FROM message_ids WHERE message_id = ?", into(stored_name),
          into(stored_value), into(stored_at), useRef(id);
      const bool found = select.execute() > 0 && now_ms - stored_at < window_.count();
      if (found) {
        it = seen.emplace(id, Remembered{stored_name, stored_value}).first;
      } else {
        // New, or remembered longer than the window: counts, and the id now names this increment.
        const Poco::Int64 value = IncrementRow(*item.name);
        Poco::Int64 at = now_ms;
        *session_ << "INSERT INTO message_ids (message_id, name, value, at) VALUES (?, ?, ?, ?) "
                     "ON CONFLICT(message_id) DO UPDATE SET name = excluded.name, value = excluded.value, "
                     "at = excluded.at",
            useRef(id), useRef(*item.name), useRef(value), useRef(at), now;
        it = seen.emplace(id, Remembered{*item.name, value}).first;
      }
    }
    if (it->second.name == *item.name) {
      item.value = it->second.value;
    } else {
      item.value = 0;
      item.status = Status::InvalidArgument(
          "wsa:MessageID '" + id + "' was already used for a request to another counter; a message id names "
          "one request (send a new id for a new request)");
    }
  }
}

size_t CounterStore::DeleteExpired(int64_t now_ms, size_t limit) {
  Poco::Int64 cutoff = now_ms - window_.count();
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
  try {
    *session_ << "BEGIN IMMEDIATE", now;
    try {
      RunBatch(batch, now_ms);
      if (purge_limit > 0 && window_.count() > 0) deleted = DeleteExpired(now_ms, purge_limit);
      *session_ << "COMMIT", now;
    } catch (...) {
      try {
        *session_ << "ROLLBACK", now;
      } catch (const Poco::Exception&) {
        // The transaction is gone either way; the first error is the one to report.
      }
      throw;
    }
    if (purged != nullptr) *purged = deleted;
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    for (CounterIncrement& item : *batch) item.value = 0;
    return Status::Unavailable("counter store: " + e.displayText());
  }
}

Status CounterStore::PurgeExpiredMessageIds(size_t limit, size_t* deleted) {
  *deleted = 0;
  if (window_.count() <= 0) return Status::Ok();
  try {
    *deleted = DeleteExpired(NowMillis(), limit);
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    return Status::Unavailable("counter store: " + e.displayText());
  }
}

Status CounterStore::LockForTest() {
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
  try {
    Poco::Int64 result = 0;
    *session_ << "SELECT value FROM counters WHERE name = ?", useRef(name), into(result), now;
    *value = result;
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    return Status::Unavailable("counter store: " + e.displayText());
  }
}

}  // namespace lather
