// A fresh folder under the system's temp folder for one test's database (and SQLite's -wal and -shm files
// beside it), removed with everything in it when the test ends. One per test; not shared between threads.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace lather::test {

struct TempDir {
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("lather-store-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // The SQLite store's URI of a database in this folder.
  std::string SqliteUri() const { return "sqlite:" + (path / "c.db").string(); }

  std::filesystem::path path;
  static inline int counter = 0;
};

}  // namespace lather::test
