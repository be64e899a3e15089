#include "service/store/group_commit.h"

#include <chrono>
#include <vector>

#include "common/log.h"

namespace lather {

namespace {
constexpr size_t kMaxBatch = 512;  // increments per transaction
// Expired message ids deleted per transaction, and how often a transaction deletes some: the
// purge stays a small index range delete, never a scan, and a backlog drains in successive batches
// (as many ids as a full batch can add, so the purge keeps up with any rate the writer sustains).
constexpr size_t kPurgeLimit = kMaxBatch;
constexpr auto kPurgeInterval = std::chrono::seconds(1);
}  // namespace

GroupCommitter::GroupCommitter(std::unique_ptr<CounterStore> store)
    : store_(std::move(store)), writer_([this] { Run(); }) {}

GroupCommitter::~GroupCommitter() {
  {
    boost::lock_guard<boost::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_.notify_one();
  writer_.join();
}

uint64_t GroupCommitter::commits() const {
  boost::lock_guard<boost::mutex> lock(mutex_);
  return commits_;
}

void GroupCommitter::set_max_queued(size_t n) {
  boost::lock_guard<boost::mutex> lock(mutex_);
  max_queued_ = n;
}

size_t GroupCommitter::queued() const {
  boost::lock_guard<boost::mutex> lock(mutex_);
  return queue_.size();
}

Status GroupCommitter::Increment(const std::string& name, const std::string& message_id, int64_t* value) {
  Request request;
  request.name = &name;
  request.message_id = &message_id;
  boost::unique_lock<boost::mutex> lock(mutex_);
  if (stopping_) return Status::Unavailable("the counter store is shutting down");
  queue_.push_back(&request);
  work_.notify_one();
  while (!request.done) request.committed.wait(lock);
  *value = request.value;
  return request.status;
}

bool GroupCommitter::Submit(std::string name, std::string message_id, int64_t arrival_ns, double limit_seconds,
                            Done done) {
  auto request = std::make_unique<Request>();
  request->own_name = std::move(name);
  request->own_message_id = std::move(message_id);
  request->name = &request->own_name;
  request->message_id = &request->own_message_id;
  request->on_done = std::move(done);
  request->arrival_ns = arrival_ns;
  request->limit_seconds = limit_seconds;
  {
    boost::lock_guard<boost::mutex> lock(mutex_);
    if (stopping_ || (max_queued_ > 0 && queue_.size() >= max_queued_)) return false;
    queue_.push_back(request.release());
  }
  work_.notify_one();
  return true;
}

namespace {
// Seconds since `arrival_ns` (CLOCK_REALTIME, a receive stamp); 0 if the clocks disagree.
double SecondsSinceArrival(int64_t arrival_ns) {
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  return now > arrival_ns ? static_cast<double>(now - arrival_ns) / 1e9 : 0.0;
}
}  // namespace

void GroupCommitter::Run() {
  std::vector<Request*> batch;
  std::vector<Request*> late;  // submitted ones that waited too long: answered busy, not run
  std::vector<CounterIncrement> increments;
  auto last_purge = std::chrono::steady_clock::time_point{};
  for (;;) {
    {
      boost::unique_lock<boost::mutex> lock(mutex_);
      while (queue_.empty() && !stopping_) work_.wait(lock);
      if (queue_.empty() && stopping_) return;
      batch.clear();
      late.clear();
      while (!queue_.empty() && batch.size() < kMaxBatch) {
        Request* request = queue_.front();
        queue_.pop_front();
        const bool too_late = request->on_done && request->limit_seconds > 0 &&
                              SecondsSinceArrival(request->arrival_ns) > request->limit_seconds;
        (too_late ? late : batch).push_back(request);
      }
    }
    for (Request* request : late) {
      Answer answer;
      answer.busy = true;
      answer.waited = SecondsSinceArrival(request->arrival_ns);
      request->on_done(answer);
      delete request;
    }
    if (batch.empty()) continue;
    increments.resize(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      increments[i].name = batch[i]->name;
      increments[i].message_id = batch[i]->message_id;
    }
    size_t purge_limit = 0;
    const auto now = std::chrono::steady_clock::now();
    if (store_->idempotency_window().count() > 0 && now - last_purge >= kPurgeInterval) {
      purge_limit = kPurgeLimit;
      last_purge = now;
    }
    Status s;
    size_t purged = 0;
    try {
      s = store_->IncrementBatch(&increments, purge_limit, &purged);
      if (purge_limit > 0 && purged == purge_limit) last_purge = {};  // a backlog: purge again next batch
    } catch (const std::exception& e) {
      s = Status::Internal(std::string("group commit: ") + e.what());
    }
    if (!s.ok()) LogLine("group commit of " + std::to_string(batch.size()) + " increments failed: " + s.ToString());
    // The submitted ones are answered outside the lock, after the waiting callers are woken; which is which
    // is read first: a woken caller returns at once and its request (on its stack) is gone.
    std::vector<size_t> submitted;
    for (size_t i = 0; i < batch.size(); ++i) {
      if (batch[i]->on_done) submitted.push_back(i);
    }
    {
      boost::lock_guard<boost::mutex> lock(mutex_);
      ++commits_;
      for (size_t i = 0; i < batch.size(); ++i) {
        if (batch[i]->on_done) continue;
        batch[i]->status = s.ok() ? increments[i].status : s;
        batch[i]->value = s.ok() ? increments[i].value : 0;
        batch[i]->done = true;
        // Under the lock: once done is set the caller may return and destroy its request (and condition).
        batch[i]->committed.notify_one();
      }
    }
    for (const size_t i : submitted) {
      Answer answer;
      answer.status = s.ok() ? increments[i].status : s;
      answer.value = s.ok() ? increments[i].value : 0;
      batch[i]->on_done(answer);
      delete batch[i];
    }
  }
}

}  // namespace lather
