// HttpResponseReader: frames one HTTP/1.1 response at the start of a client's receive buffer
// (status line, headers, a Content-Length, chunked or close-delimited body). Used by the load
// engine for every response; no allocation except when de-chunking. Not thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lather {

struct HttpResponseView {
  int status = 0;
  size_t head_bytes = 0;    // status line + headers + blank line
  size_t total_bytes = 0;   // everything the response occupied in the buffer
  bool close = false;       // the server said Connection: close (or HTTP/1.0 without keep-alive)
  char* body = nullptr;     // points into the buffer (or into the reader's de-chunked copy)
  size_t body_size = 0;
};

class HttpResponseReader {
 public:
  enum class Result { kNeedMore, kComplete, kError };

  // Looks at `buffer[0, size)`. kComplete fills *response (valid until the buffer changes or the
  // next call). `eof` says the peer closed: a close-delimited body is then complete.
  Result Read(char* buffer, size_t size, bool eof, HttpResponseView* response);

 private:
  std::string dechunked_;
};

}  // namespace lather
