// SoapEngine's fast path (fast_path.h) and the templates of gSOAP's own answers it writes from.
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "common/log.h"
#include "service/soap/fast_path.h"
#include "service/soap/soap_engine.h"
#include "soapH.h"

namespace lather {
namespace {

constexpr const char* kNames[] = {"Increment", "HelloWorld", "IncCounter", "GetCounter", "EchoDataSamples"};
constexpr std::string_view kEnv11 = "http://schemas.xmlsoap.org/soap/envelope/";
constexpr std::string_view kEnv12 = "http://www.w3.org/2003/05/soap-envelope";

// The result each capture answers with: digits that occur once in the answer.
constexpr int32_t kIncrementMarker = 1357924680;      // the request's value is one less
constexpr int64_t kCounterMarker = 7306142925071839241;

struct Answers {
  AnswerTemplate of[4][2][2];  // [operation][version - 1][an empty Header in the request]
};

// Serves `request` with a gSOAP-only engine and splits the answer at `marker` (empty: keeps it whole).
void Capture(SoapEngine* engine, const std::string& request, int version, const std::string& marker, bool inject,
             AnswerTemplate* out) {
  SoapCall call;
  call.body = request;
  call.content_type_version = version;
  if (inject) engine->InjectIncrement(Status::Ok(), kCounterMarker);
  std::string answer;
  const SoapOutcome outcome = engine->Serve(call, &answer);
  if (outcome.http_status != 200 || outcome.soap_version != version || outcome.deferred) return;
  if (marker.empty()) {
    out->before = answer;
    out->ok = true;
    return;
  }
  const size_t at = answer.find(marker);
  if (at == std::string::npos || answer.find(marker, at + 1) != std::string::npos) return;
  out->before = answer.substr(0, at);
  out->after = answer.substr(at + marker.size());
  out->ok = true;
}

const Answers& CapturedAnswers() {
  static const Answers answers = [] {
    Answers a;
    Operations no_store(nullptr);  // Increment and HelloWorld need none; the counters' results are injected
    SoapEngineLimits limits;
    limits.fast_path = false;
    SoapEngine engine(&no_store, limits, /*defer_blocking=*/false);
    for (int version = 1; version <= 2; ++version) {
      for (int header = 0; header <= 1; ++header) {
        const std::string open = std::string("<?xml version=\"1.0\" encoding=\"UTF-8\"?><e:Envelope xmlns:e=\"") +
                                 std::string(version == 2 ? kEnv12 : kEnv11) + "\">" + (header ? "<e:Header/>" : "") +
                                 "<e:Body>";
        const std::string close = "</e:Body></e:Envelope>";
        const std::string l = " xmlns:l=\"urn:lather:v1\"";
        AnswerTemplate* of = &a.of[0][version - 1][header];
        Capture(&engine, open + "<l:Increment" + l + "><l:value>" + std::to_string(kIncrementMarker - 1) +
                             "</l:value></l:Increment>" + close,
                version, std::to_string(kIncrementMarker), false, of);
        of = &a.of[1][version - 1][header];
        Capture(&engine, open + "<l:HelloWorld" + l + "/>" + close, version, "", false, of);
        of = &a.of[2][version - 1][header];
        Capture(&engine, open + "<l:IncCounter" + l + "><l:name>answer</l:name></l:IncCounter>" + close, version,
                std::to_string(kCounterMarker), true, of);
        of = &a.of[3][version - 1][header];
        Capture(&engine, open + "<l:GetCounter" + l + "><l:name>answer</l:name></l:GetCounter>" + close, version,
                std::to_string(kCounterMarker), true, of);
      }
    }
    for (size_t op = 0; op < 4; ++op) {
      for (int v = 0; v < 2; ++v) {
        for (int h = 0; h < 2; ++h) {
          if (a.of[op][v][h].ok) continue;
          LogLine(std::string("the fast path's answer template for ") + kNames[op] + " over SOAP " +
                  (v == 0 ? "1.1" : "1.2") + (h ? " with an empty Header" : "") +
                  " could not be captured: those calls go through gSOAP");
        }
      }
    }
    return a;
  }();
  return answers;
}

void AppendNumber(int64_t value, const AnswerTemplate& answer, std::string* body) {
  char digits[24];
  const char* end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  body->append(answer.before).append(digits, static_cast<size_t>(end - digits)).append(answer.after);
}

}  // namespace

bool FastPathByDefault() {
  static const bool on = [] {
    const char* off = std::getenv("LATHER_NO_FAST_PATH");
    return off == nullptr || std::strcmp(off, "1") != 0;
  }();
  return on;
}

const AnswerTemplate& FastAnswer(size_t operation, int version, bool empty_header) {
  return CapturedAnswers().of[operation][version - 1][empty_header ? 1 : 0];
}

bool SoapEngine::FastServe(const SoapCall& call, std::string* response_body, SoapOutcome* outcome) {
  FastRequest request;
  if (!ReadFastRequest(call.body, &request)) return false;
  if (request.soap_version != call.content_type_version) return false;  // a version mismatch: gSOAP's fault
  const size_t op = request.operation;
  // An action naming another operation than the Body is a fault; credentials are gSOAP's to read.
  const std::string_view named = OperationOfAction(call.action);
  if (!named.empty() && named != kNames[op]) return false;
  if (authenticator_ != nullptr && (auth_scope_ == AuthScope::kAll || op == kIncCounterIndex)) return false;
  if (soap_->maxlevel < 4) return false;  // --max-depth below the envelope's own depth: gSOAP's fault
  const AnswerTemplate& answer = FastAnswer(op, request.soap_version, request.empty_header);
  if (!answer.ok) return false;
  const Clock::time_point read = Clock::now();
  SoapOutcome o;
  o.soap_version = request.soap_version;
  o.operation = op;
  o.fast_path = true;
  switch (op) {
    case 0: {  // Increment
      int32_t result = 0;
      if (!operations_->Increment(request.value, &result).ok()) return false;  // 2147483647: gSOAP's fault
      AppendNumber(result, answer, response_body);
      break;
    }
    case 1:  // HelloWorld
      response_body->append(answer.before);
      break;
    case 2: {  // IncCounter
      std::string name(request.name);
      if (!Operations::CheckIncrement(name, nullptr).ok()) return false;
      if (increments_to_writer_) {  // the store's writer commits it; the router writes the answer
        pending_increment_.name = std::move(name);
        pending_increment_.message_id.clear();
        // With a Header (an empty one) gSOAP's reading marks the call to be read again for its answer.
        pending_increment_.plain_version = request.empty_header ? 0 : request.soap_version;
        o.deferred = true;
        o.increment = true;
        break;
      }
      if (defer_blocking_) return false;  // read on the pool (Serve defers it unread)
      int64_t value = 0;
      const Status s = operations_->IncCounter(name, nullptr, &value);
      if (!s.ok()) {  // the store's failure, answered by gSOAP as a fault without touching the store again
        InjectIncrement(s, value);
        *outcome = Serve(call, response_body);
        return true;
      }
      AppendNumber(value, answer, response_body);
      break;
    }
    case 3: {  // GetCounter
      if (defer_blocking_) return false;  // read on the pool (Serve defers it unread)
      int64_t value = 0;
      const Status s = operations_->GetCounter(std::string(request.name), &value);
      if (!s.ok()) {
        InjectIncrement(s, value);
        *outcome = Serve(call, response_body);
        return true;
      }
      AppendNumber(value, answer, response_body);
      break;
    }
    default:
      return false;
  }
  const Clock::time_point end = Clock::now();
  o.parse_seconds = std::chrono::duration<double>(read - serve_start_).count();
  o.serialize_seconds = std::chrono::duration<double>(end - read).count();
  *outcome = o;
  return true;
}

}  // namespace lather
