#!/usr/bin/python3
"""The conformance rows through nginx (issue 19): which answers a reverse proxy changes.

Starts lather-service (port 0) and Debian's nginx with deploy/nginx/lather.conf (only the upstream address and
the listen port filled in, as tests/interop/behind_nginx.sh does), sends each row's raw request to the service
directly and through nginx, and checks both statuses against the table below: where nginx answers a request
itself (or changes it on the way), the row says so and docs/conformance.md ("Through nginx") explains why.

usage: conformance_behind_nginx.py SERVICE_BIN [--explore]
  --explore: print what each side answered instead of checking (to update the table).
Prints "ok ..." per row; on the first mismatch one line "conformance-behind-nginx: FAIL: ..." and exit 1.
Exit 77 (CTest's SKIP_RETURN_CODE) when nginx is not installed.
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ENV11 = "http://schemas.xmlsoap.org/soap/envelope/"
ENV12 = "http://www.w3.org/2003/05/soap-envelope"


def envelope(ns, body="<l:Increment><l:value>41</l:value></l:Increment>"):
    return (f'<?xml version="1.0" encoding="UTF-8"?><e:Envelope xmlns:e="{ns}" xmlns:l="urn:lather:v1">'
            f"<e:Body>{body}</e:Body></e:Envelope>")


def post(body, headers="Host: x\r\n", content_type="text/xml; charset=utf-8", target="/soap", version="HTTP/1.1",
         method="POST"):
    data = body.encode() if isinstance(body, str) else body
    return (f"{method} {target} {version}\r\n{headers}Content-Type: {content_type}\r\n"
            f'SOAPAction: "urn:lather:v1#Increment"\r\nContent-Length: {len(data)}\r\n\r\n').encode() + data


def chunked(body, codings="chunked"):
    data = body.encode()
    return (f"POST /soap HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nTransfer-Encoding: {codings}\r\n\r\n"
            f"{len(data):x}\r\n").encode() + data + b"\r\n0\r\n\r\n"


UTF16 = envelope(ENV11).replace('encoding="UTF-8"', 'encoding="UTF-16"').encode("utf-16")

# (name, raw request, expected status direct, expected status through nginx, why they differ)
ROWS = [
    ("RFC 9112 3.2 HTTP/1.1 without Host", b"GET /soap?wsdl HTTP/1.1\r\n\r\n", 400, 400, ""),
    ("RFC 9112 3.2 two Host lines", b"GET /soap?wsdl HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, 400, ""),
    ("RFC 9112 3.2 a Host that is not host[:port]", b"GET /soap?wsdl HTTP/1.1\r\nHost: a b\r\n\r\n", 400, 400, ""),
    ("RFC 9110 5.5 NUL in a header value", b"GET /soap?wsdl HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 400, 400, ""),
    ("RFC 9112 5.1 space before the colon", b"GET /soap?wsdl HTTP/1.1\r\nHost: x\r\nX-A : b\r\n\r\n", 400, 400, ""),
    ("RFC 9112 5.2 obs-fold", b"GET /soap?wsdl HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", 400, 400, ""),
    ("RFC 9110 9.3.2 HEAD /soap?wsdl", b"HEAD /soap?wsdl HTTP/1.1\r\nHost: x\r\n\r\n", 200, 200, ""),
    ("RFC 9112 3.2.2 absolute-form target", post(envelope(ENV11), target="http://x/soap"), 200, 200, ""),
    ("RFC 9112 2.2 empty lines before the request line", b"\r\n\r\n" + post(envelope(ENV11)), 200, 200, ""),
    ("RFC 9112 6.1 chunked body", chunked(envelope(ENV11)), 200, 200, ""),
    ("RFC 9112 6.1 gzip, chunked (a coding the server lacks)", chunked(envelope(ENV11), "gzip, chunked"), 501, 501, ""),
    ("RFC 9112 6.3 Transfer-Encoding and Content-Length",
     post(envelope(ENV11), headers="Host: x\r\nTransfer-Encoding: chunked\r\n"), 400, 400, ""),
    ("RFC 9112 2.3 HTTP/2.0 in the request line", b"GET /soap?wsdl HTTP/2.0\r\nHost: x\r\n\r\n", 505, 505, ""),
    ("RFC 9112 3 an over-long request line (9 KiB)", b"GET /soap?" + b"a" * 9216 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
     414, 414, ""),
    ("RFC 9110 9.1 an unknown method", b"BREW /soap HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 501, 501, ""),
    ("RFC 9110 15.5.6 PUT /soap is 405", b"PUT /soap HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 405, 405, ""),
    ("RFC 9110 9.3.8 TRACE /soap", b"TRACE /soap HTTP/1.1\r\nHost: x\r\n\r\n", 405, 405, ""),
    ("RFC 9110 9.3.7 OPTIONS *", b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 200, 400,
     "nginx's request parser refuses the asterisk-form itself; OPTIONS is optional (9.3.7)"),
    ("RFC 9110 10.1.1 Expect other than 100-continue",
     post(envelope(ENV11), headers="Host: x\r\nExpect: teapot\r\n"), 417, 200,
     "nginx neither forwards Expect nor refuses an unknown one; 10.1.1 makes the 417 a MAY"),
    ("RFC 9110 13.1.1 If-Match on POST /soap", post(envelope(ENV11), headers="Host: x\r\nIf-Match: *\r\n"),
     412, 412, ""),
    ("RFC 9110 13.1.2 If-None-Match: * on ?wsdl", b"GET /soap?wsdl HTTP/1.1\r\nHost: x\r\nIf-None-Match: *\r\n\r\n",
     304, 304, ""),
    ("SOAP 1.2 appendix A: a 1.2 envelope on the 1.1 binding", post(envelope(ENV12)), 500, 500, ""),
    ("WS-I BP R1012 a UTF-16 envelope", post(UTF16, content_type="text/xml; charset=utf-16"), 200, 200, ""),
    ("HTTP/1.0 without Host", post(envelope(ENV11), headers="", version="HTTP/1.0"), 200, 200, ""),
]


def exchange(port, request):
    """Sends `request`, returns the status of the first response (0: none), reading until the head is in."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return int(m.group(1)) if m else 0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(predicate, seconds, what, process):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"conformance-behind-nginx: FAIL: {what} exited at start")
        if predicate():
            return
        time.sleep(0.1)
    sys.exit(f"conformance-behind-nginx: FAIL: {what} did not start within {seconds} s")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    service_bin, explore = sys.argv[1], "--explore" in sys.argv[2:]
    if not shutil.which("nginx"):
        print("conformance-behind-nginx: SKIP: nginx is not installed (scripts/bootstrap)")
        sys.exit(77)
    here = os.path.dirname(os.path.abspath(__file__))
    conf_src = os.path.join(here, "..", "..", "deploy", "nginx", "lather.conf")
    work = tempfile.mkdtemp(prefix="lather-nginx-conformance-")
    processes = []
    try:
        port_file = os.path.join(work, "service.port")
        service = subprocess.Popen([service_bin, "--listen", "127.0.0.1:0", "--port-file", port_file, "--threads", "1",
                                    "--store", "sqlite:" + os.path.join(work, "counters.db")],
                                   stderr=open(os.path.join(work, "service.log"), "w"))
        processes.append(service)
        wait_for(lambda: os.path.exists(port_file) and open(port_file).read().strip(), 10, "lather-service", service)
        service_port = int(open(port_file).read())
        nginx_port = free_port()
        conf = open(conf_src).read()
        filled = re.sub(r"(?m)^(\s*)server 127\.0\.0\.1:8080;", rf"\g<1>server 127.0.0.1:{service_port};", conf)
        filled = re.sub(r"(?m)^(\s*)listen 80;", rf"\g<1>listen 127.0.0.1:{nginx_port};", filled)
        if filled.count(f"127.0.0.1:{service_port};") != 1 or filled.count(f"listen 127.0.0.1:{nginx_port};") != 1:
            sys.exit("conformance-behind-nginx: FAIL: lather.conf no longer has 'server 127.0.0.1:8080;' and 'listen 80;'")
        with open(os.path.join(work, "lather.conf"), "w") as f:
            f.write(filled)
        user = "user root root;" if os.geteuid() == 0 else ""
        with open(os.path.join(work, "nginx.conf"), "w") as f:
            f.write(f"""{user}
worker_processes 1;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log info;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {work}/body;
  proxy_temp_path {work}/proxy;
  fastcgi_temp_path {work}/fastcgi;
  uwsgi_temp_path {work}/uwsgi;
  scgi_temp_path {work}/scgi;
  include {work}/lather.conf;
}}
""")
        nginx = subprocess.Popen(["nginx", "-e", f"{work}/nginx-error.log", "-c", f"{work}/nginx.conf", "-p", f"{work}/"],
                                 stderr=subprocess.DEVNULL)
        processes.append(nginx)

        def nginx_up():
            try:
                return exchange(nginx_port, b"GET /soap?wsdl HTTP/1.1\r\nHost: x\r\n\r\n") == 200
            except OSError:
                return False
        wait_for(nginx_up, 10, "nginx", nginx)

        failures = 0
        for name, request, want_direct, want_proxy, why in ROWS:
            direct, proxied = exchange(service_port, request), exchange(nginx_port, request)
            if explore:
                print(f"{name}: direct {direct}, through nginx {proxied}")
                continue
            if direct != want_direct or proxied != want_proxy:
                print(f"conformance-behind-nginx: FAIL: {name}: direct {direct} (expected {want_direct}), "
                      f"through nginx {proxied} (expected {want_proxy})")
                failures += 1
                continue
            print(f"ok {name}: {direct}" + (f", through nginx {proxied} ({why})" if proxied != direct else ""))
        sys.exit(1 if failures else 0)
    finally:
        for p in reversed(processes):
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
