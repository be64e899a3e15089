// HttpRequestParser: an incremental HTTP/1.1 request parser for the service's connections.
// It reads the request line and headers, frames the body (Content-Length or chunked) within
// HttpLimits, and rejects bad framing with the status the contract names (400, 411, 413, 414, 431, 501),
// and what RFC 9112 and RFC 9110 say a server must reject: an HTTP/1.1 request without exactly one Host
// header, a Host that is not host[:port], a NUL in a header value, Transfer-Encoding not ending in
// chunked (or in HTTP/1.0), the asterisk-form with a method other than OPTIONS; an expectation other
// than 100-continue is 417. Empty lines before the request line are skipped (RFC 9112 2.2).
// The caller keeps all unconsumed bytes in one buffer starting at the request (or, once it has dropped a
// chunked body's decoded bytes with Discard, at the first byte not decoded) and calls Parse() each time bytes
// arrive. One parser per connection; not thread-safe. Reused across requests so
// its strings keep their capacity (no allocation per request once warm).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "service/http/read_buffer.h"

namespace lather {

struct HttpLimits {
  size_t max_request_line = 8 * 1024;     // longer request line: 414
  size_t max_header_bytes = 16 * 1024;    // request line + headers; beyond: 431
  size_t max_header_count = 100;          // beyond: 431
  size_t max_body_bytes = 64 * 1024 * 1024;  // beyond: 413 (from Content-Length, before reading); 50,000 samples fit
};

// What the parser extracted from one request. Views point into the parser's own strings or into
// the caller's buffer; they are valid until the next Parse() or Reset().
struct HttpRequest {
  std::string_view method;
  std::string_view path;      // target without the query
  std::string_view query;     // after '?', without it; empty when none
  std::string_view content_type;
  std::string_view content_encoding;
  std::string_view soap_action;  // SOAPAction header, quotes removed
  std::string_view host;
  std::string_view forwarded_proto;  // X-Forwarded-Proto (its first value), set by a reverse proxy
  std::string_view authorization;    // the Authorization header, as sent
  std::string_view fault;            // X-Lather-Fault (fault injection for tests; honoured only if enabled)
  bool has_soap_action = false;
  bool keep_alive = true;     // HTTP/1.1 default, "Connection: close" or HTTP/1.0 turn it off
  bool http10 = false;        // an HTTP/1.0 request (keep-alive only if asked, and then announced)
  bool expect_continue = false;
  bool body_framed = false;   // Content-Length or chunked was given
  // Preconditions (RFC 9110 13.1): the If-Match and If-None-Match lists (several lines joined by ", ").
  bool has_if_match = false;
  bool has_if_none_match = false;
  std::string_view if_match;
  std::string_view if_none_match;
  std::string_view body;
};

// RFC 9112 2.2: how many bytes at the start of `buffer` are empty lines (CR and LF), which a server
// ignores before a request line. A connection whose unread bytes are only these is idle, not in a request.
size_t LeadingEmptyLineBytes(std::string_view buffer);

class HttpRequestParser {
 public:
  enum class Result { kNeedMore, kComplete, kError };

  explicit HttpRequestParser(const HttpLimits& limits) : limits_(limits) {}

  // Parses `buffer`, which holds every unconsumed byte, starting at the request's first byte.
  // kComplete: request() is filled and consumed() bytes (of `buffer`) belong to it. kError: error_status() and
  // error_reason() say why; the connection must answer and close. kNeedMore: call again with more.
  Result Parse(std::string_view buffer);

  const HttpRequest& request() const { return request_; }
  size_t consumed() const { return consumed_; }
  // True once the head is parsed (the body may still be arriving).
  bool head_complete() const { return state_ != State::kHead; }
  // Bytes of the whole request (head + body) once the head is parsed with a Content-Length; 0 otherwise.
  size_t expected_size() const { return state_ == State::kBody ? body_start_ + content_length_ : 0; }
  int error_status() const { return error_status_; }
  // The X-Forwarded-For header as far as the head was read (also after an error), "" if none: the
  // client addresses a reverse proxy saw, for the log only (a client can send anything here).
  std::string_view forwarded_for() const { return forwarded_for_; }
  const std::string& error_reason() const { return error_reason_; }

  // A chunked body being decoded: how many leading bytes of the buffer the parser is done with (the head, whose
  // fields it has copied, and the chunks it has decoded into its own buffer), which the caller may drop and
  // report with Discard(); 0 otherwise. Lets a connection keep only the undecoded rest of a large chunked body.
  size_t decoded_prefix() const { return in_chunked_body() ? pos_ : 0; }
  // True while a chunked body is being decoded (its head parsed, its last chunk and trailer not yet).
  bool in_chunked_body() const {
    return state_ == State::kChunkSize || state_ == State::kChunkData || state_ == State::kChunkDataEnd ||
           state_ == State::kTrailer;
  }
  // The caller dropped the first `n` bytes (n <= decoded_prefix()); the next Parse() gets the buffer without them.
  void Discard(size_t n) {
    pos_ -= n;
    discarded_ += n;
  }
  // Bytes of this request dropped with Discard() so far: with what the buffer holds, the request's raw size.
  size_t discarded() const { return discarded_; }

  // The decoded chunked body's memory when it is larger than the next request would reuse (null otherwise), for
  // the caller to free where it likes (an event loop frees tens of megabytes on its pool). Ends the request's
  // body view: call once the request is answered, before Reset() (which frees such memory itself).
  Bytes TakeLargeBody();

  // Prepares for the next request on the same connection.
  void Reset();

 private:
  enum class State { kHead, kBody, kChunkSize, kChunkData, kChunkDataEnd, kTrailer, kDone };

  Result Fail(int status, std::string reason);
  Result ParseHead(std::string_view head);
  Result ParseHeader(std::string_view line);
  // Sets chunked_ from the Transfer-Encoding lists read, or fails (400, or 501 for a coding we lack).
  Result FrameByTransferEncoding();
  Result ParseChunked(std::string_view buffer);

  const HttpLimits& limits_;
  State state_ = State::kHead;
  size_t scan_from_ = 0;    // where the search for the end of the head resumes
  size_t body_start_ = 0;
  size_t pos_ = 0;          // chunked: next unparsed byte
  size_t discarded_ = 0;    // chunked: bytes before the buffer's start, dropped by the caller (Discard)
  uint64_t content_length_ = 0;
  uint64_t chunk_left_ = 0;
  bool has_content_length_ = false;
  bool chunked_ = false;
  size_t header_count_ = 0;
  int host_count_ = 0;      // Host header lines seen
  struct TransferCodings {  // what the Transfer-Encoding lines named, in order
    bool seen = false;
    int chunked = 0;              // times "chunked" was named
    bool last_is_chunked = false;
    std::string other;            // the first other coding, if any
  };
  TransferCodings transfer_encoding_;
  size_t consumed_ = 0;
  int error_status_ = 0;
  std::string error_reason_;
  // Owned copies of the head fields (the caller's buffer may move while the body arrives).
  std::string method_, target_, content_type_, content_encoding_, soap_action_, host_, forwarded_proto_;
  std::string if_match_, if_none_match_;
  std::string authorization_, fault_;
  std::string forwarded_for_;
  // The decoded chunked body: grows by doubling, and from 4 MiB up in a mapping of its own that Reset() unmaps
  // (a std::string's steps stayed resident in malloc's arenas: 64 MiB of them under a hostile 64 MiB body).
  ReadBuffer chunked_body_;
  HttpRequest request_;
};

}  // namespace lather
