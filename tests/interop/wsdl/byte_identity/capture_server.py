#!/usr/bin/python3
"""A capturing HTTP/1.1 server for the byte-identity check of tests/interop/wsdl (foreign_wsdl.py).

Usage: /usr/bin/python3 capture_server.py WSDL_TEMPLATE CAPTURE_DIR

It binds 127.0.0.1 on a free port and prints "listening PORT" once it accepts connections.
  GET  /soap?wsdl  WSDL_TEMPLATE (wsdl/lather.wsdl) with every soap:address / soap12:address location
                   replaced by http://127.0.0.1:PORT/soap
  POST (any path)  the raw request, head and body exactly as received, goes to CAPTURE_DIR/post-NNNN.bin
                   (NNNN = arrival order over all connections, from 0001); the answer is computed from it:
                   Increment(value) -> IncrementResponse/result = value + 1, HelloWorld -> "Hello World",
                   in the request's SOAP version (1.1: text/xml, 1.2: application/soap+xml); anything
                   else -> a Client/Sender fault (HTTP 500).
Every POST also appends "PATH CONTENT-TYPE | SOAPACTION" to $LATHER_WSDL_LOG (like the other services).
A thread per connection; HTTP/1.1 keep-alive until the client closes, sends "Connection: close", or is
idle for IDLE_TIMEOUT_S. Heads over MAX_HEAD bytes or bodies over MAX_BODY bytes close the connection.
"""

import os
import re
import socket
import socketserver
import sys
import threading
import xml.etree.ElementTree as ET

IDLE_TIMEOUT_S = 30
MAX_HEAD = 64 * 1024
MAX_BODY = 16 * 1024 * 1024
MAX_REQUESTS_PER_CONNECTION = 100000
SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP12 = "http://www.w3.org/2003/05/soap-envelope"
TNS = "urn:lather:v1"

_lock = threading.Lock()
_count = [0]


def local(tag):
    return tag.rsplit("}", 1)[-1]


def envelope(ns, body):
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<soap:Envelope xmlns:soap="{ns}"><soap:Body>{body}'
            f'</soap:Body></soap:Envelope>').encode()


def fault(ns, text):
    if ns == SOAP12:
        return envelope(ns, f"<soap:Fault><soap:Code><soap:Value>soap:Sender</soap:Value></soap:Code>"
                            f"<soap:Reason><soap:Text xml:lang=\"en\">{text}</soap:Text></soap:Reason></soap:Fault>")
    return envelope(ns, f"<soap:Fault><faultcode>soap:Client</faultcode><faultstring>{text}</faultstring>"
                        f"</soap:Fault>")


def answer(body):
    """(status, SOAP namespace, response envelope bytes) for a request body."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError as e:
        return 500, SOAP11, fault(SOAP11, f"not XML: {e}")
    ns = root.tag[1:].split("}")[0] if root.tag.startswith("{") else ""
    if ns not in (SOAP11, SOAP12) or local(root.tag) != "Envelope":
        return 500, SOAP11, fault(SOAP11, "not a SOAP envelope")
    soap_body = root.find(f"{{{ns}}}Body")
    op = soap_body[0] if soap_body is not None and len(soap_body) else None
    if op is None:
        return 500, ns, fault(ns, "empty Body")
    if op.tag == f"{{{TNS}}}Increment":
        value = op.find(f"{{{TNS}}}value")
        try:
            n = int(value.text.strip())
        except (AttributeError, ValueError):
            return 500, ns, fault(ns, "Increment without an integer value")
        return 200, ns, envelope(ns, f'<l:IncrementResponse xmlns:l="{TNS}"><l:result>{n + 1}</l:result>'
                                     f'</l:IncrementResponse>')
    if op.tag == f"{{{TNS}}}HelloWorld":
        return 200, ns, envelope(ns, f'<l:HelloWorldResponse xmlns:l="{TNS}"><l:result>Hello World</l:result>'
                                     f'</l:HelloWorldResponse>')
    return 500, ns, fault(ns, f"unknown operation {op.tag}")


class Handler(socketserver.BaseRequestHandler):
    def setup(self):
        self.request.settimeout(IDLE_TIMEOUT_S)
        self.buf = b""

    def read_head(self):
        while b"\r\n\r\n" not in self.buf:
            if len(self.buf) > MAX_HEAD:
                return None
            chunk = self.request.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        return head + b"\r\n\r\n"

    def read_body(self, length):
        while len(self.buf) < length:
            chunk = self.request.recv(min(65536, length - len(self.buf)))
            if not chunk:
                return None
            self.buf += chunk
        body, self.buf = self.buf[:length], self.buf[length:]
        return body

    def send(self, status, content_type, body, close):
        reason = {200: "OK", 404: "Not Found", 500: "Internal Server Error", 400: "Bad Request"}[status]
        head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
                + ("Connection: close\r\n" if close else "") + "\r\n")
        self.request.sendall(head.encode() + body)

    def handle(self):
        try:
            for _ in range(MAX_REQUESTS_PER_CONNECTION):
                if not self.one():
                    return
        except (OSError, socket.timeout):
            return

    def one(self):
        head = self.read_head()
        if head is None:
            return False
        lines = head[:-4].decode("latin-1").split("\r\n")
        method, target = (lines[0].split(" ") + ["", ""])[:2]
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", "").lower():
            self.send(400, "text/plain", b"chunked bodies are not supported here\n", True)
            return False
        try:
            length = int(headers.get("content-length", "0"))
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            self.send(400, "text/plain", b"bad Content-Length\n", True)
            return False
        body = self.read_body(length)
        if body is None:
            return False
        close = headers.get("connection", "").lower() == "close"
        if method == "GET":
            if target.lower().endswith("?wsdl"):
                self.send(200, "text/xml; charset=utf-8", self.server.wsdl, close)
            else:
                self.send(404, "text/plain", b"not found\n", close)
            return not close
        if method != "POST":
            self.send(400, "text/plain", b"GET or POST only\n", True)
            return False
        with _lock:
            _count[0] += 1
            path = os.path.join(self.server.capture_dir, f"post-{_count[0]:04d}.bin")
            with open(path, "wb") as f:
                f.write(head + body)
            log = os.environ.get("LATHER_WSDL_LOG")
            if log:
                with open(log, "a") as f:
                    f.write(f"{target} {headers.get('content-type', '-')} | {headers.get('soapaction', '-')}\n")
        status, ns, response = answer(body)
        media = "application/soap+xml" if ns == SOAP12 else "text/xml"
        self.send(status, f"{media}; charset=utf-8", response, close)
        return not close


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def main(argv):
    if len(argv) != 2:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 64
    template, capture_dir = argv
    server = Server(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    with open(template, encoding="utf-8") as f:
        wsdl = f.read()
    url = f"http://127.0.0.1:{port}/soap"
    wsdl, replaced = re.subn(r'(<soap(?:12)?:address\s+location=")[^"]*(")', rf"\g<1>{url}\g<2>", wsdl)
    if replaced != 2:
        print(f"capture_server: {template} has {replaced} soap:address/soap12:address locations, expected 2",
              file=sys.stderr)
        return 1
    server.wsdl, server.capture_dir = wsdl.encode("utf-8"), capture_dir
    print(f"listening {port}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
