// DataSample and SampleSet: the contract's rich record (EchoDataSamples) as plain C++ values, read and
// written by the hand-written codec (sample_reader.h, sample_writer.h) that both the service and the
// client use instead of gSOAP's generated serializers for this one type.
// A SampleSet owns every sample it holds; lists hold pointers, so one sample may appear in two places
// or a child may refer to an ancestor (an id/ref graph, `graph`). Not thread-safe; movable, not copyable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
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
  std::vector<DataSample*> children;  // owned by the SampleSet that owns this sample
};

class SampleSet {
 public:
  SampleSet() = default;
  SampleSet(SampleSet&&) noexcept = default;
  SampleSet& operator=(SampleSet&&) noexcept = default;
  SampleSet(const SampleSet&) = delete;
  SampleSet& operator=(const SampleSet&) = delete;

  // A new default sample owned by this set (its address never changes); not placed in any list.
  DataSample* Add();
  // Moves `sample` into a new sample owned by this set and appends that to the top-level list; its
  // children must already be owned by this set. Returns the new sample.
  DataSample* Append(DataSample sample);
  // Number of samples owned (each counted once, however often it is referred to).
  size_t owned() const { return owned_; }
  // Drops every sample and the top-level list; keeps the memory of the first chunk for reuse.
  void Clear();

  std::vector<DataSample*> samples;  // the top-level list (the DataSampleList), in document order
  // True when the samples may be shared or cyclic: read from a request that used id/ref, or built
  // so by a generator. Written in id/ref form if true, as a plain tree if false.
  bool graph = false;

 private:
  static constexpr size_t kChunk = 256;
  std::vector<std::unique_ptr<DataSample[]>> chunks_;
  size_t used_in_last_ = kChunk;  // samples handed out from chunks_.back()
  size_t owned_ = 0;
};

}  // namespace lather
