// Placeholder until the reader lands (this session); see sample_reader.h.
#include "wsdl/sample_reader.h"

namespace lather {

XmlNamespace ClassifyNamespace(std::string_view) { return XmlNamespace::kOther; }

SampleReadResult ReadSampleWrapper(std::string_view, size_t, std::string_view, const std::vector<NamespaceBinding>&,
                                   const SampleReadLimits&, SampleSet*) {
  SampleReadResult r;
  r.problem = SampleReadProblem::kMalformed;
  r.message = "not implemented yet";
  return r;
}

}  // namespace lather
