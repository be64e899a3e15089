#!/usr/bin/python3
"""Interop test: drive a live lather-service with Python suds (Debian python3-suds) over SOAP 1.1.

Usage: /usr/bin/python3 tests/interop/suds_client.py <path/to/lather-service>

Starts the service on an ephemeral port with a SQLite store in a temporary directory, builds a suds
Client from the live ?wsdl (port LatherSoap; suds speaks SOAP 1.1 only), calls every operation,
checks that a Client fault surfaces as suds.WebFault with the service's faultcode and faultstring,
then stops the service with SIGTERM and expects exit status 0.
Prints one PASS/FAIL line per check and "N passed, M failed"; exits non-zero on any failure.
"""

import datetime
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid

import suds
import suds.client

STARTUP_TIMEOUT_S = 10.0
HTTP_TIMEOUT_S = 10
SHUTDOWN_TIMEOUT_S = 10.0
# The faultstring the service sends for Increment(2147483647) (service/soap/operations.cpp).
OVERFLOW_REASON = "Increment: value 2147483647 is the largest xsd:int; value + 1 would overflow"


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, fn):
        """fn() returns None/True (pass) or a non-empty string (fail, the detail); raising fails."""
        try:
            outcome = fn()
        except Exception as exc:  # noqa: BLE001 - every error is a failed check
            outcome = "raised %s: %s" % (type(exc).__name__, exc)
        if outcome is None or outcome is True:
            self.passed += 1
            print("PASS  %s" % name, flush=True)
        else:
            self.failed += 1
            print("FAIL  %s: %s" % (name, outcome), flush=True)


def start_service(binary, workdir):
    port_file = os.path.join(workdir, "port")
    log_path = os.path.join(workdir, "service.log")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [binary, "--listen", "127.0.0.1:0", "--store", "sqlite:" + os.path.join(workdir, "c.db"),
             "--port-file", port_file, "--threads", "2"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("service exited early with status %s" % proc.returncode)
        try:
            with open(port_file, "r", encoding="ascii") as f:
                text = f.read()
        except FileNotFoundError:
            text = ""
        if text.endswith("\n") and text.strip().isdigit():
            return proc, int(text.strip())
        time.sleep(0.05)
    proc.kill()
    proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
    raise RuntimeError("no port file after %.0f s" % STARTUP_TIMEOUT_S)


def stop_service(proc):
    """SIGTERM, bounded wait; returns the exit status (None if it had to be killed)."""
    if proc.poll() is not None:
        return proc.returncode
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
        return None


def tz(hours, minutes=0):
    sign = -1 if hours < 0 else 1
    return datetime.timezone(sign * datetime.timedelta(hours=abs(hours), minutes=minutes))


def sample(first, last, city, zip_code, email, contacts, designation, experience, salary, companies,
           born, married, children):
    return {"firstname": first, "lastname": last, "city": city, "zip": zip_code, "email": email,
            "contactNos": {"item": list(contacts)}, "designation": designation,
            "experience": experience, "salary": salary, "companiesWorkedFor": {"item": list(companies)},
            "dateOfBirth": born, "isMarried": married, "children": {"sample": list(children)}}


def build_samples():
    child = sample("Léa", "Müller", "Zürich", 8001, "lea@example.ch", ["+41 44 000 00 00"], "Schülerin",
                   1, 1234.5678, ["Kinderkrippe Zürich"],
                   datetime.datetime(2010, 6, 15, 8, 30, 0, tzinfo=tz(2)), False, [])
    return [
        sample("Jürgen", "Ørsted", "Zürich", 8001, "juergen@example.ch", ["+41 1", "+41 2"],
               "Senior <Engineer> & \"Architect\"", 17, -0.5, ["Ærø Shipping A/S", "東京電力"],
               datetime.datetime(1980, 2, 29, 13, 45, 30, 123000, tzinfo=tz(2)), True, [child]),
        sample("Hanako", "山田", "東京", 4294967295, "hanako@example.jp", ["+81 3 0000 0000"], "部長",
               0, 3.0e10, ["Ærøskøbing"], datetime.datetime(1975, 7, 1, 0, 0, 0, tzinfo=tz(-5, -30)),
               True, []),
    ]


def as_list(value, member):
    """suds gives a container element as an object whose member is a list (maxOccurs unbounded),
    a single object, or absent when the container is empty."""
    if value is None or value == "":
        return []
    items = getattr(value, member, [])
    if items is None:
        return []
    return list(items) if isinstance(items, list) else [items]


def compare(sent, got, path, diffs):
    """Field-by-field comparison of a sent sample dict with the suds object that came back."""
    for key, want in sent.items():
        have = getattr(got, key, None)
        where = "%s.%s" % (path, key)
        if key in ("contactNos", "companiesWorkedFor"):
            items = [str(x) for x in as_list(have, "item")]
            if items != want["item"]:
                diffs.append("%s: %r, expected %r" % (where, items, want["item"]))
        elif key == "children":
            kids = as_list(have, "sample")
            if len(kids) != len(want["sample"]):
                diffs.append("%s: %d children, expected %d" % (where, len(kids), len(want["sample"])))
            for i, (s, g) in enumerate(zip(want["sample"], kids)):
                compare(s, g, "%s[%d]" % (where, i), diffs)
        elif isinstance(want, datetime.datetime):
            if not isinstance(have, datetime.datetime) or have.utcoffset() is None:
                diffs.append("%s: %r is not an aware datetime (sent %s)" % (where, have, want.isoformat()))
            elif have != want:
                diffs.append("%s: %s, expected the instant %s" % (where, have.isoformat(), want.isoformat()))
        elif isinstance(want, bool):
            if have is not want:
                diffs.append("%s: %r, expected %r" % (where, have, want))
        elif isinstance(want, (int, float)):
            if isinstance(have, bool) or have != want or type(have) is not type(want):
                diffs.append("%s: %r (%s), expected %r" % (where, have, type(have).__name__, want))
        elif str(have) != want:
            diffs.append("%s: %r, expected %r" % (where, have, want))


def run(service, results):
    results.check("Increment(41) == 42", lambda: None if service.Increment(41) == 42 else
                  "got %r" % service.Increment(41))
    results.check("Increment(-1) == 0", lambda: None if service.Increment(-1) == 0 else "not 0")

    def overflow_fault():
        try:
            got = service.Increment(2147483647)
        except suds.WebFault as fault:
            code = str(fault.fault.faultcode)
            reason = str(fault.fault.faultstring)
            if code.rsplit(":", 1)[-1] != "Client":
                return "faultcode %r, expected ...:Client" % code
            if reason != OVERFLOW_REASON:
                return "faultstring %r, expected %r" % (reason, OVERFLOW_REASON)
            return None
        return "no WebFault; returned %r" % (got,)
    results.check("Increment(2147483647) raises suds.WebFault Client with the service's reason",
                  overflow_fault)

    results.check("HelloWorld() == 'Hello World'",
                  lambda: None if service.HelloWorld() == "Hello World" else "different string")

    name = "suds-" + uuid.uuid4().hex[:12]
    seen = []

    def counter():
        seen.append(service.IncCounter(name))
        seen.append(service.IncCounter(name))
        seen.append(service.GetCounter(name))
        return None if seen == [1, 2, 2] else "IncCounter, IncCounter, GetCounter gave %r" % seen
    results.check("IncCounter twice -> 1, 2; GetCounter -> 2", counter)

    def echo():
        sent = build_samples()
        reply = service.EchoDataSamples(samples={"sample": sent})
        got = as_list(reply, "sample")
        if len(got) != len(sent):
            return "%d samples back, expected %d (reply %r)" % (len(got), len(sent), reply)
        diffs = []
        for i, (s, g) in enumerate(zip(sent, got)):
            compare(s, g, "sample[%d]" % i, diffs)
        return "; ".join(diffs) if diffs else None
    results.check("EchoDataSamples round-trips 2 samples (nested child, non-ASCII, zoned dateTimes)", echo)


def main():
    if len(sys.argv) != 2:
        print("usage: %s PATH/TO/lather-service" % sys.argv[0], file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.CRITICAL)  # suds logs faults it raises; we report them ourselves
    binary = os.path.abspath(sys.argv[1])
    results = Results()
    print("suds %s" % suds.__version__, flush=True)
    with tempfile.TemporaryDirectory(prefix="lather-suds-") as workdir:
        proc, port = start_service(binary, workdir)
        try:
            url = "http://127.0.0.1:%d/soap?wsdl" % port
            client = suds.client.Client(url, cache=None, timeout=HTTP_TIMEOUT_S, port="LatherSoap")
            service = client.service
            results.check("suds loaded the live ?wsdl; LatherSoap address is the one used",
                          lambda: None if client.wsdl.services[0].port("LatherSoap").location ==
                          "http://127.0.0.1:%d/soap" % port else "unexpected soap:address")
            run(service, results)
        except Exception as exc:  # noqa: BLE001
            results.check("suds client", lambda: "raised %s: %s" % (type(exc).__name__, exc))
        finally:
            status = stop_service(proc)
        results.check("service exits 0 on SIGTERM", lambda: None if status == 0 else "status %r" % status)
    print("%d passed, %d failed" % (results.passed, results.failed))
    return 0 if results.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
