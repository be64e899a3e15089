// FlagParser: turns argv into typed option values for the CLI mains (GNU style: --name value,
// --name=value, -n value, -nvalue; "--" ends the flags). Not thread-safe; use from main().
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"

namespace lather {

class FlagParser {
 public:
  // Parses a flag's value text; returns InvalidArgument saying what is wrong with it.
  using ValueParser = std::function<Status(const std::string& text)>;

  // `usage_line` is printed first by Usage(), e.g. "lather-call [flags] COMMAND [ARGS]".
  explicit FlagParser(std::string usage_line);

  // A flag that takes a value. `short_name` may be 0. `value_name` appears in the help (e.g. "URL").
  void AddValue(std::string long_name, char short_name, std::string value_name, std::string help,
                ValueParser parser);
  // Convenience forms of AddValue.
  void AddString(std::string long_name, char short_name, std::string value_name, std::string help,
                 std::string* target);
  void AddInt(std::string long_name, char short_name, std::string value_name, std::string help,
              int64_t min, int64_t max, int64_t* target);
  // A flag without a value; sets *target to true when present.
  void AddBool(std::string long_name, char short_name, std::string help, bool* target);

  // Parses argv[1..]. Arguments that are not flags go to *positional in order. Returns
  // InvalidArgument naming the unknown flag, the missing value or the bad value.
  Status Parse(int argc, char** argv, std::vector<std::string>* positional) const;

  // The usage line and one line per flag.
  std::string Usage() const;

 private:
  struct Flag {
    std::string long_name;
    char short_name = 0;
    std::string value_name;  // empty for a boolean flag
    std::string help;
    ValueParser parser;
  };
  const Flag* Find(const std::string& long_name, char short_name) const;

  std::string usage_line_;
  std::vector<Flag> flags_;
};

// Parses a whole decimal integer in [min, max]; InvalidArgument otherwise.
Status ParseInt(const std::string& text, int64_t min, int64_t max, int64_t* out);

}  // namespace lather
