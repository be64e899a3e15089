// libFuzzer target, differential (issue 29): the same bytes to the SOAP engine with its fast path
// (service/soap/fast_path.h) and without it (gSOAP alone); any difference in outcome fails: the HTTP
// status, the SOAP version, the operation, the kind of fault, deferred or not, the IncCounter handed to
// the store's writer, and the response bytes. Two set-ups, as the service runs engines:
//   loop: an event loop's engine (counter calls deferred; IncCounter read here for the writer);
//   pool: a pool thread's engine with a real SQLite store (GetCounter read and answered here).
// The input's first byte picks the set-up, the Content-Type's SOAP version and the action header; the
// rest is the body. A fast answer with no gSOAP twin, or a twin that differs, traps.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "LatherSoap.nsmap"
#include "service/soap/operations.h"
#include "service/soap/soap_engine.h"
#include "service/store/counter_store.h"

namespace {

struct Pair {
  std::unique_ptr<lather::SoapEngine> fast, slow;
};

lather::SoapEngine* Make(lather::Operations* ops, bool fast, bool loop) {
  lather::SoapEngineLimits limits;
  limits.fast_path = fast;
  auto* engine = new lather::SoapEngine(ops, limits, loop);
  engine->set_increments_to_writer(loop);
  return engine;
}

lather::Operations* PoolOperations() {
  static char folder[] = "/tmp/lather-fastdiff-XXXXXX";
  if (::mkdtemp(folder) == nullptr) std::abort();
  const std::string db = std::string(folder) + "/counters.db";
  std::atexit([] {
    for (const char* suffix : {"/counters.db", "/counters.db-wal", "/counters.db-shm"}) {
      ::unlink((std::string(folder) + suffix).c_str());
    }
    ::rmdir(folder);
  });
  std::unique_ptr<lather::CounterStore> store;
  if (!lather::CounterStore::Open("sqlite:" + db, &store).ok()) std::abort();
  return new lather::Operations(std::move(store));
}

void Differ(const char* what, const std::string& fast, const std::string& slow) {
  std::fprintf(stderr, "fast path and gSOAP differ in %s:\n  fast: %s\n  gSOAP: %s\n", what, fast.c_str(), slow.c_str());
  __builtin_trap();
}

std::string Describe(const lather::SoapOutcome& o) {
  return "status " + std::to_string(o.http_status) + ", SOAP " + std::to_string(o.soap_version) + ", operation " +
         std::to_string(o.operation) + (o.sender_fault ? ", sender fault" : "") + (o.deferred ? ", deferred" : "") +
         (o.increment ? ", increment" : "") + (o.unauthorized ? ", unauthorized" : "") +
         (o.unavailable ? ", unavailable" : "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static lather::Operations loop_ops(nullptr);
  static lather::Operations* pool_ops = PoolOperations();
  static Pair loop{std::unique_ptr<lather::SoapEngine>(Make(&loop_ops, true, true)),
                   std::unique_ptr<lather::SoapEngine>(Make(&loop_ops, false, true))};
  static Pair pool{std::unique_ptr<lather::SoapEngine>(Make(pool_ops, true, false)),
                   std::unique_ptr<lather::SoapEngine>(Make(pool_ops, false, false))};
  if (size == 0) return 0;
  static const char* const kActions[] = {"", "urn:lather:v1#Increment", "urn:lather:v1#HelloWorld",
                                         "urn:lather:v1/IncCounter", "urn:lather:v1#GetCounter", "urn:other#Op",
                                         "urn:lather:v1#Nothing", "\"\""};
  const uint8_t control = data[0];
  Pair& engines = (control & 1) ? pool : loop;
  lather::SoapCall call;
  call.content_type_version = (control & 2) ? 2 : 1;
  call.action = kActions[(control >> 2) % 8];
  call.body = std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1);

  std::string fast_body;
  const lather::SoapOutcome fast = engines.fast->Serve(call, &fast_body);
  if (!fast.fast_path) return 0;  // declined: it went to gSOAP, the same code the twin runs
  std::string slow_body;
  const lather::SoapOutcome slow = engines.slow->Serve(call, &slow_body);
  if (slow.fast_path) Differ("which path read it", "fast", "fast (the gSOAP-only engine?)");
  if (Describe(fast) != Describe(slow)) Differ("the outcome", Describe(fast), Describe(slow));
  if (fast.increment) {
    const auto& a = engines.fast->pending_increment();
    const auto& b = engines.slow->pending_increment();
    if (a.name != b.name || a.message_id != b.message_id || a.plain_version != b.plain_version) {
      Differ("the increment for the writer", a.name + " / " + a.message_id + " / " + std::to_string(a.plain_version),
             b.name + " / " + b.message_id + " / " + std::to_string(b.plain_version));
    }
  }
  // A pool IncCounter commits once per engine: the gSOAP twin's value is one more; compare the rest.
  if (fast.operation == 2 && !fast.deferred && fast.http_status == 200) return 0;
  if (fast_body != slow_body) Differ("the response bytes", fast_body, slow_body);
  return 0;
}
