// lather-stress's --server-pid and --metrics-url: one server, or a farm's named components and their
// instances, and the component that serves the calls.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <string>

#include "stress/cli/server_side.h"

using lather::BuildServerSide;
using lather::ServerSide;
using lather::ServerSideValue;
using lather::SplitNamed;

TEST_CASE("NAME= prefixes name a component and anything else is the server", "[stress][cli]") {
  std::string name, rest;
  SplitNamed("node=123", &name, &rest);
  CHECK((name == "node" && rest == "123"));
  SplitNamed("123", &name, &rest);
  CHECK((name == "server" && rest == "123"));
  SplitNamed("http://10.0.0.1:9100/metrics?a=b", &name, &rest);
  CHECK((name == "server" && rest == "http://10.0.0.1:9100/metrics?a=b"));
  SplitNamed("db-1=http://10.0.0.1:9100/metrics", &name, &rest);
  CHECK((name == "db-1" && rest == "http://10.0.0.1:9100/metrics"));
}

TEST_CASE("one plain PID is the one server, with /metrics at the target", "[stress][cli]") {
  const std::string me = std::to_string(getpid());
  ServerSide side;
  REQUIRE(BuildServerSide({{true, me}}, "127.0.0.1", 8080, false, &side).ok());
  CHECK(!side.farm);
  REQUIRE(side.instances.size() == 1);
  CHECK(side.instances[0].pid == getpid());
  CHECK(side.instances[0].metrics_host == "127.0.0.1");
  CHECK(side.serving == "server");
  REQUIRE(BuildServerSide({}, "localhost", 8080, false, &side).ok());
  REQUIRE(side.instances.size() == 1);
  CHECK(side.instances[0].metrics_host.empty());  // only numeric addresses are scraped
}

TEST_CASE("named PIDs and URLs make a farm, the node-like component serving", "[stress][cli]") {
  const std::string me = std::to_string(getpid());
  const std::string parent = std::to_string(getppid());
  ServerSide side;
  const std::vector<ServerSideValue> values = {{true, "haproxy=" + parent},
                                               {true, "node=" + me},
                                               {true, "node=" + parent},
                                               {false, "node=http://10.0.0.11:9100/metrics"},
                                               {false, "postgres=http://10.0.0.1:9187/metrics"}};
  REQUIRE(BuildServerSide(values, "10.0.0.1", 8080, false, &side).ok());
  CHECK(side.farm);
  CHECK(side.serving == "node");
  REQUIRE(side.instances.size() == 4);
  CHECK(side.instances[0].component == "haproxy");
  CHECK(side.instances[1].component == "node");
  CHECK(side.instances[1].pid == getpid());
  CHECK(side.instances[1].metrics_host == "10.0.0.11");  // the first node's PID and URL are one instance
  CHECK(side.instances[2].metrics_host.empty());
  CHECK(side.instances[3].component == "postgres");
  CHECK(side.instances[3].pid == 0);
  CHECK(side.instances[3].metrics_port == 9187);
}

TEST_CASE("a PID that is not running or a URL by name is refused with one clear line", "[stress][cli]") {
  ServerSide side;
  const auto s = BuildServerSide({{true, "node=2147483646"}}, "127.0.0.1", 80, false, &side);
  CHECK(!s.ok());
  CHECK(s.message() == "--server-pid node=2147483646: no process 2147483646 is running");
  CHECK(!BuildServerSide({{true, "node=abc"}}, "127.0.0.1", 80, false, &side).ok());
  const auto u = BuildServerSide({{false, "db=http://database:9187/metrics"}, {true, "node=1"}}, "127.0.0.1", 80,
                                 false, &side);
  CHECK(!u.ok());
  CHECK(u.message().find("numeric IPv4") != std::string::npos);
}
