"""bench/shedding_proxy.py: HAProxy 2.6 shedding load in front of one lather-service (deploy/haproxy/shedding.cfg),
for bench/overload's side-by-side runs, and the checks of a busy answer (a 503 that a SOAP client can read).

SheddingProxy starts haproxy pinned to a core with the profile filled in (maxconn, timeout queue, the client
connections' receive buffer) and stop() always ends it; busy_answer_problems() says what is wrong with one 503
response; proxy_busy_answer() makes HAProxy queue a request past its limit and returns its 503. Single-threaded use
only.
"""
import os
import re
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROFILE = os.path.join(ROOT, "deploy", "haproxy", "shedding.cfg")
ERRORS = os.path.join(ROOT, "deploy", "haproxy", "errors")
SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP12 = "http://www.w3.org/2003/05/soap-envelope"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SheddingProxy:
    """haproxy -db with deploy/haproxy/shedding.cfg filled in, pinned to `cpu`, in front of 127.0.0.1:server_port."""

    def __init__(self, server_port, cpu, maxconn, queue_timeout_ms, receive_buffer=0):
        self.folder = tempfile.mkdtemp(prefix="lather-shedding-proxy-")
        self.port = free_port()
        self.maxconn, self.queue_timeout_ms = maxconn, queue_timeout_ms
        fills = {"@FRONTEND@": f"127.0.0.1:{self.port}", "@SERVER@": f"127.0.0.1:{server_port}",
                 "@MAXCONN@": str(maxconn), "@QUEUE_TIMEOUT@": f"{queue_timeout_ms:g}ms", "@ERRORS@": ERRORS,
                 "@RCVBUF_CLIENT@": str(receive_buffer)}
        text = open(PROFILE).read()
        for marker, value in fills.items():
            text = text.replace(marker, value)
        config = os.path.join(self.folder, "haproxy.cfg")
        with open(config, "w") as f:
            f.write(text)
        check = subprocess.run(["haproxy", "-c", "-q", "-f", config], capture_output=True, text=True, timeout=30)
        if check.returncode != 0:
            sys.exit(f"shedding proxy: haproxy -c rejected {config}: {check.stderr.strip() or check.stdout.strip()}")
        self.log = open(os.path.join(self.folder, "haproxy.log"), "w")
        self.process = subprocess.Popen(["taskset", "-c", str(cpu), "haproxy", "-db", "-f", config],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.process.pid  # taskset executes haproxy in its own process
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.log.flush()
                    said = open(self.log.name).read().strip().splitlines()[-3:]
                    self.stop()
                    sys.exit(f"shedding proxy: haproxy did not start listening on 127.0.0.1:{self.port}: "
                             + " / ".join(said))
                time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port}/soap"

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # hard stop: connections closed at once
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        subprocess.run(["rm", "-rf", self.folder], timeout=60)


def split_response(raw):
    """(status, {lower-case header: value}, body) of one HTTP/1.1 response."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def busy_answer_problems(raw):
    """What keeps `raw` (one HTTP response) from being a busy answer a SOAP client can act on: status 503, a
    Retry-After, a SOAP content type and a Fault of the server's side (1.1 Server, 1.2 Receiver). [] when none."""
    if not raw:
        return ["no 503 answer was seen"]
    status, headers, body = split_response(raw)
    problems = []
    if status != 503:
        problems.append(f"status {status}, not 503")
    if not re.fullmatch(r"\d+", headers.get("retry-after", "")):
        problems.append(f"no Retry-After in seconds (headers: {', '.join(sorted(headers))})")
    kind = headers.get("content-type", "")
    if not kind.startswith(("text/xml", "application/soap+xml")):
        problems.append(f"content type {kind or 'missing'}, not a SOAP one")
    try:
        root = ET.fromstring(body)
    except ET.ParseError as e:
        return problems + [f"the body is not XML ({e})"]
    code = root.findtext(f"{{{SOAP11}}}Body/{{{SOAP11}}}Fault/faultcode")
    value = root.findtext(f"{{{SOAP12}}}Body/{{{SOAP12}}}Fault/{{{SOAP12}}}Code/{{{SOAP12}}}Value")
    if not (code or "").endswith(":Server") and not (value or "").endswith(":Receiver"):
        problems.append(f"the body is not a SOAP Fault of the server's side (faultcode {code}, Code {value})")
    return problems


def proxy_busy_answer(proxy, service_pid, request):
    """With the service stopped (SIGSTOP), writes `request` on maxconn + 2 connections to the proxy: maxconn go to
    the service and wait, the rest wait in HAProxy's queue and are answered 503 after its timeout. Returns the
    first 503 (bytes; b"" if none came within 3 s); every connection is closed before it returns."""
    socks = []
    answer = b""
    os.kill(service_pid, signal.SIGSTOP)
    try:
        for _ in range(proxy.maxconn + 2):
            s = socket.create_connection(("127.0.0.1", proxy.port), timeout=5)
            s.sendall(request)
            s.setblocking(False)
            socks.append(s)
        selector = selectors.DefaultSelector()
        buffers = {}
        for s in socks:
            selector.register(s, selectors.EVENT_READ)
            buffers[s] = b""
        deadline = time.monotonic() + 3 + proxy.queue_timeout_ms / 1000
        while not answer and time.monotonic() < deadline:
            for key, _ in selector.select(0.2):
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                buffers[key.fileobj] += data
                raw = buffers[key.fileobj]
                if b"\r\n\r\n" not in raw:
                    continue
                _, headers, body = split_response(raw)
                if len(body) >= int(headers.get("content-length", "0")) and raw.startswith(b"HTTP/1.1 503"):
                    answer = raw
        selector.close()
    finally:
        os.kill(service_pid, signal.SIGCONT)
        for s in socks:
            s.close()
    return answer
