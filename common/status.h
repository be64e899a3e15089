// Status: the outcome of a library call, ok or an error kind with a message (LevelDB style).
// A Status is a small value; copy it freely. Thread-compatible.
#pragma once

#include <string>
#include <utility>

namespace lather {

class Status {
 public:
  enum class Kind {
    kOk,
    kInvalidArgument,  // the caller's input is wrong (a SOAP Client/Sender fault)
    kFault,            // a SOAP fault came back from the peer
    kIOError,          // connection refused, reset, unwritable file
    kTimeout,          // a deadline passed
    kUnavailable,      // a dependency (the store) cannot serve now
    kInternal,         // a bug or an unexpected condition
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(Kind::kInvalidArgument, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Kind::kIOError, std::move(msg)); }
  static Status Timeout(std::string msg) { return Status(Kind::kTimeout, std::move(msg)); }
  static Status Unavailable(std::string msg) { return Status(Kind::kUnavailable, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Kind::kInternal, std::move(msg)); }
  // A fault returned by a SOAP peer: `code` is the fault code as sent (e.g. "SOAP-ENV:Client").
  static Status Fault(std::string code, std::string reason) {
    Status s(Kind::kFault, std::move(reason));
    s.fault_code_ = std::move(code);
    return s;
  }

  bool ok() const { return kind_ == Kind::kOk; }
  Kind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  // The SOAP fault code when kind() == kFault, otherwise empty.
  const std::string& fault_code() const { return fault_code_; }

  // "OK", or "<kind>: <message>" (a fault reads "fault: <code>: <reason>").
  std::string ToString() const;

 private:
  Status(Kind kind, std::string message) : kind_(kind), message_(std::move(message)) {}

  Kind kind_ = Kind::kOk;
  std::string message_;
  std::string fault_code_;
};

}  // namespace lather
