// libFuzzer target: the hand-written EchoDataSamples reader (wsdl/sample_reader) on any bytes. It must
// never crash, hang or read outside the input; on success every sample reachable from the result (ids
// and references included, cycles allowed) is a non-null sample the set owns (at most owned() distinct
// ones, each readable: ASan checks), and `end` lies inside the input just past a '>'.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "wsdl/sample_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  lather::SampleReadLimits limits;
  limits.max_depth = 100;
  limits.max_occurs = 1000;
  limits.max_string = 200;
  // An input starting with 'R' is read as a response; the prefix 'l' is bound where reading starts.
  const bool response = !xml.empty() && xml[0] == 'R';
  const std::vector<lather::NamespaceBinding> scope = {{"l", lather::XmlNamespace::kLather},
                                                       {"SOAP-ENC", lather::XmlNamespace::kSoapEncoding}};
  lather::SampleSet set;
  const lather::SampleReadResult r = lather::ReadSampleWrapper(
      xml, response ? 1 : 0, response ? "EchoDataSamplesResponse" : "EchoDataSamples", scope, limits, &set);
  if (!r.ok()) {
    if (r.message.empty()) std::abort();
    return 0;
  }
  if (r.end == 0 || r.end > size || xml[r.end - 1] != '>') std::abort();
  std::unordered_set<const lather::DataSample*> seen;
  std::vector<const lather::DataSample*> todo(set.samples.begin(), set.samples.end());
  size_t bytes = 0;
  while (!todo.empty()) {
    const lather::DataSample* s = todo.back();
    todo.pop_back();
    if (s == nullptr) std::abort();
    if (!seen.insert(s).second) continue;
    bytes += s->firstname.size() + s->date_of_birth.size() + s->contact_nos.size();
    if (!lather::IsXsdDateTime(s->date_of_birth)) std::abort();
    for (const lather::DataSample* c : s->children) todo.push_back(c);
  }
  if (seen.size() > set.owned()) std::abort();
  if (!set.graph && seen.size() != set.owned()) std::abort();  // a tree: every owned sample appears once
  return static_cast<int>(bytes & 0);
}
