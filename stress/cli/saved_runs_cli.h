// SavedRunsMain: lather-stress's commands over saved runs (--json files of schema lather-stress/2):
//   lather-stress report RUN.json ... [--html FILE] [--hgrm FILE]   the text report of each, one HTML page
//   lather-stress merge A.json B.json ... [--json OUT] [--html OUT] [--hgrm OUT]
//                                        runs from several load hosts merged into one, with a combined verdict
// Exit codes: 0 success, 64 bad usage or a run that cannot be read or merged (one line on stderr).
#pragma once

#include <string>

namespace lather {

// True when `word` (argv[1]) names one of these commands.
bool IsSavedRunsCommand(const std::string& word);

// Runs the command in argv[0] ("report" or "merge") with its arguments argv[1..argc-1].
int SavedRunsMain(int argc, char** argv);

}  // namespace lather
