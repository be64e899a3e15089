// Generated DataSamples for the echo: realistic samples (optionally with shared samples and cycles,
// an id/ref graph) and a field-by-field comparison that also checks object identity. The type itself
// lives in wsdl/data_sample.h (shared with the service's codec).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "wsdl/data_sample.h"

namespace lather {

struct SampleShape {
  size_t count = 100;     // top-level samples
  int depth = 1;          // levels of nested children below the top level (0: none)
  uint64_t seed = 1;      // same seed, same samples
  size_t shared = 0;      // samples that also appear as a child of another top-level sample
  size_t cycles = 0;      // samples that a child of theirs (or they themselves) refers back to
};

// Generates `shape.count` realistic samples: every field filled, text of varied lengths with non-ASCII
// names and cities, two contact numbers and two companies, and every 50th sample with two nested
// children per level (about 600 bytes of XML per sample on average). With `shared` or `cycles` the
// set is a graph (SampleSet::graph): those samples are referred to from a second place.
SampleSet GenerateSamples(const SampleShape& shape);

// Empty if `a` equals `b` field by field (salary compared bit for bit, NaN equal to NaN) and with the
// same identity (a sample reached twice in `a` is the same sample reached at the same places in `b`);
// otherwise the path and values of the first difference, e.g. "samples[3].children[1].zip: 12 != 13".
std::string FirstDifference(const SampleSet& a, const SampleSet& b);

}  // namespace lather
