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

void GroupCommitter::Run() {
  std::vector<Request*> batch;
  std::vector<CounterIncrement> increments;
  auto last_purge = std::chrono::steady_clock::time_point{};
  for (;;) {
    {
      boost::unique_lock<boost::mutex> lock(mutex_);
      while (queue_.empty() && !stopping_) work_.wait(lock);
      if (queue_.empty() && stopping_) return;
      batch.clear();
      while (!queue_.empty() && batch.size() < kMaxBatch) {
        batch.push_back(queue_.front());
        queue_.pop_front();
      }
    }
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
    {
      boost::lock_guard<boost::mutex> lock(mutex_);
      ++commits_;
      for (size_t i = 0; i < batch.size(); ++i) {
        batch[i]->status = s.ok() ? increments[i].status : s;
        batch[i]->value = s.ok() ? increments[i].value : 0;
        batch[i]->done = true;
        // Under the lock: once done is set the caller may return and destroy its request (and condition).
        batch[i]->committed.notify_one();
      }
    }
  }
}

}  // namespace lather
