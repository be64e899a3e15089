#include "common/huge_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

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
