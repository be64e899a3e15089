#include "common/status.h"

namespace lather {

std::string Status::ToString() const {
  switch (kind_) {
    case Kind::kOk:
      return "OK";
    case Kind::kInvalidArgument:
      return "invalid argument: " + message_;
    case Kind::kFault:
      return "fault: " + fault_code_ + ": " + message_;
    case Kind::kIOError:
      return "I/O error: " + message_;
    case Kind::kTimeout:
      return "timeout: " + message_;
    case Kind::kUnavailable:
      return "unavailable: " + message_;
    case Kind::kInternal:
      return "internal error: " + message_;
  }
  return message_;
}

}  // namespace lather
