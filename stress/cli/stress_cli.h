// StressMain: lather-stress's command line: flags -> StressOptions -> run -> report -> exit code.
// Exit codes: 0 success, 1 a --max-*/--min-* threshold failed, 2 every call failed,
// 3 cannot connect to the target, 64 bad usage.
#pragma once

namespace lather {

int StressMain(int argc, char** argv);

}  // namespace lather
