// lather-stress: drives a SOAP endpoint and says how many calls/s it sustains, at what latency,
// with what bandwidth and CPU, and which of those is the limit (see stress/cli/stress_cli.h).
#include <malloc.h>

#include "LatherSoap.nsmap"
#include "stress/cli/stress_cli.h"

int main(int argc, char** argv) {
  // The harness keeps the memory it frees. glibc's defaults give a large echo's buffers (a 10,000-sample
  // echo: tens of MB a call) back to the system after every call and fault them in afresh for the next:
  // ~7,500 page faults and about half the client's CPU per call, on the core the generator shares with
  // whatever else it drives. Up to 32 MiB comes from the heap (glibc's largest mmap threshold) and the
  // heap is never trimmed; a run is short-lived and its peak is what it needed.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  return lather::StressMain(argc, argv);
}
