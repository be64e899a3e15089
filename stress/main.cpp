// lather-stress: drives a SOAP endpoint and says how many calls/s it sustains, at what latency,
// with what bandwidth and CPU, and which of those is the limit (see stress/cli/stress_cli.h).
#include "LatherSoap.nsmap"
#include "stress/cli/stress_cli.h"

int main(int argc, char** argv) { return lather::StressMain(argc, argv); }
