// lather-call's echo-samples subcommand: generates DataSamples, sends them through EchoDataSamples,
// verifies the echo field by field and prints the sizes and where the time went. Kept apart from
// main.cpp so the command's flags and report live in one place. Use from main() only.
#pragma once

#include <cstdint>
#include <string>

#include "client/soap_client.h"
#include "common/flag_parser.h"

namespace lather {

struct EchoSamplesFlags {
  int64_t count = 100;       // top-level samples
  int64_t depth = 1;         // levels of nested children (every 50th sample has two per level)
  int64_t seed = 1;          // generator seed
  int64_t shared = 0;        // samples that also appear as a child of another (id/ref graph)
  int64_t cycles = 0;        // samples a child of theirs refers back to (id/ref graph)
  int64_t repeat = 1;        // round trips of the same samples on one connection (median reported)
  std::string dump_request;  // if set, the first request's HTTP body is written to this file
};

// Registers --count, --depth, --seed, --shared, --cycles, --repeat and --dump-request on `flags`, writing to *out.
void AddEchoSamplesFlags(FlagParser* flags, EchoSamplesFlags* out);

// Runs the command against `client` and prints one report line per round trip plus a summary.
// Returns ok, the call's error (fault, I/O, timeout), Internal("echo differs: ...") on a mismatch,
// or IOError when the dump file cannot be written.
Status RunEchoSamples(Client* client, const EchoSamplesFlags& flags);

}  // namespace lather
