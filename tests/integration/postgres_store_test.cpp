// The PostgreSQL counter store against a real PostgreSQL 15 started for each test: the store contract
// (as the SQLite store's unit tests check it), increments and message ids from several connections at
// once (as several nodes make them), an outage and the reconnection; then lather-service on it: IncCounter
// 503 + Retry-After + a Server fault while the database is down, Increment unaffected, recovery after.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "service/store/counter_store.h"
#include "tests/integration/postgres_server.h"
#include "tests/integration/raw_http.h"
#include "tests/integration/service_process.h"
#include "tests/integration/soap_fixtures.h"

using lather::CounterIncrement;
using lather::CounterStore;
using lather::Status;
using lather::test::PostgresServer;
using lather::test::ServiceProcess;

namespace {

std::unique_ptr<CounterStore> Open(const PostgresServer& server) {
  std::unique_ptr<CounterStore> store;
  const Status s = CounterStore::Open(server.uri(), &store);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(std::string(store->kind()) == "postgresql");
  return store;
}

}  // namespace

TEST_CASE("the PostgreSQL store counts, reads and creates counters at 0", "[postgres]") {
  PostgresServer server;
  auto store = Open(server);
  int64_t value = -1;
  REQUIRE(store->Get("fresh", &value).ok());
  CHECK(value == 0);
  for (int i = 1; i <= 5; ++i) {
    REQUIRE(store->Increment("visits", &value).ok());
    CHECK(value == i);
  }
  auto other = Open(server);  // a second connection sees the committed value
  REQUIRE(other->Get("visits", &value).ok());
  CHECK(value == 5);
}

TEST_CASE("increments from eight PostgreSQL connections at once are all counted, each value once",
          "[postgres]") {
  PostgresServer server;
  constexpr int kThreads = 8, kEach = 200;
  std::vector<std::vector<int64_t>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::unique_ptr<CounterStore> store;
      if (!CounterStore::Open(server.uri(), &store).ok()) return;
      for (int i = 0; i < kEach; ++i) {
        int64_t value = 0;
        if (store->Increment("shared", &value).ok()) seen[static_cast<size_t>(t)].push_back(value);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<int64_t> all;
  for (const auto& s : seen) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  REQUIRE(all.size() == static_cast<size_t>(kThreads * kEach));
  for (size_t i = 0; i < all.size(); ++i) CHECK(all[i] == static_cast<int64_t>(i + 1));
}

TEST_CASE("a wsa:MessageID counts once in PostgreSQL, also when two connections send it at once",
          "[postgres]") {
  PostgresServer server;
  auto store = Open(server);
  int64_t first = 0, again = 0;
  REQUIRE(store->Increment("orders", "uuid:1", &first).ok());
  REQUIRE(store->Increment("orders", "uuid:1", &again).ok());
  CHECK(first == 1);
  CHECK(again == 1);
  CHECK(store->Increment("other", "uuid:1", &again).kind() == Status::Kind::kInvalidArgument);
  // Two "nodes" racing with the same fresh ids: each id counts once, and both answer its value.
  constexpr int kIds = 100;
  std::vector<int64_t> a(kIds), b(kIds);
  auto run = [&](std::vector<int64_t>* out) {
    std::unique_ptr<CounterStore> s;
    if (!CounterStore::Open(server.uri(), &s).ok()) return;
    for (int i = 0; i < kIds; ++i) s->Increment("race", "uuid:race-" + std::to_string(i), &(*out)[static_cast<size_t>(i)]);
  };
  std::thread x(run, &a), y(run, &b);
  x.join();
  y.join();
  int64_t total = 0;
  REQUIRE(store->Get("race", &total).ok());
  CHECK(total == kIds);
  for (int i = 0; i < kIds; ++i) CHECK(a[static_cast<size_t>(i)] == b[static_cast<size_t>(i)]);
}

TEST_CASE("a PostgreSQL batch commits all or nothing and purges expired ids", "[postgres]") {
  PostgresServer server;
  auto store = Open(server);
  const std::string x = "x", y = "y", id = "uuid:b";
  std::vector<CounterIncrement> batch(4);
  batch[0].name = &x;
  batch[1].name = &x;
  batch[2].name = &y;
  batch[2].message_id = &id;
  batch[3].name = &y;
  batch[3].message_id = &id;  // the same id again in the batch: counts once
  REQUIRE(store->IncrementBatch(&batch).ok());
  CHECK(batch[0].value == 1);
  CHECK(batch[1].value == 2);
  CHECK(batch[2].value == 1);
  CHECK(batch[3].value == 1);
  store->set_idempotency_window(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  size_t deleted = 0;
  REQUIRE(store->PurgeExpiredMessageIds(100, &deleted).ok());
  CHECK(deleted == 1);
}

TEST_CASE("a PostgreSQL batch claims its message ids together: quotes, backslashes, braces and commas in ids and "
          "names, repeats, an id of another counter and an expired id answer as one at a time would",
          "[postgres]") {
  PostgresServer server;
  auto store = Open(server);
  // Every character an array literal gives a meaning to, in ids and in counter names.
  const std::vector<std::string> names = {"a\"b", "c\\d", "{e,f}", "g h", "NULL", "\xc3\xa9t\xc3\xa9"};
  const std::vector<std::string> ids = {"uuid:\"1\"", "uuid:\\2", "uuid:{3,4}", "uuid: 5 ", "NULL", "uuid:\xc3\xa9"};
  std::vector<CounterIncrement> batch(names.size() * 2 + 1);
  for (size_t i = 0; i < names.size(); ++i) {
    batch[i].name = &names[i];
    batch[i].message_id = &ids[i];
    batch[names.size() + i].name = &names[i];  // each id again, later in the same batch
    batch[names.size() + i].message_id = &ids[i];
  }
  batch.back().name = &names[1];
  batch.back().message_id = &ids[0];  // an id of another counter
  REQUIRE(store->IncrementBatch(&batch).ok());
  for (size_t i = 0; i < names.size(); ++i) {
    INFO(names[i] << " / " << ids[i]);
    CHECK(batch[i].status.ok());
    CHECK(batch[i].value == 1);
    CHECK(batch[names.size() + i].value == 1);
  }
  CHECK(batch.back().status.kind() == Status::Kind::kInvalidArgument);
  // A second batch: the ids are remembered (with their counters' names), nothing counts again.
  std::vector<CounterIncrement> again(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    again[i].name = &names[i];
    again[i].message_id = &ids[i];
  }
  REQUIRE(store->IncrementBatch(&again).ok());
  for (size_t i = 0; i < names.size(); ++i) {
    CHECK(again[i].status.ok());
    CHECK(again[i].value == 1);
    int64_t value = 0;
    REQUIRE(store->Get(names[i], &value).ok());
    CHECK(value == 1);
  }
  // Past the window an id is new again: it counts, and is remembered with its new value.
  store->set_idempotency_window(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::vector<CounterIncrement> expired(2);
  expired[0].name = &names[0];
  expired[0].message_id = &ids[0];
  expired[1].name = &names[0];
  expired[1].message_id = &ids[0];
  REQUIRE(store->IncrementBatch(&expired).ok());
  CHECK(expired[0].value == 2);
  CHECK(expired[1].value == 2);
  store->set_idempotency_window(std::chrono::hours(1));
  std::vector<CounterIncrement> remembered(1);
  remembered[0].name = &names[0];
  remembered[0].message_id = &ids[0];
  REQUIRE(store->IncrementBatch(&remembered).ok());
  CHECK(remembered[0].value == 2);
}

TEST_CASE("a PostgreSQL batch of new ids is one statement, one with an id taken before goes claim-first, and both "
          "answer as one at a time would",
          "[postgres]") {
  PostgresServer server;
  auto store = Open(server);
  const std::string a = "a", b = "b", id1 = "uuid:1", id2 = "uuid:2", id3 = "uuid:3";
  std::vector<CounterIncrement> fresh(5);
  fresh[0].name = &a;
  fresh[0].message_id = &id1;
  fresh[1].name = &b;  // no id
  fresh[2].name = &a;
  fresh[2].message_id = &id2;
  fresh[3].name = &a;
  fresh[3].message_id = &id1;  // a repeat inside the batch
  fresh[4].name = &b;
  fresh[4].message_id = &id2;  // an id of another counter
  REQUIRE(store->IncrementBatch(&fresh).ok());
  CHECK(store->one_statement_batches() == 1);
  CHECK(store->claim_first_batches() == 0);
  CHECK(fresh[0].value == 1);
  CHECK(fresh[1].value == 1);
  CHECK(fresh[2].value == 2);
  CHECK(fresh[3].value == 1);
  CHECK(fresh[4].status.kind() == Status::Kind::kInvalidArgument);
  // id2 again beside a new id3: the statement finds id2 taken, writes nothing, and the claim-first
  // transaction answers id2's remembered value and counts id3 once.
  std::vector<CounterIncrement> mixed(2);
  mixed[0].name = &a;
  mixed[0].message_id = &id3;
  mixed[1].name = &a;
  mixed[1].message_id = &id2;
  REQUIRE(store->IncrementBatch(&mixed).ok());
  CHECK(store->one_statement_batches() == 1);
  CHECK(store->claim_first_batches() == 1);
  CHECK(mixed[0].value == 3);
  CHECK(mixed[1].value == 2);
  int64_t value = 0;
  REQUIRE(store->Get("a", &value).ok());
  CHECK(value == 3);
  REQUIRE(store->Get("b", &value).ok());
  CHECK(value == 1);
  // The purge rides in the statement too.
  store->set_idempotency_window(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::string id4 = "uuid:4";
  std::vector<CounterIncrement> purging(1);
  purging[0].name = &b;
  purging[0].message_id = &id4;
  size_t purged = 0;
  REQUIRE(store->IncrementBatch(&purging, 100, &purged).ok());
  CHECK(store->one_statement_batches() == 2);
  CHECK(purging[0].value == 2);
  CHECK(purged == 3);  // uuid:1, 2 and 3; uuid:4 is this batch's own
}

TEST_CASE("a PostgreSQL store answers Unavailable while its server is down and reconnects by itself",
          "[postgres]") {
  PostgresServer server;
  auto store = Open(server);
  int64_t value = 0;
  REQUIRE(store->Increment("outage", &value).ok());
  server.Stop();
  const auto started = std::chrono::steady_clock::now();
  const Status down = store->Increment("outage", &value);
  CHECK(down.kind() == Status::Kind::kUnavailable);
  CHECK(store->Get("outage", &value).kind() == Status::Kind::kUnavailable);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));  // answered, not hung
  server.Start();
  Status up;
  for (int i = 0; i < 100 && !(up = store->Increment("outage", &value)).ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  INFO(up.ToString());
  CHECK(up.ok());
  CHECK(value == 2);  // the refused increment was not counted
}

TEST_CASE("a PostgreSQL reader idle through a server restart answers its next read, and the writer its next batch",
          "[postgres]") {
  PostgresServer server;
  auto reader = Open(server);
  auto writer = Open(server);
  int64_t value = 0;
  REQUIRE(writer->Increment("idle", &value).ok());
  REQUIRE(reader->Get("idle", &value).ok());
  server.Stop();
  server.Start();  // both connections are dead now, and neither has been used since
  const Status read = reader->Get("idle", &value);
  INFO(read.ToString());
  CHECK(read.ok());
  CHECK(value == 1);
  const Status wrote = writer->Increment("idle", &value);
  INFO(wrote.ToString());
  CHECK(wrote.ok());
  CHECK(value == 2);
}

TEST_CASE("a store URI that names no database is refused, and an unreachable server is not fatal at start",
          "[postgres]") {
  std::unique_ptr<CounterStore> store;
  CHECK(CounterStore::Open("postgresql:", &store).kind() == Status::Kind::kInvalidArgument);
  CHECK(CounterStore::Open("mysql://x", &store).kind() == Status::Kind::kInvalidArgument);
  REQUIRE(CounterStore::Open("postgresql://lather@127.0.0.1:1/postgres", &store).ok());
  int64_t value = 0;
  CHECK(store->Get("x", &value).kind() == Status::Kind::kUnavailable);
}

TEST_CASE("lather-service on PostgreSQL answers IncCounter 503 + Retry-After while the database is down, "
          "Increment throughout, and recovers",
          "[postgres][integration-postgres]") {
  PostgresServer server;
  ServiceProcess service(server.uri());
  lather::Client client = lather::test::MakeClient(service);
  int64_t value = 0;
  REQUIRE(client.IncCounter("pg", &value).ok());
  CHECK(value == 1);
  server.Stop();
  const std::string body = lather::test::BareEnvelope(lather::test::kEnv11,
                                                      "<l:IncCounter><l:name>pg</l:name></l:IncCounter>");
  const lather::test::RawResponse r = lather::test::SendRaw(
      service.port(), lather::test::SoapPost(lather::test::kSoap11Type, body, "urn:lather:v1#IncCounter"));
  CHECK(r.status == 503);
  CHECK(r.Header("retry-after") == "1");
  CHECK(r.body.find("SOAP-ENV:Server") != std::string::npos);
  CHECK(r.body.find("the counter store is unavailable; retry later") != std::string::npos);
  CHECK(r.body.find("127.0.0.1") == std::string::npos);  // the database's own words stay in the log
  int32_t result = 0;
  CHECK(client.Increment(41, &result).ok());
  CHECK(result == 42);
  server.Start();
  Status s;
  for (int i = 0; i < 100 && !(s = client.IncCounter("pg", &value)).ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  INFO(s.ToString());
  CHECK(s.ok());
  CHECK(value == 2);
}
