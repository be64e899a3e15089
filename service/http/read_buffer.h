// ReadBuffer: a connection's input bytes not yet consumed. Reading appends without zero-filling
// the space; consuming a request moves nothing (only the unread rest is moved to the front, and
// only when the room at the end runs out); Release() gives the memory back while a connection is
// idle. A request whose size is known gets a buffer of exactly that size (ReserveTotal); a large one, or one
// grown large, is a mapping of its own (common/huge_pages.h). Also holds a decoded chunked body
// (HttpRequestParser). Not thread-safe (one connection's).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <utility>

#include "common/huge_pages.h"

namespace lather {

class ReadBuffer {
 public:
  // The unconsumed bytes; valid until the next Reserve() or Release().
  std::string_view data() const { return {bytes_.get() + begin_, end_ - begin_}; }
  size_t size() const { return end_ - begin_; }
  bool empty() const { return begin_ == end_; }

  // Makes room for at least `min_room` more bytes (growing to hold data plus `chunk`, at least doubling) and
  // returns where to write them; space() says how many fit. For bytes whose total is not known yet. Grown to
  // kMappedBytes or more, it is a mapping of its own too: freed, it leaves nothing resident behind (the steps
  // of a doubling buffer freed into malloc's arenas stay resident, as much again as the last one).
  char* Reserve(size_t min_room, size_t chunk) {
    if (capacity_ - end_ < min_room) {
      const size_t held = size();
      if (capacity_ - held >= min_room) {
        MoveToFront();
      } else {
        const size_t capacity = std::max(capacity_ == 0 ? chunk : 2 * capacity_, held + min_room);
        Grow(capacity, capacity >= kMappedBytes);
      }
    }
    return bytes_.get() + end_;
  }

  // Makes room for a request of `total` bytes in all, the unconsumed bytes held being its start, and returns
  // where to write the rest. A buffer that grows for it grows to exactly `total` - one allocation for a 30 MB
  // body announced by Content-Length, never copied again - and from kMappedBytes up it is a mapping of its own,
  // advised for huge pages, that is unmapped whole when freed (AllocateMapped: no malloc lock taken or advice
  // left behind; a classic connection's body read into huge pages of malloc's heap stayed ~16 MiB resident).
  char* ReserveTotal(size_t total) {
    const size_t held = size();
    const size_t min_room = total > held ? total - held : 0;
    if (capacity_ - end_ < min_room) {
      if (capacity_ >= total) {
        MoveToFront();
      } else {
        Grow(total, total >= kMappedBytes);
      }
    }
    return bytes_.get() + end_;
  }

  size_t space() const { return capacity_ - end_; }

  // `n` bytes were written at Reserve()'s pointer.
  void Commit(size_t n) { end_ += n; }

  // The first `n` bytes (a whole request) are done with.
  void Consume(size_t n) {
    begin_ += n;
    if (begin_ == end_) begin_ = end_ = 0;
  }

  size_t capacity() const { return capacity_; }

  // Totals from this size up get a mapping of their own (see ReserveTotal).
  static constexpr size_t kMappedBytes = kHugePageAdviceBytes;

  // Hands over the memory (when empty), for the caller to free elsewhere.
  Bytes TakeStorage() {
    if (!empty()) return nullptr;
    capacity_ = begin_ = end_ = 0;
    return std::move(bytes_);
  }

  // Exchanges memory and contents with `other` (a spare kept elsewhere).
  void Swap(ReadBuffer& other) noexcept {
    std::swap(bytes_, other.bytes_);
    std::swap(capacity_, other.capacity_);
    std::swap(begin_, other.begin_);
    std::swap(end_, other.end_);
  }

  // Frees the memory; only when empty (an idle connection holds no buffer).
  void Release() {
    if (!empty()) return;
    bytes_.reset();
    capacity_ = begin_ = end_ = 0;
  }

 private:
  void MoveToFront() {
    const size_t held = size();
    std::memmove(bytes_.get(), bytes_.get() + begin_, held);
    begin_ = 0;
    end_ = held;
  }

  void Grow(size_t capacity, bool mapped) {
    Bytes grown = mapped ? AllocateMapped(capacity) : Bytes(new char[capacity]);  // not zero-filled: only read into
    const size_t held = size();
    if (held > 0) std::memcpy(grown.get(), bytes_.get() + begin_, held);
    bytes_ = std::move(grown);
    capacity_ = capacity;
    begin_ = 0;
    end_ = held;
  }

  Bytes bytes_;
  size_t capacity_ = 0;
  size_t begin_ = 0;
  size_t end_ = 0;
};

}  // namespace lather
