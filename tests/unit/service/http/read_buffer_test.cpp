#include "service/http/read_buffer.h"

#include <catch2/catch.hpp>

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using lather::ReadBuffer;

namespace {
constexpr size_t kChunk = 16 * 1024;

// Reads a request of `expected` bytes into `buffer` as the event loop does (a first read before its head is
// parsed, then ReserveTotal for the rest), each read taking at most `per_read` bytes. Returns the buffer's
// address after each read.
std::vector<const char*> ReadRequest(ReadBuffer* buffer, size_t expected, size_t first_read, size_t per_read) {
  std::vector<const char*> addresses;
  while (buffer->size() < expected) {
    const bool head_parsed = !addresses.empty();
    char* room = head_parsed ? buffer->ReserveTotal(expected) : buffer->Reserve(kChunk / 2, kChunk);
    const size_t n = std::min({buffer->space(), head_parsed ? per_read : first_read, expected - buffer->size()});
    REQUIRE(n > 0);
    std::memset(room, 'x', n);
    buffer->Commit(n);
    addresses.push_back(buffer->data().data());
  }
  return addresses;
}

// The VmFlags line of /proc/self/smaps for the mapping that holds `address` ("" if none does).
std::string VmFlagsOf(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> from >> dash >> to && dash == '-') {
      inside = from <= at && at < to;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}
}  // namespace

TEST_CASE("a read buffer reserved for a whole request at its head is never outgrown by its tail",
          "[service][http]") {
  // The event loop reads 256 KiB a wake-up; a 30 MB echo's last read often leaves fewer than half a chunk to
  // come. Asking for more room than that doubled the buffer and copied the 30 MB on the loop (2026-12-06).
  for (const size_t tail : {size_t{1}, size_t{100}, size_t{4081}, kChunk / 2 - 1, kChunk / 2, kChunk + 7}) {
    for (const size_t per_read : {size_t{64} * 1024, size_t{256} * 1024}) {
      const size_t expected = kChunk + 20 * per_read + tail;  // under and over the size that gets a mapping
      ReadBuffer buffer;
      const auto addresses = ReadRequest(&buffer, expected, kChunk, per_read);
      INFO("tail " << tail << ", reads of " << per_read);
      CHECK(buffer.size() == expected);
      CHECK(buffer.capacity() == expected);  // one allocation of the request's size, no doubling
      // After the head's read the buffer never moves: nothing is copied.
      CHECK(std::all_of(addresses.begin() + 1, addresses.end(), [&](const char* a) { return a == addresses[1]; }));
    }
  }
}

TEST_CASE("a request that follows another in the buffer is moved to the front only when its total needs it",
          "[service][http]") {
  ReadBuffer buffer;
  std::memset(buffer.Reserve(1000, 1000), 'a', 950);
  buffer.Commit(950);
  buffer.Consume(900);  // a request done; 50 bytes of the next one are here, 50 bytes of room after them
  const char* before = buffer.data().data();
  buffer.ReserveTotal(100);  // fits where it is
  CHECK(buffer.data().data() == before);
  CHECK(buffer.space() == 50);
  buffer.ReserveTotal(1000);  // fits in the buffer once at its front
  CHECK(buffer.capacity() == 1000);
  CHECK(buffer.space() == 950);
  CHECK(buffer.data() == std::string(50, 'a'));
  buffer.ReserveTotal(5000);  // grows to exactly the total
  CHECK(buffer.capacity() == 5000);
  CHECK(buffer.space() == 4950);
  CHECK(buffer.data() == std::string(50, 'a'));
}

TEST_CASE("a large request's buffer is a mapping of its own, advised for huge pages and unmapped when freed",
          "[service][http]") {
  const size_t total = (size_t{6} << 20) + 12345;
  ReadBuffer buffer;
  std::memset(buffer.Reserve(kChunk / 2, kChunk), 'h', 300);
  buffer.Commit(300);
  char* room = buffer.ReserveTotal(total);
  const char* start = buffer.data().data();
  CHECK(buffer.data() == std::string(300, 'h'));
  CHECK(reinterpret_cast<uintptr_t>(start) % (size_t{2} << 20) == 0);
  std::memset(room, 'x', buffer.space());
  buffer.Commit(buffer.space());
  const std::string flags = VmFlagsOf(start);
  INFO(flags);
  CHECK(flags.find(" hg") != std::string::npos);  // MADV_HUGEPAGE on the whole mapping
  buffer.Consume(total);
  buffer.Release();
  // The range is no longer mapped: msync says ENOMEM for it.
  CHECK(msync(const_cast<char*>(start), 4096, MS_ASYNC) == -1);
  CHECK(errno == ENOMEM);
}
