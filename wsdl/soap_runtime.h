// SoapRuntime: gSOAP's process-wide set-up, done once before the first context. Built WITH_OPENSSL,
// every soap_init() reads - and the first one writes - gSOAP's unguarded global soap_ssl_init_done, a
// data race when threads create contexts at the same moment (ThreadSanitizer found it in the crash
// test's client threads). InitSoapRuntime() runs that set-up exactly once (std::call_once) and makes it
// visible to every thread that calls it; call it before creating a gSOAP context. Thread-safe.
#pragma once

namespace lather {

void InitSoapRuntime();

}  // namespace lather
