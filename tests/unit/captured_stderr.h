// CapturedStderr: file descriptor 2 (where LogLine writes) sent into a temporary file for the object's life, so
// that a test can read what the code under test logged. One at a time; not for tests that run threads that log
// after it is gone.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>

namespace lather::test {

class CapturedStderr {
 public:
  CapturedStderr() : file_(std::tmpfile()) {
    std::fflush(stderr);
    saved_ = dup(STDERR_FILENO);
    if (file_ != nullptr) dup2(fileno(file_), STDERR_FILENO);
  }
  ~CapturedStderr() {
    Restore();
    if (file_ != nullptr) std::fclose(file_);
  }
  CapturedStderr(const CapturedStderr&) = delete;
  CapturedStderr& operator=(const CapturedStderr&) = delete;

  // Everything written to stderr since the capture began (stderr goes back to where it was).
  std::string Text() {
    Restore();
    if (file_ == nullptr) return "";
    std::string text;
    std::rewind(file_);
    char chunk[4096];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, file_)) > 0) text.append(chunk, n);
    return text;
  }

 private:
  void Restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    saved_ = -1;
  }

  std::FILE* file_;
  int saved_ = -1;
};

}  // namespace lather::test
