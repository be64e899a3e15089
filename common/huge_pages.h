// AdviseHugePages: asks the kernel to back a large buffer with transparent huge pages (2 MiB) where it can,
// so that touching it the first time costs one page fault per 2 MiB instead of one per 4 KiB. On this
// project's VMs a 4 KiB first-touch fault costs 20-65 us (the hypervisor maps every page too): a 31 MB echo's
// read buffer took ~2,700 of them on its event loop, in the 256 KiB slices the quick calls wait behind; with
// huge pages 32 MB fault in in 2-31 ms instead of 400-540. Only the 2 MiB-aligned inside of the buffer is
// advised (madvise splits the mapping there); buffers under kHugePageAdviceBytes are left alone. Where the
// kernel has transparent huge pages off, or the call fails, nothing changes: it is advice. AllocateMapped gives a
// large buffer of a known size a mapping of its own, advised as a whole. Thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace lather {

// Buffers at least this large are worth the advice (two huge pages fit inside whatever their alignment).
inline constexpr size_t kHugePageAdviceBytes = size_t{4} << 20;

void AdviseHugePages(void* data, size_t bytes);

// As buffer->reserve(bytes), at least doubling the capacity when it grows; a new allocation of
// kHugePageAdviceBytes or more is advised before the old contents are copied into it.
void ReserveWithHugePages(std::string* buffer, size_t bytes);

// Frees a buffer from new char[] (mapped == 0) or AllocateMapped (the mapping's length).
struct FreeBytes {
  size_t mapped = 0;
  void operator()(char* bytes) const;
};
using Bytes = std::unique_ptr<char[], FreeBytes>;

// `bytes` (rounded up to 2 MiB) in a mapping of their own, 2 MiB-aligned and advised for huge pages: for a large
// buffer whose size is known. Its first touch costs a fault per 2 MiB, and freeing it (munmap) takes none of
// malloc's arena locks - which threads of other priorities share: a SCHED_IDLE pool thread preempted while
// holding one kept an event loop's malloc waiting 5-90 ms (2026-12-06) - nor leaves advice on malloc's heap.
// Throws std::bad_alloc if the system has no room for it.
Bytes AllocateMapped(size_t bytes);

}  // namespace lather
