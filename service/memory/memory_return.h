// MemoryReturn: when the service gives the memory of large requests back to the system. glibc is set
// up (ConfigureAllocator) so that large echo buffers and objects come from a few shared arenas and stay
// there between requests, reused by whichever thread serves the next one, instead of being unmapped
// and faulted in afresh for every echo (issue 7: page faults were half of an echo's CPU). Once large
// requests stop for kQuietPeriod, one background thread trims the heap (malloc_trim), so an idle
// service holds no more than a quiet one did before. Thread-safe.
#pragma once

#include <chrono>
#include <string>

namespace lather {

// How long no large request has finished before the freed memory is given back.
inline constexpr std::chrono::milliseconds kQuietPeriod{1000};

// Buffers at least this large are noted when freed.
inline constexpr size_t kLargeFreeBytes = size_t{1} << 20;

// Sets glibc's allocator for the service (call once, first thing in main): at most one arena per
// core, requests of up to 32 MiB from the arenas (not mmap), no trimming on free.
void ConfigureAllocator();

// Records that 1 MiB or more was just freed (a large request's buffers or objects); the first call
// starts the thread that trims the heap kQuietPeriod after the last one.
void NoteLargeFree();

// Frees `buffer`'s memory (swaps it with an empty one) and, if it held 1 MiB or more, NoteLargeFree().
void FreeBuffer(std::string* buffer);

}  // namespace lather
