#include "service/memory/memory_return.h"

#include <malloc.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace lather {
namespace {

// The trimmer's state: created once, never destroyed (its thread outlives static destruction).
class Trimmer {
 public:
  Trimmer() { std::thread([this] { Run(); }).detach(); }

  void Note() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      last_ = std::chrono::steady_clock::now();
      pending_ = true;
    }
    wake_.notify_one();
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return pending_; });
      // Wait until kQuietPeriod has passed since the last large request.
      while (std::chrono::steady_clock::now() < last_ + kQuietPeriod) wake_.wait_until(lock, last_ + kQuietPeriod);
      pending_ = false;
      lock.unlock();
      malloc_trim(0);
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::chrono::steady_clock::time_point last_{};
  bool pending_ = false;
};

}  // namespace

void ConfigureAllocator() {
  // One arena per core (glibc's default is eight per core): the threads that serve large echoes
  // (loops, 16 pool threads) share them, so memory one freed is reused by the next, whichever it is.
  // Small allocations still come from each thread's cache without a lock.
  mallopt(M_ARENA_MAX, static_cast<int>(std::max(2u, std::thread::hardware_concurrency())));
  // Large buffers (request bodies, echo responses) from the arenas up to glibc's largest threshold,
  // and no trimming on free: the Trimmer gives memory back once the service is quiet.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

void NoteLargeFree() {
  static Trimmer* const trimmer = new Trimmer();  // never deleted: its detached thread uses it until exit
  trimmer->Note();
}

void FreeBuffer(std::string* buffer) {
  const bool large = buffer->capacity() >= kLargeFreeBytes;
  std::string().swap(*buffer);
  if (large) NoteLargeFree();
}

}  // namespace lather
