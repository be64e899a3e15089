#!/usr/bin/python3
"""A second, independent implementation of the Lather contract, written with Python Spyne.

Usage: /usr/bin/python3 tests/interop/spyne_server.py [--port N] [--port-file FILE] [--verbose]

Run it with Debian's /usr/bin/python3 (apt-get install python3-spyne), not a pyenv/virtualenv python.

It implements the part of wsdl/lather.wsdl that matters to the CLI tools, with the same wire format:
target namespace urn:lather:v1, document/literal wrapped, elementFormDefault="qualified", SOAP 1.1.

  Increment(value: xsd:int)   -> IncrementResponse/result: xsd:int = value + 1
                                 (value = 2147483647 is a soap:Client fault)
  HelloWorld()                -> HelloWorldResponse/result: xsd:string = "Hello World"
  IncCounter(name: CounterName) -> IncCounterResponse/result: xsd:long, the new value (in memory, from 0)
  GetCounter(name: xsd:string)  -> GetCounterResponse/result: xsd:long, 0 for an unknown name

EchoDataSamples and SOAP 1.2 are not implemented. Spyne's WsgiApplication answers POSTs on any path,
so http://127.0.0.1:PORT/soap works like the real service; GET ...?wsdl returns Spyne's WSDL.

The HTTP server is wsgiref's WSGIServer with socketserver.ThreadingMixIn (a thread per connection).
wsgiref speaks HTTP/1.0: it answers every request with "HTTP/1.0 ..." and closes the connection
after the response, so keep-alive clients must reconnect for every call.

The server binds 127.0.0.1:N (N = 0 picks a free port), writes the bound port to --port-file once it
is listening, and exits with status 0 on SIGTERM or SIGINT.
"""

import argparse
import logging
import os
import signal
import socketserver
import sys
import threading
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from spyne import Application, Fault, Integer32, Integer64, ServiceBase, Unicode, rpc
from spyne.protocol.soap import Soap11
from spyne.server.wsgi import WsgiApplication

TNS = "urn:lather:v1"
INT32_MAX = 2147483647

# Every element of the contract is mandatory and not nillable (minOccurs=1, no nillable="true").
_REQUIRED = dict(min_occurs=1, nillable=False)
Int = Integer32.customize(**_REQUIRED)                               # xsd:int
Long = Integer64.customize(**_REQUIRED)                              # xsd:long
String = Unicode.customize(**_REQUIRED)                              # xsd:string
CounterName = Unicode.customize(min_len=1, max_len=64, **_REQUIRED)  # tns:CounterName

_counters = {}
_counters_lock = threading.Lock()


class LatherService(ServiceBase):
    """Spyne names the request wrapper after the method and the response wrapper "<method>Response";
    _in_variable_names / _out_variable_name give the children the contract's names."""

    @rpc(Int, _returns=Int, _body_style="wrapped", _operation_name="Increment",
         _in_message_name="Increment", _out_message_name="IncrementResponse",
         _in_variable_names={"value_": "value"}, _out_variable_name="result")
    def Increment(ctx, value_):
        if value_ == INT32_MAX:
            raise Fault(faultcode="Client", faultstring="value + 1 overflows xsd:int")
        return value_ + 1

    @rpc(_returns=String, _body_style="wrapped", _operation_name="HelloWorld",
         _in_message_name="HelloWorld", _out_message_name="HelloWorldResponse",
         _out_variable_name="result")
    def HelloWorld(ctx):
        return "Hello World"

    @rpc(CounterName, _returns=Long, _body_style="wrapped", _operation_name="IncCounter",
         _in_message_name="IncCounter", _out_message_name="IncCounterResponse",
         _out_variable_name="result")
    def IncCounter(ctx, name):
        with _counters_lock:
            _counters[name] = _counters.get(name, 0) + 1
            return _counters[name]

    @rpc(String, _returns=Long, _body_style="wrapped", _operation_name="GetCounter",
         _in_message_name="GetCounter", _out_message_name="GetCounterResponse",
         _out_variable_name="result")
    def GetCounter(ctx, name):
        with _counters_lock:
            return _counters.get(name, 0)


def make_app():
    application = Application(
        [LatherService], tns=TNS, name="Lather",
        in_protocol=Soap11(validator="lxml"),
        out_protocol=Soap11())
    return WsgiApplication(application)


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True        # do not let a stuck connection block shutdown
    allow_reuse_address = True
    request_queue_size = 128


class QuietHandler(WSGIRequestHandler):
    verbose = False

    def log_message(self, format, *args):  # noqa: A002 - BaseHTTPRequestHandler's signature
        if self.verbose:
            super().log_message(format, *args)


def write_port_file(path, port):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(f"{port}\n")
    os.replace(tmp, path)  # readers never see a partial file


def main(argv):
    parser = argparse.ArgumentParser(description="Lather contract served by Python Spyne (SOAP 1.1).")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0 = a free port)")
    parser.add_argument("--port-file", help="write the bound port here once listening")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args(argv)

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    if not args.verbose:
        # Spyne logs every fault it returns at ERROR with a traceback; expected faults are not errors here.
        logging.getLogger("spyne").setLevel(logging.CRITICAL)
    QuietHandler.verbose = args.verbose

    httpd = ThreadingWSGIServer(("127.0.0.1", args.port), QuietHandler)
    httpd.set_app(make_app())
    port = httpd.server_address[1]
    stopped_by = []

    def on_signal(signum, frame):
        # Do not raise from the handler: the signal may arrive while socketserver is inside a
        # try/except that would swallow the exception. shutdown() blocks until serve_forever()
        # returns, so it must run on another thread than serve_forever().
        stopped_by.append(signum)
        threading.Thread(target=httpd.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if args.port_file:
        write_port_file(args.port_file, port)
    print(f"spyne_server: listening on http://127.0.0.1:{port}/soap", file=sys.stderr, flush=True)
    try:
        httpd.serve_forever(poll_interval=0.2)
    finally:
        httpd.server_close()  # daemon threads still serving a connection end with the process
    print(f"spyne_server: stopped by signal {stopped_by[0] if stopped_by else '?'}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
