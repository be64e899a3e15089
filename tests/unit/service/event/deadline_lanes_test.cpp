#include "service/event/deadline_lanes.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

using lather::DeadlineLanes;
using std::chrono::milliseconds;

namespace {

constexpr int64_t kMs = 1'000'000;

// An entry that records when it expired, and can re-arm itself or arm another entry from its callback.
class Probe : public DeadlineLanes::Entry {
 public:
  Probe(std::string name, std::vector<std::string>* log) : name_(std::move(name)), log_(log) {}
  DeadlineLanes* lanes = nullptr;
  milliseconds rearm{0};  // > 0: arm again for this long when expired
  int64_t now_ns = 0;

 protected:
  void DeadlineExpired() override {
    log_->push_back(name_);
    if (rearm.count() > 0) lanes->Arm(this, rearm, now_ns);
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
};

}  // namespace

TEST_CASE("deadlines of different lengths expire earliest first, and only once due", "[service][event]") {
  std::vector<std::string> log;
  DeadlineLanes lanes;
  Probe header("header", &log), body("body", &log), idle("idle", &log), later_header("later header", &log);
  lanes.Arm(&idle, milliseconds(60), 0);
  lanes.Arm(&body, milliseconds(30), 0);
  lanes.Arm(&header, milliseconds(10), 0);
  lanes.Arm(&later_header, milliseconds(10), 5 * kMs);
  CHECK(lanes.armed_count() == 4);
  CHECK(lanes.next_due_ns() == 10 * kMs);
  CHECK(lanes.Expire(10 * kMs - 1, 100) == 0);  // nothing is due a nanosecond early
  CHECK(lanes.Expire(20 * kMs, 100) == 2);
  CHECK(log == std::vector<std::string>{"header", "later header"});
  CHECK_FALSE(header.armed());
  CHECK(lanes.next_due_ns() == 30 * kMs);
  CHECK(lanes.Expire(100 * kMs, 100) == 2);
  CHECK(log == std::vector<std::string>{"header", "later header", "body", "idle"});
  CHECK(lanes.armed_count() == 0);
  CHECK(lanes.next_due_ns() == DeadlineLanes::kNever);
}

TEST_CASE("a re-armed deadline moves to its new lane and a disarmed one never expires", "[service][event]") {
  std::vector<std::string> log;
  DeadlineLanes lanes;
  Probe a("a", &log), b("b", &log), c("c", &log);
  lanes.Arm(&a, milliseconds(10), 0);
  lanes.Arm(&b, milliseconds(10), 1 * kMs);
  lanes.Arm(&c, milliseconds(10), 2 * kMs);
  lanes.Arm(&a, milliseconds(50), 3 * kMs);  // a moves from the head of one lane to another: due at 53 ms
  lanes.Disarm(&b);                           // now the head of its lane
  lanes.Disarm(&b);                           // twice is harmless
  CHECK(lanes.armed_count() == 2);
  CHECK(lanes.next_due_ns() == 12 * kMs);
  CHECK(lanes.Expire(52 * kMs, 100) == 1);
  CHECK(log == std::vector<std::string>{"c"});
  CHECK(lanes.Expire(53 * kMs, 100) == 1);
  CHECK(log == std::vector<std::string>{"c", "a"});
  // Disarming from the middle of a lane keeps its order.
  Probe d("d", &log), e("e", &log), f("f", &log);
  lanes.Arm(&d, milliseconds(10), 100 * kMs);
  lanes.Arm(&e, milliseconds(10), 101 * kMs);
  lanes.Arm(&f, milliseconds(10), 102 * kMs);
  lanes.Disarm(&e);
  CHECK(lanes.Expire(200 * kMs, 100) == 2);
  CHECK(log == std::vector<std::string>{"c", "a", "d", "f"});
}

TEST_CASE("a wave of due deadlines is expired a budget at a time, in order", "[service][event]") {
  std::vector<std::string> log;
  DeadlineLanes lanes;
  std::vector<std::unique_ptr<Probe>> probes;
  for (int i = 0; i < 40; ++i) {
    probes.push_back(std::make_unique<Probe>(std::to_string(i), &log));
    lanes.Arm(probes.back().get(), milliseconds(5000), 0);  // 40 slow clients connected together
  }
  CHECK(lanes.Expire(5000 * kMs, 16) == 16);
  CHECK(log.size() == 16);
  CHECK(log.back() == "15");
  CHECK(lanes.Expire(5000 * kMs, 16) == 16);
  CHECK(lanes.Expire(5000 * kMs, 16) == 8);  // less than the budget: nothing more is due
  REQUIRE(log.size() == 40);
  for (int i = 0; i < 40; ++i) CHECK(log[static_cast<size_t>(i)] == std::to_string(i));
}

TEST_CASE("an entry may re-arm itself while it expires, and is then due again later", "[service][event]") {
  std::vector<std::string> log;
  DeadlineLanes lanes;
  Probe lingering("lingering", &log), other("other", &log);
  lingering.lanes = &lanes;
  lingering.rearm = milliseconds(100);  // a 408 written: the connection now lingers
  lingering.now_ns = 10 * kMs;
  lanes.Arm(&lingering, milliseconds(10), 0);
  lanes.Arm(&other, milliseconds(10), 1 * kMs);
  CHECK(lanes.Expire(50 * kMs, 100) == 2);  // the re-armed one is not due again in the same call
  CHECK(log == std::vector<std::string>{"lingering", "other"});
  CHECK(lingering.armed());
  CHECK(lanes.next_due_ns() == 110 * kMs);
  lingering.rearm = milliseconds(0);
  CHECK(lanes.Expire(110 * kMs, 100) == 1);
  CHECK(lanes.armed_count() == 0);
}
