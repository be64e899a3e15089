#include "soap_runtime.h"

#include <mutex>

#include "soapH.h"

namespace lather {

void InitSoapRuntime() {
  static std::once_flag once;
  std::call_once(once, [] {
#ifdef WITH_OPENSSL
    soap_ssl_init();  // OpenSSL's library set-up and gSOAP's flag; later soap_init() calls only read it
#endif
  });
}

}  // namespace lather
