// The components of a farm in the verdict: what each is called ("nodes", "the load balancer", "the
// database", from the name it was given), how much of its budget it used, the calls/s it could sustain,
// and how that reads ("nodes (4 x 0.25 core, each at 97%)"). Pure functions over measured figures, used by
// Judge(); thread-safe.
#pragma once

#include <string>

#include "stress/verdict/verdict.h"

namespace lather {

// What a component does, from its name: a node of the farm, a load balancer or proxy, a database.
enum class ComponentRole { kNode, kBalancer, kDatabase, kOther };
ComponentRole RoleOf(const std::string& name);

// "nodes" (several) or "the node"/"the server" (one), "the load balancer", "the database", or the name.
std::string ComponentLabel(const std::string& name, int instances);

// The component's use in a window of `duration_seconds` with `calls` successful calls. Unknown figures
// (an instance's CPU or budget unknown) make the sums unknown (-1); never NaN or inf.
ComponentVerdict JudgeComponent(const ComponentFigures& figures, double duration_seconds, double calls);

// The limit's wording: "nodes (4 x 0.25 core, each at 97%)", "the load balancer (haproxy at 99% of 1
// core)", "the database (postgres at 90% of 2 cores)".
std::string DescribeComponent(const ComponentVerdict& c);

// The wording among the other resources: "the database (postgres) used 0.20 of 2 cores (10%) -> postgres
// ceiling ~ 9,000 calls/s", or "... CPU unknown (not measured)".
std::string ComponentUse(const ComponentVerdict& c);

}  // namespace lather
