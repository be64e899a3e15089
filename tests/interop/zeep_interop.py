#!/usr/bin/python3
"""Interop test: drive a live lather-service with python3-zeep over SOAP 1.1 and SOAP 1.2.

Usage: /usr/bin/python3 tests/interop/zeep_interop.py <path/to/lather-service>

Run it with Debian's /usr/bin/python3 (python3-zeep), not a pyenv/virtualenv python.

It starts the service on an ephemeral port with a SQLite store in a temporary directory, loads the
WSDL from the live ?wsdl URL, exercises every operation through both the LatherSoap (SOAP 1.1) and
LatherSoap12 (SOAP 1.2) ports, checks the response Content-Type of every call (recorded by the
transport) and of raw urllib POSTs, then stops the service with SIGTERM and expects exit status 0.
Prints one line per check and finally "N passed, M failed"; exits non-zero on any failure.
"""

import datetime
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
import uuid

import requests
import zeep
import zeep.exceptions
import zeep.helpers
import zeep.plugins
import zeep.transports
from lxml import etree

STARTUP_TIMEOUT_S = 10.0
HTTP_TIMEOUT_S = 10.0
SHUTDOWN_TIMEOUT_S = 10.0

SOAP11_ENV = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP12_ENV = "http://www.w3.org/2003/05/soap-envelope"
TNS = "urn:lather:v1"
# The faultstring / Reason the service sends for Increment(2147483647) (service/soap/operations.cpp).
OVERFLOW_REASON = "Increment: value 2147483647 is the largest xsd:int; value + 1 would overflow"

# port name -> (label, expected response media type, expected fault code local name, envelope ns,
#               request content type, expected HTTP status of a Sender/Client fault)
BINDINGS = {
    "LatherSoap": ("SOAP 1.1", "text/xml", "Client", SOAP11_ENV, "text/xml; charset=utf-8", 500),
    "LatherSoap12": ("SOAP 1.2", "application/soap+xml", "Sender", SOAP12_ENV,
                     "application/soap+xml; charset=utf-8", 400),
}


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def record(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print("PASS  %s" % name, flush=True)
        else:
            self.failed += 1
            print("FAIL  %s%s" % (name, (": " + detail) if detail else ""), flush=True)

    def check(self, name, fn):
        """Runs fn(); it returns None/True (pass), False or a non-empty string (fail with detail).
        An exception is a failure too."""
        try:
            outcome = fn()
        except Exception as exc:  # noqa: BLE001 - every error is a failed check
            self.record(name, False, "raised %s: %s" % (type(exc).__name__, exc))
            return
        if outcome is None or outcome is True:
            self.record(name, True)
        elif outcome is False:
            self.record(name, False)
        else:
            self.record(name, False, str(outcome))


class RecordingTransport(zeep.transports.Transport):
    """Remembers (address, status, Content-Type) of every SOAP POST response, faults included."""

    def __init__(self, **kwargs):
        session = requests.Session()
        session.trust_env = False  # never go through an environment proxy to 127.0.0.1
        super().__init__(session=session, **kwargs)
        self.posts = []

    def post(self, address, message, headers):
        response = super().post(address, message, headers)
        self.posts.append((address, response.status_code, response.headers.get("Content-Type", "")))
        return response


def media_type(content_type):
    return content_type.split(";", 1)[0].strip().lower()


# ---------------------------------------------------------------------------------------------
# Service process handling


def start_service(binary, workdir):
    port_file = os.path.join(workdir, "port")
    log_path = os.path.join(workdir, "service.log")
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [binary, "--listen", "127.0.0.1:0", "--store", "sqlite:" + os.path.join(workdir, "c.db"),
         "--port-file", port_file, "--threads", "2"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    log.close()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("service exited early with status %s; log:\n%s"
                               % (proc.returncode, read_log(log_path)))
        try:
            with open(port_file, "r", encoding="ascii") as f:
                text = f.read()
        except FileNotFoundError:
            text = ""
        if text.endswith("\n") and text.strip().isdigit():
            return proc, int(text.strip()), log_path
        time.sleep(0.05)
    proc.kill()
    proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
    raise RuntimeError("no port file after %.0f s; log:\n%s" % (STARTUP_TIMEOUT_S, read_log(log_path)))


def read_log(log_path, limit=4000):
    try:
        with open(log_path, "rb") as f:
            data = f.read()
    except OSError:
        return "(no log)"
    return data[-limit:].decode("utf-8", "replace")


def stop_service(proc):
    """SIGTERM, bounded wait; returns the exit status (or None if it had to be killed)."""
    if proc.poll() is not None:
        return proc.returncode
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
        return None


# ---------------------------------------------------------------------------------------------
# Test data and comparison


def tz(hours, minutes=0):
    sign = -1 if hours < 0 else 1
    return datetime.timezone(sign * datetime.timedelta(hours=abs(hours), minutes=minutes))


def sample(firstname, lastname, city, zip_code, email, contact_nos, designation, experience, salary,
           companies, date_of_birth, is_married, children):
    return {
        "firstname": firstname,
        "lastname": lastname,
        "city": city,
        "zip": zip_code,
        "email": email,
        "contactNos": {"item": list(contact_nos)},
        "designation": designation,
        "experience": experience,
        "salary": salary,
        "companiesWorkedFor": {"item": list(companies)},
        "dateOfBirth": date_of_birth,
        "isMarried": is_married,
        "children": {"sample": list(children)},
    }


def build_samples():
    grandchild = sample(
        "Åsa", "Ærøskøbing-Møller", "Ærøskøbing", 5970, "asa@example.dk", [], "Lærling", 0, 0.1,
        [], datetime.datetime(2015, 1, 2, 3, 4, 5, 250000, tzinfo=datetime.timezone.utc), False, [])
    child1 = sample(
        "Léa", "Müller", "Zürich", 8001, "lea.mueller@example.ch", ["+41 44 000 00 00"],
        "Schülerin", 1, 1234.5678, ["Kinderkrippe Zürich"],
        datetime.datetime(2010, 6, 15, 8, 30, 0, tzinfo=tz(2)), False, [grandchild])
    child2 = sample(
        "Taro", "山田", "東京", 1000001, "taro@example.jp", ["03-0000-0000", "090-0000-0000"],
        "学生", 2, -0.5, [], datetime.datetime(2012, 12, 31, 23, 59, 59, 999999, tzinfo=tz(9)),
        False, [])
    return [
        sample(
            "Jürgen", "Ørsted", "Zürich", 8001, "juergen@example.ch", [],
            "Senior <Engineer> & \"Architect\" 'Ü'", 17, 1234.5678,
            ["Ærø Shipping A/S", "東京電力", "Müller & Söhne <GmbH>"],
            datetime.datetime(1980, 2, 29, 13, 45, 30, 123456, tzinfo=tz(2)), True, [child1, child2]),
        sample(
            "Hanako", "山田", "東京", 4294967295, "hanako@example.jp", ["+81 3 0000 0000"],
            "部長", 0, 0.1, [], datetime.datetime(1975, 7, 1, 0, 0, 0, tzinfo=tz(-5, 30)), True, []),
        sample(
            "Søren", "Kierkegaard", "Ærøskøbing", 0, "soren@example.dk",
            ["+45 00 00 00 00", "+45 11 11 11 11", "+45 22 22 22 22"], "Filosof", -1, 3.0e10,
            ["Universitetet", ""], datetime.datetime(1813, 5, 5, 12, 0, 0, 500, tzinfo=tz(1)), False,
            []),
    ]


def compare(sent, got, path, diffs):
    """Field-by-field comparison of what we sent (plain dicts/lists) with zeep's serialized reply.

    zeep 4.2.1 deserializes an empty element (<contactNos/>, <children/>, <item/>) to None, so None
    is accepted for an empty list container and for an empty string; the XML-level check
    (compare_xml) verifies the service really sent those elements."""
    if isinstance(sent, dict):
        if got is None and all(isinstance(v, list) and not v for v in sent.values()):
            return
        if not isinstance(got, dict):
            diffs.append("%s: expected a structure, got %r" % (path, got))
            return
        if list(got.keys()) != list(sent.keys()):
            diffs.append("%s: fields %s, expected %s" % (path, list(got.keys()), list(sent.keys())))
        for key, value in sent.items():
            compare(value, got.get(key), "%s.%s" % (path, key), diffs)
    elif isinstance(sent, list):
        if got is None:
            got = []  # zeep may represent an absent repetition as None or []
        if not isinstance(got, list):
            diffs.append("%s: expected a list, got %r" % (path, got))
            return
        if len(got) != len(sent):
            diffs.append("%s: %d entries, expected %d" % (path, len(got), len(sent)))
        for i, (s, g) in enumerate(zip(sent, got)):
            compare(s, g, "%s[%d]" % (path, i), diffs)
    elif isinstance(sent, datetime.datetime):
        if not isinstance(got, datetime.datetime):
            diffs.append("%s: expected a datetime, got %r" % (path, got))
        elif got.tzinfo is None or got.utcoffset() is None:
            diffs.append("%s: echoed datetime %r is naive; sent %s" % (path, got, sent.isoformat()))
        elif got != sent:  # aware datetimes compare as instants
            diffs.append("%s: %s, expected the instant %s" % (path, got.isoformat(), sent.isoformat()))
    elif isinstance(sent, bool):
        if got is not sent:
            diffs.append("%s: %r, expected %r" % (path, got, sent))
    elif isinstance(sent, float):
        if not isinstance(got, float) or not (got == sent or (math.isnan(got) and math.isnan(sent))):
            diffs.append("%s: %r, expected %r" % (path, got, sent))
    elif isinstance(sent, int):
        if isinstance(got, bool) or not isinstance(got, int) or got != sent:
            diffs.append("%s: %r, expected %r" % (path, got, sent))
    else:
        if got != sent and not (sent == "" and got is None):
            diffs.append("%s: %r, expected %r" % (path, got, sent))


def compare_xml(sent, got, path, diffs):
    """Compares the request's <samples> element tree with the response's: same elements in the same
    order, same namespace, same text; salary compared as a double, dateOfBirth as an instant."""
    if etree.QName(got).namespace != TNS or etree.QName(got).localname != etree.QName(sent).localname:
        diffs.append("%s: element %s, expected {%s}%s" % (path, got.tag, TNS, etree.QName(sent).localname))
        return
    sent_children = [c for c in sent if isinstance(c.tag, str)]
    got_children = [c for c in got if isinstance(c.tag, str)]
    if not sent_children:
        local = etree.QName(sent).localname
        s_text, g_text = (sent.text or ""), (got.text or "")
        if got_children:
            diffs.append("%s: unexpected child elements" % path)
        elif local == "salary":
            if float(s_text) != float(g_text):
                diffs.append("%s: %r, expected %r" % (path, g_text, s_text))
        elif local == "dateOfBirth":
            if parse_datetime(s_text) != parse_datetime(g_text):
                diffs.append("%s: %r, expected the instant %r" % (path, g_text, s_text))
        elif s_text != g_text:
            diffs.append("%s: %r, expected %r" % (path, g_text, s_text))
        return
    names = [etree.QName(c).localname for c in got_children]
    want = [etree.QName(c).localname for c in sent_children]
    if names != want:
        diffs.append("%s: children %s, expected %s" % (path, names, want))
        return
    for i, (s, g) in enumerate(zip(sent_children, got_children)):
        compare_xml(s, g, "%s/%s[%d]" % (path, want[i], i), diffs)


def parse_datetime(text):
    import isodate  # a zeep dependency
    value = isodate.parse_datetime(text)
    if value.tzinfo is None:
        raise ValueError("dateTime %r has no timezone" % text)
    return value


def body_child(envelope, expected_qname):
    for body in envelope:
        if etree.QName(body).localname == "Body":
            children = [c for c in body if isinstance(c.tag, str)]
            if len(children) == 1 and children[0].tag == expected_qname:
                return children[0]
            raise AssertionError("Body holds %s, expected %s" % ([c.tag for c in children], expected_qname))
    raise AssertionError("no Body in the envelope")


# ---------------------------------------------------------------------------------------------
# Checks


def expect_equal(actual, expected):
    if actual != expected or type(actual) is not type(expected):
        return "got %r, expected %r" % (actual, expected)
    return None


def zeep_checks(results, client, transport, history, port_name, port):
    label, want_media, want_code, _, _, _ = BINDINGS[port_name]
    svc = client.bind("LatherService", port_name)
    first_post = len(transport.posts)

    def address():
        addr = svc._binding_options.get("address")
        want = "http://127.0.0.1:%d/soap" % port
        return None if addr == want else "WSDL address %r, expected %r" % (addr, want)

    results.check("%s: WSDL port address rewritten to the live port" % label, address)
    results.check("%s: Increment(41) == 42" % label, lambda: expect_equal(svc.Increment(41), 42))
    results.check("%s: Increment(-1) == 0" % label, lambda: expect_equal(svc.Increment(-1), 0))
    results.check("%s: Increment(-2147483648) == -2147483647" % label,
                  lambda: expect_equal(svc.Increment(-2147483648), -2147483647))

    def overflow_fault():
        try:
            value = svc.Increment(2147483647)
        except zeep.exceptions.Fault as fault:
            problems = []
            if fault.message != OVERFLOW_REASON:
                problems.append("fault message %r, expected %r" % (fault.message, OVERFLOW_REASON))
            code = (fault.code or "").rsplit(":", 1)[-1]
            if code != want_code:
                problems.append("fault code %r, expected ...:%s" % (fault.code, want_code))
            return "; ".join(problems) or None
        return "no Fault raised; returned %r" % (value,)

    results.check("%s: Increment(2147483647) raises a %s Fault with the service's reason"
                  % (label, want_code), overflow_fault)
    results.check("%s: HelloWorld() == 'Hello World'" % label,
                  lambda: expect_equal(svc.HelloWorld(), "Hello World"))

    name = "zeep-%s-%s" % (port_name, uuid.uuid4().hex)

    def counter():
        values = [svc.IncCounter(name), svc.IncCounter(name), svc.GetCounter(name)]
        return None if values == [1, 2, 2] else "IncCounter, IncCounter, GetCounter gave %r, expected [1, 2, 2]" % values

    results.check("%s: IncCounter x2 on a fresh name gives 1, 2 and GetCounter gives 2" % label, counter)
    results.check("%s: GetCounter on an unknown name == 0" % label,
                  lambda: expect_equal(svc.GetCounter("zeep-unknown-%s" % uuid.uuid4().hex), 0))

    def echo():
        sent = build_samples()
        reply = svc.EchoDataSamples(samples={"sample": sent})
        sent_env, got_env = history.last_sent["envelope"], history.last_received["envelope"]
        diffs = []
        # 1. XML level: the response's <samples> tree matches the request's element by element.
        request = body_child(sent_env, "{%s}EchoDataSamples" % TNS)
        response = body_child(got_env, "{%s}EchoDataSamplesResponse" % TNS)
        compare_xml(request[0], response[0], "xml:samples", diffs)
        # 2. Python level: what zeep hands back equals what was sent, field by field.
        got = unwrap_samples(zeep.helpers.serialize_object(reply, target_cls=dict))
        compare(sent, got, "samples", diffs)
        if diffs:
            return "%d difference(s): %s" % (len(diffs), "; ".join(diffs[:10]))
        return None

    results.check("%s: EchoDataSamples echoes 3 samples (nested, non-ASCII, tz dateTime) field by field"
                  % label, echo)

    def empty_echo():
        reply = zeep.helpers.serialize_object(svc.EchoDataSamples(samples={"sample": []}), target_cls=dict)
        samples = unwrap_samples(reply)
        return None if samples == [] else "expected no samples, got %r" % (samples,)

    results.check("%s: EchoDataSamples with an empty list echoes an empty list" % label, empty_echo)

    def content_types():
        posts = transport.posts[first_post:]
        if not posts:
            return "no responses recorded"
        bad = [(a, s, ct) for (a, s, ct) in posts if media_type(ct) != want_media]
        if bad:
            return "%d of %d responses not %s: %r" % (len(bad), len(posts), want_media, bad[:5])
        return None

    results.check("%s: every zeep response (incl. the fault) had Content-Type %s" % (label, want_media),
                  content_types)


def unwrap_samples(reply):
    """zeep unwraps the single-child response (and the single-child DataSampleList) differently
    depending on version; accept {'samples': {'sample': [...]}}, {'sample': [...]}, [...] or None."""
    if isinstance(reply, dict) and set(reply.keys()) == {"samples"}:
        reply = reply["samples"]
    if isinstance(reply, dict) and set(reply.keys()) == {"sample"}:
        reply = reply["sample"]
    if reply is None:
        return []
    if not isinstance(reply, list):
        raise AssertionError("unexpected EchoDataSamples reply shape: %r" % (reply,))
    return reply


def raw_post(url, body, content_type, soap_action):
    headers = {"Content-Type": content_type}
    if soap_action is not None:
        headers["SOAPAction"] = soap_action
    request = urllib.request.Request(url, data=body.encode("utf-8"), headers=headers, method="POST")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=HTTP_TIMEOUT_S) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as err:
        try:
            return err.code, err.headers.get("Content-Type", ""), err.read()
        finally:
            err.close()


def raw_checks(results, port_name, port):
    label, want_media, _, env_ns, request_ct, fault_status = BINDINGS[port_name]
    url = "http://127.0.0.1:%d/soap" % port
    soap_action = '"urn:lather:v1#%s"'

    def envelope(inner):
        return ('<?xml version="1.0" encoding="UTF-8"?>'
                '<e:Envelope xmlns:e="%s"><e:Body>%s</e:Body></e:Envelope>' % (env_ns, inner))

    def send(op, inner):
        if port_name == "LatherSoap":
            return raw_post(url, envelope(inner), request_ct, soap_action % op)
        return raw_post(url, envelope(inner), request_ct + '; action="urn:lather:v1#%s"' % op, None)

    def hello():
        status, ct, body = send("HelloWorld", '<HelloWorld xmlns="%s"/>' % TNS)
        problems = []
        if status != 200:
            problems.append("HTTP %d" % status)
        if media_type(ct) != want_media:
            problems.append("Content-Type %r, expected %s" % (ct, want_media))
        if b"Hello World" not in body or env_ns.encode() not in body:
            problems.append("body %r" % body[:300])
        return "; ".join(problems) or None

    results.check("%s raw urllib: HelloWorld -> 200, Content-Type %s" % (label, want_media), hello)

    def fault():
        status, ct, body = send("Increment", '<Increment xmlns="%s"><value>2147483647</value></Increment>' % TNS)
        problems = []
        if status != fault_status:
            problems.append("HTTP %d, expected %d" % (status, fault_status))
        if media_type(ct) != want_media:
            problems.append("Content-Type %r, expected %s" % (ct, want_media))
        if b"Fault" not in body or OVERFLOW_REASON.encode() not in body:
            problems.append("body without a Fault carrying %r: %r" % (OVERFLOW_REASON, body[:400]))
        return "; ".join(problems) or None

    results.check("%s raw urllib: Increment(2147483647) fault -> HTTP %d, Content-Type %s"
                  % (label, fault_status, want_media), fault)


def main():
    if len(sys.argv) != 2:
        print("usage: %s <path/to/lather-service>" % sys.argv[0], file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    results = Results()
    crashed = False
    print("zeep %s, python %s" % (zeep.__version__, sys.version.split()[0]), flush=True)
    with tempfile.TemporaryDirectory(prefix="lather-zeep-") as workdir:
        try:
            proc, port, log_path = start_service(binary, workdir)
        except Exception as exc:  # noqa: BLE001
            results.record("service starts and writes its port file within %.0f s" % STARTUP_TIMEOUT_S,
                           False, "%s: %s" % (type(exc).__name__, exc))
            print("%d passed, %d failed" % (results.passed, results.failed), flush=True)
            return 1
        print("service started on port %d (pid %d)" % (port, proc.pid), flush=True)
        try:
            transport = RecordingTransport(timeout=HTTP_TIMEOUT_S, operation_timeout=HTTP_TIMEOUT_S)
            history = zeep.plugins.HistoryPlugin()
            client = zeep.Client("http://127.0.0.1:%d/soap?wsdl" % port, transport=transport,
                                 plugins=[history])
            results.record("WSDL loaded by zeep from the live ?wsdl URL", True)
            for port_name in ("LatherSoap", "LatherSoap12"):
                zeep_checks(results, client, transport, history, port_name, port)
                raw_checks(results, port_name, port)
        except Exception:  # noqa: BLE001 - report, then still stop the service
            crashed = True
            traceback.print_exc()
            results.record("test run completed without an unexpected exception", False)
        finally:
            status = stop_service(proc)
            results.record("service exits 0 on SIGTERM", status == 0,
                           "exit status %r; log tail:\n%s" % (status, read_log(log_path)))
    print("%d passed, %d failed" % (results.passed, results.failed), flush=True)
    return 1 if (results.failed or crashed) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        sys.exit(1)
