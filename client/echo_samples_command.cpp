#include "client/echo_samples_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

#include "client/data_sample.h"

namespace lather {
namespace {

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n == 0 ? 0 : n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}


// Writes the body of the HTTP request in `wire` (after the blank line) to `path`.
Status WriteBody(const std::string& wire, const std::string& path) {
  const size_t head_end = wire.find("\r\n\r\n");
  const size_t start = head_end == std::string::npos ? 0 : head_end + 4;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(wire.data() + start, static_cast<std::streamsize>(wire.size() - start));
  out.close();
  if (!out) return Status::IOError("cannot write " + path);
  return Status::Ok();
}

}  // namespace

void AddEchoSamplesFlags(FlagParser* flags, EchoSamplesFlags* out) {
  flags->AddInt("count", 'n', "N", "echo-samples: number of top-level samples (default 100)", 0, 10000000, &out->count);
  flags->AddInt("depth", 0, "D", "echo-samples: levels of nested children, two per level in every 50th sample (default 1, at most 20)",
                0, 20, &out->depth);
  flags->AddInt("seed", 0, "S", "echo-samples: generator seed (default 1)", 0, INT64_MAX, &out->seed);
  flags->AddInt("repeat", 0, "R", "echo-samples: round trips of the same samples, medians reported (default 1)", 1,
                1000, &out->repeat);
  flags->AddInt("shared", 0, "K",
                "echo-samples: K samples also appear as a child of another sample (an id/ref graph; default 0)", 0,
                INT64_MAX, &out->shared);
  flags->AddInt("cycles", 0, "K",
                "echo-samples: K samples are referred back to by a child of theirs, or by themselves (an id/ref "
                "graph; default 0)", 0, INT64_MAX, &out->cycles);
  flags->AddString("dump-request", 0, "FILE", "echo-samples: write the request's XML body (exact bytes) to FILE",
                   &out->dump_request);
}

Status RunEchoSamples(Client* client, const EchoSamplesFlags& flags) {
  SampleShape shape;
  shape.count = static_cast<size_t>(flags.count);
  shape.depth = static_cast<int>(flags.depth);
  shape.seed = static_cast<uint64_t>(flags.seed);
  shape.shared = static_cast<size_t>(flags.shared);
  shape.cycles = static_cast<size_t>(flags.cycles);
  const SampleSet samples = GenerateSamples(shape);
  SampleSet echoed;
  std::vector<double> totals, serialize, wait, parse;
  std::string wire;
  for (int64_t round = 0; round < flags.repeat; ++round) {
    client->set_send_copy(round == 0 && !flags.dump_request.empty() ? &wire : nullptr);
    const auto start = std::chrono::steady_clock::now();
    Status s = client->EchoDataSamples(samples, &echoed);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    client->set_send_copy(nullptr);
    if (!s.ok()) return s;
    if (round == 0 && !flags.dump_request.empty()) {
      if (Status w = WriteBody(wire, flags.dump_request); !w.ok()) return w;
    }
    // Verified every round, outside the timed call.
    const std::string difference = FirstDifference(samples, echoed);
    if (!difference.empty()) return Status::Internal("echo differs: " + difference);
    const CallTimes t = client->last_times();
    totals.push_back(seconds * 1e3);
    serialize.push_back(t.serialize_seconds * 1e3);
    wait.push_back(t.wait_seconds * 1e3);
    parse.push_back(t.parse_seconds * 1e3);
    if (flags.repeat > 1) {
      std::printf("  round %lld: %.3f ms (serialize %.3f, server round trip %.3f, parse %.3f)\n",
                  static_cast<long long>(round + 1), totals.back(), serialize.back(), wait.back(), parse.back());
    }
  }
  std::printf("echoed %zu samples: equal (%zu with the nested ones%s); %llu bytes sent, %llu bytes received\n",
              samples.samples.size(), samples.owned(), samples.graph ? ", identity preserved" : "", static_cast<unsigned long long>(client->last_bytes_sent()),
              static_cast<unsigned long long>(client->last_bytes_received()));
  std::printf("%s %.3f ms: client serialize %.3f ms, server round trip %.3f ms, client parse %.3f ms\n",
              flags.repeat > 1 ? "median round trip" : "round trip", Median(totals), Median(serialize), Median(wait),
              Median(parse));
  return Status::Ok();
}

}  // namespace lather
