// Client: a typed Lather client over the gSOAP-generated proxy, one keep-alive connection.
// Each call returns a Status: ok, Fault (the server's fault code and reason), IOError (connect,
// reset), Timeout, or Internal. A Client is not thread-safe; use one per thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "wsdl/data_sample.h"

struct soap;
struct Namespace;

namespace lather {

// Where the time of the last call went, from the client's side of the socket.
struct CallTimes {
  double serialize_seconds = 0;  // from the call to the first byte sent (conversion and serialization)
  double wait_seconds = 0;       // from the last byte sent to the first byte received (the server's round trip)
  double parse_seconds = 0;      // from the first byte received to the call's return (reading and conversion)
};

struct ClientOptions {
  // The service endpoint.
  std::string url = "http://127.0.0.1:8080/soap";
  // Send SOAP 1.2 envelopes (application/soap+xml) instead of SOAP 1.1 (text/xml).
  bool soap12 = false;
  // Connect, send and receive timeout in seconds.
  int timeout_seconds = 30;
  // Credentials sent with every call when `user` is not empty: HTTP Basic, or with `wsse` a
  // WS-Security UsernameToken (Type PasswordText) in the SOAP Header instead.
  std::string user;
  std::string password;
  bool wsse = false;
  // https:// only: extra trusted CA certificates (PEM) besides the system store.
  std::string ca_file;
  // https:// only: accept any certificate (no chain or host name check).
  bool insecure = false;
};

class Client {
 public:
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sets *result to value + 1.
  Status Increment(int32_t value, int32_t* result);
  // Sets *result to the greeting ("Hello World").
  Status HelloWorld(std::string* result);
  // Adds 1 to the named counter and sets *result to its new value.
  Status IncCounter(const std::string& name, int64_t* result) { return IncCounter(name, std::string(), result); }
  // The same with a wsa:MessageID header when `message_id` is not empty: the service counts a
  // repeat of the id once and answers the first value (a retry is not a second increment).
  Status IncCounter(const std::string& name, const std::string& message_id, int64_t* result);
  // Sets *result to the named counter's value (0 if unknown).
  Status GetCounter(const std::string& name, int64_t* result);
  // Sends `samples` (a tree, or an id/ref graph if samples.graph) and sets *echoed to what the
  // service returned.
  Status EchoDataSamples(const SampleSet& samples, SampleSet* echoed);

  // Ok, or why the client cannot make calls at all (an unreadable --cacert): check before calling.
  const Status& setup_status() const { return setup_; }

  // Bytes of the last call (HTTP headers included; over TLS, before encryption), each way.
  uint64_t last_bytes_sent() const { return bytes_sent_; }
  uint64_t last_bytes_received() const { return bytes_received_; }
  // Where the last call's time went (see CallTimes).
  CallTimes last_times() const;
  // While `sink` is not null, every byte sent (HTTP head and body) is also appended to *sink; the
  // caller owns the string and must keep it alive while set.
  void set_send_copy(std::string* sink) { send_copy_ = sink; }

 private:
  class Proxy;
  // Prepares the context for a call (SOAP version, per-call memory, byte counters).
  void BeginCall();
  // Maps the context's state after a call to a Status and frees the call's memory.
  Status EndCall(int error);

  // https:// endpoints: TLS 1.2+ with the certificate checks options_ ask for.
  Status SetUpTls();

  ClientOptions options_;
  std::vector<::Namespace> namespaces_;  // the table in use (with wsse when sending a UsernameToken)
  std::vector<::Namespace> namespaces_with_wsa_;  // the same plus wsa5, for a call with a wsa:MessageID
  Status setup_;
  std::unique_ptr<Proxy> proxy_;
  struct soap* soap_;
  uint64_t bytes_sent_ = 0;
  uint64_t bytes_received_ = 0;
  std::string* send_copy_ = nullptr;
  std::string echo_text_;  // the last echo request's samples as XML, reused between calls
  // Stamps of the last call: start, first and last byte sent, first byte received, return.
  using Clock = std::chrono::steady_clock;
  Clock::time_point call_start_{}, first_send_{}, last_send_{}, first_receive_{}, call_end_{};
};

}  // namespace lather
