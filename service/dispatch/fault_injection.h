// InjectFault: what the X-Lather-Fault request header does when lather-service runs with
// --fault-injection (tests and demos of --workers only; off by default, and the header is ignored
// then): "crash" dies of SIGSEGV, "hang" blocks the thread serving the request for ever, "leak" keeps
// 16 MiB that are never freed. Called on the thread that serves the request.
#pragma once

#include <string_view>

namespace lather {

// Carries out `fault`; returns (only for "leak" and unknown names) false if the name is unknown.
bool InjectFault(std::string_view fault);

}  // namespace lather
