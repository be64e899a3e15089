// Message ids for WS-Addressing wsa:MessageID: a fresh "urn:uuid:" URI (a random, version 4 UUID) per
// request, so that a retry of the request can repeat it. Thread-safe.
#pragma once

#include <string>

namespace lather {

// A new "urn:uuid:xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" (RFC 4122 version 4, random).
std::string NewMessageId();

}  // namespace lather
