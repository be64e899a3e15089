#include "stress/report/run_json.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <catch2/catch.hpp>
#include <sstream>

#include "synthetic_run.h"

using lather::LatencyHistogram;
using lather::RunReport;

namespace {

constexpr int64_t kStart = 1'714'564'800'000'000'000;

}  // namespace

TEST_CASE("a run written as JSON and read back writes the same JSON", "[stress][report][json]") {
  const RunReport run = lather_test::SyntheticRun(lather_test::Latencies(1, 20000), "host-a", kStart);
  const std::string json = lather::ReportJson(run);
  RunReport back;
  const lather::Status s = lather::ParseRunJson(json, &back);
  REQUIRE(s.ok());
  CHECK(lather::ReportJson(back) == json);
  CHECK(back.load.total.latency == run.load.total.latency);
  CHECK(back.load.total.service_time == run.load.total.service_time);
  REQUIRE(back.load.total.seconds.size() == 5);
  for (size_t i = 0; i < 5; ++i) CHECK(back.load.total.seconds[i].latency == run.load.total.seconds[i].latency);
  CHECK(back.load.total.outcomes == run.load.total.outcomes);
  CHECK(back.verdict.text == run.verdict.text);
  CHECK(back.context.machine.cpu_model == "Test CPU @ 2.0GHz");
  CHECK(back.context.window_start_unix_ns == kStart);
  CHECK(back.cpu_per_second == run.cpu_per_second);
}

TEST_CASE("a run with receive stamps keeps its receipt times through JSON and one without has none",
          "[stress][report][json]") {
  RunReport run = lather_test::SyntheticRun(lather_test::Latencies(1, 2000), "host-a", kStart);
  RunReport back;
  REQUIRE(lather::ParseRunJson(lather::ReportJson(run), &back).ok());
  CHECK(back.load.total.receipt_time.count() == 0);
  CHECK(lather::ReportJson(run).find("\"receipt_time\"") == std::string::npos);
  for (uint64_t v = 1000; v < 500000; v += 997) run.load.total.receipt_time.Record(v);
  const std::string json = lather::ReportJson(run);
  REQUIRE(lather::ParseRunJson(json, &back).ok());
  CHECK(back.load.total.receipt_time == run.load.total.receipt_time);
  CHECK(lather::ReportJson(back) == json);
  // Answers read without a stamp are counted beside the figures and kept too.
  run.load.total.unstamped_answers = 3;
  const std::string with_unstamped = lather::ReportJson(run);
  CHECK(with_unstamped.find("\"unstamped_answers\": 3,") != std::string::npos);
  REQUIRE(lather::ParseRunJson(with_unstamped, &back).ok());
  CHECK(back.load.total.unstamped_answers == 3);
  CHECK(lather::ReportJson(back) == with_unstamped);
}

TEST_CASE("the JSON's histogram is sparse and exact, with the count, sum, min, max and overflow", "[stress][report][json]") {
  LatencyHistogram h;
  h.Record(7);
  h.RecordN(1'000'000, 5);
  h.Record(61'000'000'000);  // above the largest value: clamped and counted as overflow
  const Poco::JSON::Object json = lather::HistogramJson(h);
  CHECK(json.get("buckets").extract<Poco::JSON::Array>().size() == 3);
  CHECK(json.getValue<uint64_t>("overflow") == 1);
  LatencyHistogram back;
  REQUIRE(lather::HistogramFromJson(json, &back).ok());
  CHECK(back == h);
  CHECK(back.sum() == h.sum());
}

TEST_CASE("a histogram whose parts disagree is refused, saying why", "[stress][report][json]") {
  LatencyHistogram h;
  std::string error;
  CHECK_FALSE(LatencyHistogram::FromBuckets({{1000, 2}}, 3, 3000, 1000, 1003, 0, &h, &error));
  CHECK(error.find("hold 2 values, the count says 3") != std::string::npos);
  CHECK_FALSE(LatencyHistogram::FromBuckets({{1001, 1}}, 1, 1001, 1001, 1001, 0, &h, &error));
  CHECK(error.find("not the lowest value of a bucket") != std::string::npos);
  CHECK_FALSE(LatencyHistogram::FromBuckets({{2000, 1}, {1000, 1}}, 2, 3000, 1000, 2000, 0, &h, &error));
  CHECK(error.find("out of order") != std::string::npos);
  CHECK_FALSE(LatencyHistogram::FromBuckets({{1000, 1}}, 1, 1000, 5000, 5000, 0, &h, &error));
  CHECK(error.find("outside the buckets") != std::string::npos);
  CHECK(h.count() == 0);
}

TEST_CASE("a run of an older schema, or no run at all, is refused in one line", "[stress][report][json]") {
  RunReport r;
  lather::Status s = lather::ParseRunJson(R"({"schema": "lather-stress/1", "settings": {}})", &r);
  CHECK(s.message().find("schema lather-stress/1") != std::string::npos);
  CHECK(s.message().find("run it again") != std::string::npos);
  CHECK(lather::ParseRunJson("[1, 2]", &r).message().find("not a lather-stress run") != std::string::npos);
  CHECK(lather::ParseRunJson("{", &r).message().find("not a JSON object") != std::string::npos);
  // A document with a field removed names the field.
  const std::string json = lather::ReportJson(lather_test::SyntheticRun(lather_test::Latencies(2, 100), "h", kStart));
  Poco::JSON::Parser parser;
  Poco::JSON::Object::Ptr root = parser.parse(json).extract<Poco::JSON::Object::Ptr>();
  root->getObject("latency")->remove("histogram");
  std::ostringstream os;
  root->stringify(os);
  s = lather::ParseRunJson(os.str(), &r);
  CHECK(s.message() == "no 'latency.histogram'");
}

TEST_CASE("each second's length and calls/s are in the JSON and read back, and a second of 0.1 s has no calls/s",
          "[stress][report][json][series]") {
  RunReport run = lather_test::SyntheticRun(lather_test::Latencies(7, 2000), "host", kStart);
  lather_test::SteadySeries(3.1, 1000, &run);
  run.load.total.seconds[2].calls_ok = 500;  // a slow second: its rate is not smoothed away
  const std::string json = lather::ReportJson(run);
  Poco::JSON::Parser parser;
  const Poco::JSON::Array::Ptr seconds =
      parser.parse(json).extract<Poco::JSON::Object::Ptr>()->getObject("series")->getArray("seconds");
  REQUIRE(seconds->size() == 4);
  CHECK(seconds->getObject(0)->getValue<double>("seconds") == 1);
  CHECK(seconds->getObject(0)->getValue<double>("calls_ok_per_second") == 1000);
  CHECK(seconds->getObject(2)->getValue<double>("calls_ok_per_second") == 500);
  CHECK(seconds->getObject(3)->getValue<double>("seconds") == Approx(0.1));
  CHECK_FALSE(seconds->getObject(3)->has("calls_ok_per_second"));

  RunReport back;
  REQUIRE(lather::ParseRunJson(json, &back).ok());
  REQUIRE(back.load.total.seconds.size() == 4);
  for (size_t i = 0; i < 4; ++i) CHECK(back.load.total.seconds[i].seconds == run.load.total.seconds[i].seconds);
}

TEST_CASE("a saved run whose seconds carry no length gets the lengths its window gives", "[stress][report][json][series]") {
  RunReport run = lather_test::SyntheticRun(lather_test::Latencies(8, 2000), "host", kStart);
  lather_test::SteadySeries(2.3, 1000, &run);
  Poco::JSON::Parser parser;
  const Poco::JSON::Object::Ptr root = parser.parse(lather::ReportJson(run)).extract<Poco::JSON::Object::Ptr>();
  const Poco::JSON::Array::Ptr seconds = root->getObject("series")->getArray("seconds");
  for (size_t i = 0; i < seconds->size(); ++i) {
    seconds->getObject(static_cast<unsigned>(i))->remove("seconds");
    seconds->getObject(static_cast<unsigned>(i))->remove("calls_ok_per_second");
  }
  std::ostringstream old;
  root->stringify(old);
  RunReport back;
  REQUIRE(lather::ParseRunJson(old.str(), &back).ok());
  REQUIRE(back.load.total.seconds.size() == 3);
  CHECK(back.load.total.seconds[0].seconds == 1);
  CHECK(back.load.total.seconds[2].seconds == Approx(0.3));
}
