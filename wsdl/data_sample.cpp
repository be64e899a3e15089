#include "wsdl/data_sample.h"

#include <utility>

namespace lather {

DataSample* SampleSet::Add() {
  if (used_in_last_ == kChunk) {
    chunks_.push_back(std::make_unique<DataSample[]>(kChunk));
    used_in_last_ = 0;
  }
  ++owned_;
  return &chunks_.back()[used_in_last_++];
}

DataSample* SampleSet::Append(DataSample sample) {
  DataSample* owned = Add();
  *owned = std::move(sample);
  samples.push_back(owned);
  return owned;
}

void SampleSet::Clear() {
  samples.clear();
  graph = false;
  owned_ = 0;
  if (chunks_.empty()) return;
  const size_t used_in_first = chunks_.size() > 1 ? kChunk : used_in_last_;  // the first chunk may be full
  chunks_.resize(1);
  for (size_t i = 0; i < used_in_first; ++i) chunks_[0][i] = DataSample();
  used_in_last_ = 0;
}

}  // namespace lather
