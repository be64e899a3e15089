// PostgresServer: a real PostgreSQL 15 (Debian's) started by a test in a temporary directory on a free
// loopback port, with trust authentication for the user "lather", and removed at the end. As root it
// runs as the "postgres" user (initdb refuses root). Stop() and Start() stage an outage. Throws
// std::runtime_error if it cannot start. Not thread-safe; one per test.
#pragma once

#include <chrono>
#include <string>

namespace lather::test {

class PostgresServer {
 public:
  PostgresServer();
  ~PostgresServer();  // stops the server and removes its directory
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // The store URI for lather-service: postgresql://lather@127.0.0.1:PORT/postgres
  std::string uri() const;
  int port() const { return port_; }

  // Stops the server (fast shutdown: connections are cut) and starts it again on the same port.
  void Stop();
  void Start();

  // How many client connections over TCP the server has now (lather-service's; the fixture's own
  // query comes over the Unix socket and is not counted). Throws if the server cannot be asked.
  int TcpClients() const;
  // Waits (at most `limit`) until the server has no TCP client left: the backends of a killed client
  // have seen the connection end, and committed or rolled back what it had sent. False on timeout.
  bool WaitForNoTcpClients(std::chrono::milliseconds limit) const;

 private:
  std::string Run(const std::string& command) const;  // as the server's user; throws on failure

  std::string dir_;
  std::string bin_ = "/usr/lib/postgresql/15/bin";
  int port_ = 0;
  bool as_postgres_ = false;
  bool running_ = false;
};

}  // namespace lather::test
