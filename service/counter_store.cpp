#include "service/counter_store.h"

#include <Poco/Data/SQLite/Connector.h>
#include <Poco/Data/Session.h>
#include <Poco/Exception.h>

#include <unistd.h>

#include <filesystem>
#include <mutex>

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
    store->reset(new CounterStore(std::move(session)));
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    return Status::IOError("cannot open store '" + path + "': " + e.displayText());
  } catch (const std::exception& e) {
    return Status::IOError("cannot open store '" + path + "': " + e.what());
  }
}

Status CounterStore::Increment(const std::string& name, int64_t* value) {
  try {
    Poco::Int64 result = 0;
    *session_ << "INSERT INTO counters (name, value) VALUES (?, 1) "
                 "ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value",
        useRef(name), into(result), now;
    *value = result;
    return Status::Ok();
  } catch (const Poco::Exception& e) {
    return Status::Unavailable("counter store: " + e.displayText());
  }
}

Status CounterStore::IncrementBatch(const std::vector<const std::string*>& names, std::vector<int64_t>* values) {
  values->assign(names.size(), 0);
  try {
    *session_ << "BEGIN IMMEDIATE", now;
    try {
      for (size_t i = 0; i < names.size(); ++i) {
        Poco::Int64 result = 0;
        *session_ << "INSERT INTO counters (name, value) VALUES (?, 1) "
                     "ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value",
            useRef(*names[i]), into(result), now;
        (*values)[i] = result;
      }
      *session_ << "COMMIT", now;
    } catch (...) {
      try {
        *session_ << "ROLLBACK", now;
      } catch (const Poco::Exception&) {
        // The transaction is gone either way; the first error is the one to report.
      }
      throw;
    }
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
