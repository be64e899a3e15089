// lather-xml-floor: the cost of touching an XML document at all, as a floor for bench/echo. Reads
// FILE (e.g. an EchoDataSamples request from `lather-call echo-samples --dump-request`), then
// ROUNDS times parses it with pugixml into a DOM and prints the DOM back to a string (raw, no
// indentation, as a SOAP stack writes), and prints the median wall time of each step and the median
// CPU time of both (the document's destruction included). Single-threaded.
#include <pugixml.hpp>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Appends pugixml's output to a string reserved once.
class StringWriter : public pugi::xml_writer {
 public:
  explicit StringWriter(std::string* out) : out_(out) {}
  void write(const void* data, size_t size) override { out_->append(static_cast<const char*>(data), size); }

 private:
  std::string* out_;
};

// This thread's CPU time in milliseconds (what the step cost, whatever else the core ran).
double ThreadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || std::string(argv[1]) == "--help") {
    std::fprintf(stderr, "usage: lather-xml-floor FILE [ROUNDS]  (pugixml parse + print of FILE, median of ROUNDS, default 5)\n");
    return argc == 2 ? 0 : 64;
  }
  const int rounds = argc == 3 ? std::atoi(argv[2]) : 5;
  if (rounds < 1 || rounds > 1000) {
    std::fprintf(stderr, "lather-xml-floor: ROUNDS must be 1..1000\n");
    return 64;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string xml = buffer.str();
  if (!in || xml.empty()) {
    std::fprintf(stderr, "lather-xml-floor: cannot read %s\n", argv[1]);
    return 1;
  }
  using Clock = std::chrono::steady_clock;
  std::vector<double> parse_ms, print_ms, cpu_ms;
  std::string printed;
  for (int r = 0; r < rounds; ++r) {
    const double cpu_start = ThreadCpuMs();
    auto doc_owner = std::make_unique<pugi::xml_document>();
    pugi::xml_document& doc = *doc_owner;
    const Clock::time_point start = Clock::now();
    const pugi::xml_parse_result result = doc.load_buffer(xml.data(), xml.size());  // copies, as a server must
    const Clock::time_point parsed = Clock::now();
    if (!result) {
      std::fprintf(stderr, "lather-xml-floor: %s: %s at offset %td\n", argv[1], result.description(), result.offset);
      return 1;
    }
    printed.clear();
    printed.reserve(xml.size() + xml.size() / 4);
    StringWriter writer(&printed);
    doc.save(writer, "", pugi::format_raw | pugi::format_no_declaration);
    const Clock::time_point done = Clock::now();
    doc_owner.reset();  // freeing is part of the cost, as for the service
    cpu_ms.push_back(ThreadCpuMs() - cpu_start);
    parse_ms.push_back(std::chrono::duration<double, std::milli>(parsed - start).count());
    print_ms.push_back(std::chrono::duration<double, std::milli>(done - parsed).count());
  }
  const double mb = static_cast<double>(xml.size()) / 1e6;
  const double parse = Median(parse_ms), print = Median(print_ms);
  std::printf("bytes %zu parse_ms %.3f print_ms %.3f floor_ms %.3f cpu_ms %.3f parse_MBps %.1f print_MBps %.1f "
              "printed_bytes %zu\n",
              xml.size(), parse, print, parse + print, Median(cpu_ms), mb / (parse / 1e3), mb / (print / 1e3),
              printed.size());
  return 0;
}
