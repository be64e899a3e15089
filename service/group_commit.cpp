#include "service/group_commit.h"

#include <vector>

#include "common/log.h"

namespace lather {

namespace {
constexpr size_t kMaxBatch = 512;  // increments per transaction
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

Status GroupCommitter::Increment(const std::string& name, int64_t* value) {
  Request request;
  request.name = &name;
  boost::unique_lock<boost::mutex> lock(mutex_);
  if (stopping_) return Status::Unavailable("the counter store is shutting down");
  queue_.push_back(&request);
  work_.notify_one();
  while (!request.done) done_.wait(lock);
  *value = request.value;
  return request.status;
}

void GroupCommitter::Run() {
  std::vector<Request*> batch;
  std::vector<const std::string*> names;
  std::vector<int64_t> values;
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
    names.clear();
    for (Request* r : batch) names.push_back(r->name);
    Status s;
    try {
      s = store_->IncrementBatch(names, &values);
    } catch (const std::exception& e) {
      s = Status::Internal(std::string("group commit: ") + e.what());
    }
    if (!s.ok()) LogLine("group commit of " + std::to_string(batch.size()) + " increments failed: " + s.ToString());
    {
      boost::lock_guard<boost::mutex> lock(mutex_);
      ++commits_;
      for (size_t i = 0; i < batch.size(); ++i) {
        batch[i]->status = s;
        batch[i]->value = s.ok() ? values[i] : 0;
        batch[i]->done = true;
      }
    }
    done_.notify_all();
  }
}

}  // namespace lather
