#include "common/huge_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <new>

namespace lather {

void AdviseHugePages(void* data, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (bytes < kHugePageAdviceBytes) return;
  const uintptr_t start = reinterpret_cast<uintptr_t>(data);
  const uintptr_t begin = (start + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (start + bytes) & ~(kHuge - 1);
  if (end <= begin) return;
  // Advice only: EINVAL where transparent huge pages are not built in changes nothing that matters.
  (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

void FreeBytes::operator()(char* bytes) const {
  if (mapped == 0) {
    delete[] bytes;
  } else {
    (void)munmap(bytes, mapped);  // fails only for a range never mapped: not one AllocateMapped gave
  }
}

Bytes AllocateMapped(size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t length = (std::max(bytes, size_t{1}) + kHuge - 1) & ~(kHuge - 1);
  // Over-map by 2 MiB and cut the unaligned ends off, so that every 2 MiB of the buffer can be one huge page.
  void* raw = mmap(nullptr, length + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHuge - 1) & ~(uintptr_t{kHuge} - 1);
  if (aligned > start) (void)munmap(raw, aligned - start);
  const uintptr_t end = start + length + kHuge;
  if (end > aligned + length) (void)munmap(reinterpret_cast<void*>(aligned + length), end - (aligned + length));
  char* data = reinterpret_cast<char*>(aligned);
  // Advice only: EINVAL where transparent huge pages are not built in changes nothing that matters.
  (void)madvise(data, length, MADV_HUGEPAGE);
  return Bytes(data, FreeBytes{length});
}

void ReserveWithHugePages(std::string* buffer, size_t bytes) {
  if (bytes <= buffer->capacity()) return;
  const size_t capacity = std::max(bytes, 2 * buffer->capacity());
  if (capacity < kHugePageAdviceBytes) return buffer->reserve(capacity);
  std::string grown;
  grown.reserve(capacity);
  AdviseHugePages(grown.data(), grown.capacity());
  grown.append(*buffer);
  buffer->swap(grown);
}

}  // namespace lather
