#include "common/flag_parser.h"

#include <cerrno>
#include <cstdlib>
#include <utility>

namespace lather {

Status ParseInt(const std::string& text, int64_t min, int64_t max, int64_t* out) {
  if (text.empty()) return Status::InvalidArgument("empty number");
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0' || end == text.c_str()) {
    return Status::InvalidArgument("'" + text + "' is not a whole number");
  }
  if (value < min || value > max) {
    return Status::InvalidArgument("'" + text + "' is out of range [" + std::to_string(min) + ", " +
                                   std::to_string(max) + "]");
  }
  *out = value;
  return Status::Ok();
}

FlagParser::FlagParser(std::string usage_line) : usage_line_(std::move(usage_line)) {}

void FlagParser::AddValue(std::string long_name, char short_name, std::string value_name,
                          std::string help, ValueParser parser) {
  flags_.push_back(Flag{std::move(long_name), short_name, std::move(value_name), std::move(help),
                        std::move(parser)});
}

void FlagParser::AddString(std::string long_name, char short_name, std::string value_name,
                           std::string help, std::string* target) {
  AddValue(std::move(long_name), short_name, std::move(value_name), std::move(help),
           [target](const std::string& text) {
             *target = text;
             return Status::Ok();
           });
}

void FlagParser::AddInt(std::string long_name, char short_name, std::string value_name,
                        std::string help, int64_t min, int64_t max, int64_t* target) {
  AddValue(std::move(long_name), short_name, std::move(value_name), std::move(help),
           [min, max, target](const std::string& text) { return ParseInt(text, min, max, target); });
}

void FlagParser::AddBool(std::string long_name, char short_name, std::string help, bool* target) {
  flags_.push_back(Flag{std::move(long_name), short_name, "", std::move(help),
                        [target](const std::string&) {
                          *target = true;
                          return Status::Ok();
                        }});
}

const FlagParser::Flag* FlagParser::Find(const std::string& long_name, char short_name) const {
  for (const Flag& flag : flags_) {
    if (!long_name.empty() ? flag.long_name == long_name : flag.short_name == short_name) return &flag;
  }
  return nullptr;
}

Status FlagParser::Parse(int argc, char** argv, std::vector<std::string>* positional) const {
  bool flags_ended = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (flags_ended || arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9')) {
      positional->push_back(arg);  // plain arguments, including negative numbers such as -1
      continue;
    }
    if (arg == "--") {
      flags_ended = true;
      continue;
    }
    std::string name;
    std::string value;
    bool has_value = false;
    const Flag* flag = nullptr;
    if (arg[1] == '-') {
      name = arg.substr(2);
      const size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name.resize(eq);
        has_value = true;
      }
      flag = Find(name, 0);
      name = "--" + name;
    } else {
      flag = Find("", arg[1]);
      name = arg.substr(0, 2);
      if (arg.size() > 2) {
        value = arg.substr(2);
        has_value = true;
      }
    }
    if (flag == nullptr) return Status::InvalidArgument("unknown flag " + name + " (see --help)");
    if (flag->value_name.empty()) {
      if (has_value) return Status::InvalidArgument(name + " takes no value");
    } else if (!has_value) {
      if (i + 1 >= argc) return Status::InvalidArgument(name + " needs a value (" + flag->value_name + ")");
      value = argv[++i];
    }
    Status s = flag->parser(value);
    if (!s.ok()) return Status::InvalidArgument(name + ": " + s.message());
  }
  return Status::Ok();
}

std::string FlagParser::Usage() const {
  std::string out = "usage: " + usage_line_ + "\n\nflags:\n";
  for (const Flag& flag : flags_) {
    std::string left = "  ";
    left += flag.short_name != 0 ? std::string("-") + flag.short_name + ", " : std::string("    ");
    left += "--" + flag.long_name;
    if (!flag.value_name.empty()) left += " " + flag.value_name;
    if (left.size() < 30) left.resize(30, ' ');
    out += left + " " + flag.help + "\n";
  }
  return out;
}

}  // namespace lather
