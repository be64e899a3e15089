// SoapEngine's EchoDataSamples through Lather's sample codec (wsdl/sample_reader.h, sample_writer.h):
// gSOAP reads the Envelope and Header and writes the response's Envelope, the codec reads the Body's
// samples and writes them back (issue 7: gSOAP's generated serializers cost ~130 instructions per byte).
#include <string>

#include "service/soap/soap_engine.h"
#include "soapLatherSoapService.h"
#include "wsdl/sample_writer.h"

namespace lather {

void SoapEngine::EchoReadFault(const SampleReadResult& read) {
  std::string reason;
  switch (read.problem) {
    case SampleReadProblem::kDepth:
      reason = "the XML nests deeper than " + std::to_string(soap_->maxlevel) + " levels (the service's --max-depth)";
      break;
    case SampleReadProblem::kOccurs:
      reason = "a list holds more elements than the service accepts: at most " + std::to_string(soap_->maxoccurs) +
               " (its --max-occurs)";
      break;
    case SampleReadProblem::kString:
      reason = "a string value is longer than " + std::to_string(max_string_) +
               " characters, the service's limit (--max-string)";
      break;
    default:
      reason = read.message;
      break;
  }
  soap_sender_fault(soap_, soap_strdup(soap_, reason.c_str()), nullptr);
}

void SoapEngine::ServeEcho(size_t at) {
  SampleReadLimits limits;
  // gSOAP's levels: the Envelope is 1 and the Body 2 (soap_->level now); the echo's wrapper is 3.
  limits.max_depth = soap_->maxlevel > soap_->level ? soap_->maxlevel - soap_->level : 0;
  limits.max_occurs = soap_->maxoccurs;
  limits.max_string = max_string_;
  limits.refuse_processing_instructions = true;
  const SampleReadResult read = ReadSampleWrapper(call_->body, at, "EchoDataSamples", scope_, limits, &samples_);
  if (!read.ok()) {
    operation_ = 4;
    EchoReadFault(read);
    return;
  }
  // gSOAP reads the rest (the Body's and the Envelope's end tags), pre-scanned like any request.
  if (!PreScan(call_->body.substr(read.end))) return;
  read_offset_ = read.end;
  soap_->bufidx = soap_->buflen = 0;
  if (soap_body_end_in(soap_) || soap_envelope_end_in(soap_) || soap_end_recv(soap_)) return;
  operation_start_ = Clock::now();
  const bool allowed = CheckAction("EchoDataSamples") == SOAP_OK && Authorize(4) == SOAP_OK;
  operation_end_ = Clock::now();
  if (!allowed) return;
  // The response: gSOAP's Envelope (and Header, if any), the codec's Body content.
  soap_->encodingStyle = nullptr;  // literal
  soap_serializeheader(soap_);
  if (soap_begin_count(soap_) != SOAP_OK) return;
  if ((soap_->mode & SOAP_IO_LENGTH) != 0) {  // a counting pass: never in plain mode (SOAP_ENC_PLAIN)
    soap_receiver_fault(soap_, "internal error: unexpected counting pass", nullptr);
    return;
  }
  if (soap_end_count(soap_) || soap_response(soap_, SOAP_OK) || soap_envelope_begin_out(soap_) ||
      soap_putheader(soap_) || soap_body_begin_out(soap_) || soap_flush(soap_)) {
    return;
  }
  SampleWriteForm form;
  form.prefix = "l";
  form.encoding_prefix = "SOAP-ENC";
  form.soap_version = soap_->version;
  WriteSampleWrapper(samples_, "EchoDataSamplesResponse", form, out_);
  if (soap_body_end_out(soap_) || soap_envelope_end_out(soap_) || soap_end_send(soap_)) return;
}

}  // namespace lather
