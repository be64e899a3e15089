// DataSample: the contract's rich record (EchoDataSamples) as a plain C++ value, with a generator
// of realistic samples and a field-by-field comparison. No gSOAP here; soap_client converts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lather {

struct DataSample {
  std::string firstname;
  std::string lastname;
  std::string city;
  uint32_t zip = 0;
  std::string email;
  std::vector<std::string> contact_nos;
  std::string designation;
  int32_t experience = 0;
  double salary = 0;
  std::vector<std::string> companies_worked_for;
  std::string date_of_birth;  // xsd:dateTime lexical form, e.g. "1980-02-29T08:15:00+01:00"
  bool is_married = false;
  std::vector<DataSample> children;
};

struct SampleShape {
  size_t count = 100;     // top-level samples
  int depth = 1;          // levels of nested children below the top level (0: none)
  uint64_t seed = 1;      // same seed, same samples
};

// Generates `shape.count` realistic samples: every field filled, text of varied lengths with non-ASCII
// names and cities, two contact numbers and two companies, and every 50th sample with two nested
// children per level (about 600 bytes of XML per sample on average).
std::vector<DataSample> GenerateSamples(const SampleShape& shape);

// Empty if `a` equals `b` field by field (salary compared bit for bit, NaN equal to NaN);
// otherwise the path and values of the first difference, e.g. "[3].children[1].zip: 12 != 13".
std::string FirstDifference(const std::vector<DataSample>& a, const std::vector<DataSample>& b);

}  // namespace lather
