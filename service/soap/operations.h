// Operations: the semantics of the contract's operations on plain C++ types (no gSOAP here).
// An Operations object is used by one engine thread at a time; it owns that thread's counter backend.
// Errors: InvalidArgument becomes a Client/Sender fault, anything else a Server/Receiver fault.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "service/store/counter_store.h"

namespace lather {

// Longest counter name, in characters (Unicode code points), as the WSDL's CounterName says.
inline constexpr size_t kMaxCounterNameChars = 64;

class Operations {
 public:
  // `counters` may be null: the counter operations then answer Unavailable.
  explicit Operations(std::unique_ptr<CounterBackend> counters);

  // value + 1; InvalidArgument for 2147483647, which has no successor in xsd:int.
  Status Increment(int32_t value, int32_t* result) const;

  // "Hello World".
  static const char* HelloWorld() { return "Hello World"; }

  // Adds 1 to the named counter durably and returns the new value; InvalidArgument for a name
  // that is empty, longer than 64 characters or not valid UTF-8.
  Status IncCounter(const std::string& name, int64_t* result) { return IncCounter(name, nullptr, result); }

  // IncCounter() made idempotent by `message_id` (the request's wsa:MessageID; null when it has
  // none): a repeat of the id answers the first value and counts nothing (CounterBackend::Increment).
  // InvalidArgument for an id that is empty or longer than kMaxMessageIdBytes, or already used for
  // another counter name.
  Status IncCounter(const std::string& name, const std::string* message_id, int64_t* result);
  // What IncCounter() checks before it touches the store: the counter's name and the message id (null: none).
  static Status CheckIncrement(const std::string& name, const std::string* message_id);

  // The named counter's value, 0 for an unknown name.
  Status GetCounter(const std::string& name, int64_t* result);

 private:
  std::unique_ptr<CounterBackend> store_;
};

// Number of code points in `text`, or -1 if it is not valid UTF-8.
long Utf8Length(std::string_view text);

}  // namespace lather
