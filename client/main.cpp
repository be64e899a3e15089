// lather-call: calls one operation of a Lather (or any same-WSDL) service and prints the result.
#include <strings.h>

#include <cstdio>
#include <cstdlib>

#include "LatherSoap.nsmap"
#include "client/echo_samples_command.h"
#include "client/message_id.h"
#include "client/soap_client.h"
#include "client/wsdl_command.h"
#include "common/flag_parser.h"

namespace {

// Exit codes: 0 success, 1 wrong answer (echo mismatch), 2 SOAP fault, 3 connection error or
// timeout, 64 usage error.
constexpr int kExitMismatch = 1;
constexpr int kExitFault = 2;
constexpr int kExitConnection = 3;
constexpr int kExitUsage = 64;

constexpr char kCommands[] =
    "\ncommands:\n"
    "  increment N            prints N + 1\n"
    "  hello                  prints the greeting\n"
    "  inc-counter NAME       adds 1 to counter NAME, prints the new value (with --message-id: once per id)\n"
    "  get-counter NAME       prints counter NAME (0 if unknown)\n"
    "  echo-samples           sends --count generated samples, checks the echo field by field, prints\n"
    "                         bytes each way and client serialize / server round trip / client parse times\n"
    "\nany SOAP service from its WSDL (docs/wsdl.md):\n"
    "  --wsdl URL list                      every port's operations: PORT OP(field: type, ...) -> result\n"
    "  --wsdl URL OPERATION path=value ...  builds the request from the schema (a.b=1, items[2].sku=X,\n"
    "                                       amount.@currency=EUR, -f input.json), checks every value,\n"
    "                                       calls the port's address (--url overrides, --port picks)\n"
    "\nexit codes: 0 ok, 1 echo mismatch (or an answer that is not SOAP), 2 SOAP fault, 3 connection error\n"
    "or timeout, 4 the WSDL cannot be used, 64 usage or a value the schema refuses (nothing sent)\n";

int Usage(const std::string& message) {
  std::fprintf(stderr, "lather-call: %s\n", message.c_str());
  return kExitUsage;
}

int Report(const lather::Status& status) {
  if (status.kind() == lather::Status::Kind::kFault) {
    std::printf("fault: %s: %s\n", status.fault_code().c_str(), status.message().c_str());
    return kExitFault;
  }
  std::fprintf(stderr, "lather-call: %s\n", status.ToString().c_str());
  return status.kind() == lather::Status::Kind::kIOError || status.kind() == lather::Status::Kind::kTimeout
             ? kExitConnection
             : kExitMismatch;
}

}  // namespace

int main(int argc, char** argv) {
  lather::ClientOptions options;
  lather::EchoSamplesFlags echo;
  bool help = false;
  int64_t timeout = options.timeout_seconds;
  lather::FlagParser flags("lather-call [flags] COMMAND [ARG]");
  lather::WsdlCallOptions wsdl;
  flags.AddValue("url", 'u', "URL", "service endpoint (default http://127.0.0.1:8080/soap; with --wsdl: the port's address)",
                 [&](const std::string& text) {
                   options.url = wsdl.endpoint = text;
                   return lather::Status::Ok();
                 });
  flags.AddString("wsdl", 0, "URL", "read the service from this WSDL (http://, https:// or a file): list, or call an "
                  "OPERATION with path=value fields", &wsdl.wsdl_url);
  flags.AddString("port", 0, "NAME", "with --wsdl: the port to call (default: the first SOAP 1.1 port)", &wsdl.port);
  flags.AddString("file", 'f', "FILE.json", "with --wsdl: the operation's whole input as a JSON object", &wsdl.input_file);
  flags.AddBool("json", 0, "with --wsdl: print the list or the answer as JSON", &wsdl.json);
  flags.AddString("cacert", 0, "FILE", "https: also trust the CA certificates in FILE (PEM) besides the system store",
                  &options.ca_file);
  flags.AddBool("insecure", 'k', "https: do not check the server's certificate (chain and host name)", &options.insecure);
  flags.AddBool("soap12", 0, "send SOAP 1.2 (application/soap+xml) instead of SOAP 1.1", &options.soap12);
  flags.AddInt("timeout", 0, "SECONDS", "connect/send/receive timeout (default 30)", 1, 3600, &timeout);
  lather::AddEchoSamplesFlags(&flags, &echo);
  flags.AddString("user", 0, "NAME", "send credentials as user NAME (HTTP Basic unless --wsse)", &options.user);
  flags.AddString("password", 0, "PW",
                  "the password for --user (default: the environment variable LATHER_PASSWORD, which keeps it "
                  "off the command line)", &options.password);
  flags.AddBool("wsse", 0, "send --user/--password as a WS-Security UsernameToken (PasswordText) in the SOAP "
                "Header instead of HTTP Basic", &options.wsse);
  std::string message_id;
  flags.AddString("message-id", 0, "ID|auto",
                  "inc-counter: send this wsa:MessageID; a repeat of the id is counted once and answers the first "
                  "value. auto: a new urn:uuid, printed on stderr for a retry", &message_id);
  flags.AddBool("help", 'h', "print this help", &help);
  std::vector<std::string> args;
  lather::Status s = flags.Parse(argc, argv, &args);
  if (help) {
    std::printf("%s%s", flags.Usage().c_str(), kCommands);
    return 0;
  }
  if (!s.ok()) return Usage(s.message());
  if (args.empty()) return Usage("no command given (see --help)");
  if (!wsdl.wsdl_url.empty()) {
    wsdl.fetch.timeout_seconds = static_cast<int>(timeout);
    wsdl.fetch.ca_file = options.ca_file;
    wsdl.fetch.insecure = options.insecure;
    return lather::RunWsdlCommand(wsdl, args);
  }
  if (!wsdl.port.empty() || !wsdl.input_file.empty() || wsdl.json) return Usage("--port, -f and --json go with --wsdl");
  if (!options.user.empty() && options.password.empty()) {
    const char* env = std::getenv("LATHER_PASSWORD");
    if (env == nullptr) return Usage("--user needs --password or the environment variable LATHER_PASSWORD");
    options.password = env;
  }
  if (options.user.empty() && (options.wsse || !options.password.empty())) {
    return Usage("--password and --wsse need --user");
  }
  options.timeout_seconds = static_cast<int>(timeout);
  {  // gSOAP would try any scheme as a host name ("Name or service not known"): name the problem instead.
    const std::string& url = options.url;
    const size_t colon = url.find("://");
    const std::string scheme = colon == std::string::npos ? "" : url.substr(0, colon);
    if (scheme.empty()) return Usage("--url " + url + ": give an http:// or https:// URL");
    if (strcasecmp(scheme.c_str(), "http") != 0 && strcasecmp(scheme.c_str(), "https") != 0) {
      return Usage("--url " + url + ": the scheme " + scheme + " is not supported (use http:// or https://)");
    }
  }

  const std::string& command = args[0];
  const size_t want_args = (command == "increment" || command == "inc-counter" || command == "get-counter") ? 2 : 1;
  if (command != "increment" && command != "hello" && command != "inc-counter" && command != "get-counter" &&
      command != "echo-samples") {
    return Usage("unknown command '" + command + "' (see --help)");
  }
  if (args.size() != want_args) {
    return Usage(command + (want_args == 2 ? " takes one argument" : " takes no argument"));
  }
  if (!message_id.empty() && command != "inc-counter") return Usage("--message-id applies to inc-counter only");
  if (message_id == "auto") {
    message_id = lather::NewMessageId();
    std::fprintf(stderr, "message id: %s\n", message_id.c_str());
  }

  lather::Client client(options);
  if (!client.setup_status().ok()) return Usage(client.setup_status().message());
  if (command == "increment") {
    int64_t value = 0;
    s = lather::ParseInt(args[1], INT32_MIN, INT32_MAX, &value);
    if (!s.ok()) return Usage("increment: " + s.message());
    int32_t result = 0;
    s = client.Increment(static_cast<int32_t>(value), &result);
    if (s.ok()) std::printf("%d\n", result);
  } else if (command == "hello") {
    std::string greeting;
    s = client.HelloWorld(&greeting);
    if (s.ok()) std::printf("%s\n", greeting.c_str());
  } else if (command == "inc-counter" || command == "get-counter") {
    int64_t value = 0;
    s = command == "inc-counter" ? client.IncCounter(args[1], message_id, &value) : client.GetCounter(args[1], &value);
    if (s.ok()) std::printf("%lld\n", static_cast<long long>(value));
  } else {
    s = lather::RunEchoSamples(&client, echo);
  }
  return s.ok() ? 0 : Report(s);
}
