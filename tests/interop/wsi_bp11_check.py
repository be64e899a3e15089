#!/usr/bin/python3
"""WS-I Basic Profile 1.1 checks of a live lather-service: its ?wsdl and its SOAP 1.1 messages.

Usage: /usr/bin/python3 tests/interop/wsi_bp11_check.py <path/to/lather-service>

Starts the service on an ephemeral port (SQLite store in a temporary directory), fetches GET /soap?wsdl
and checks the description requirements (R2xxx, R4xxx) that apply to a document/literal service, then
sends SOAP 1.1 requests and checks the response messages (R1xxx, R2712, R2729-style wrapper naming)
and the receiver behaviour the Profile asks for. Each line names the requirement:

  PASS  Rnnnn ...        holds
  FAIL  Rnnnn ...: why   a MUST that does not hold (counted; exit status 1)
  WARN  Rnnnn ...: why   a SHOULD that does not hold (printed with the evidence, not counted)
  NOTE  Rnnnn ...: why   outside BP 1.1's scope, or a deviation docs/contract.md documents (not counted)

docs/interop.md lists the requirements and where each is checked. BP 1.1 covers SOAP 1.1 only: the
LatherSoap12 binding and SOAP 1.2 messages are outside it (see the NOTE lines).
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
import uuid

from lxml import etree

WSDL = "http://schemas.xmlsoap.org/wsdl/"
SOAPBIND = "http://schemas.xmlsoap.org/wsdl/soap/"
SOAP12BIND = "http://schemas.xmlsoap.org/wsdl/soap12/"
XSD = "http://www.w3.org/2001/XMLSchema"
ENV = "http://schemas.xmlsoap.org/soap/envelope/"
SOAPENC = "http://schemas.xmlsoap.org/soap/encoding/"
TNS = "urn:lather:v1"
NS = {"wsdl": WSDL, "soap": SOAPBIND, "soap12": SOAP12BIND, "xsd": XSD}
OPERATIONS = ["Increment", "HelloWorld", "IncCounter", "GetCounter", "EchoDataSamples"]
HTTP_TIMEOUT_S = 10


class Report:
    def __init__(self):
        self.counts = {"PASS": 0, "FAIL": 0, "WARN": 0, "NOTE": 0}

    def line(self, kind, req, text, detail=""):
        self.counts[kind] += 1
        print("%-5s %s %s%s" % (kind, req, text, (": " + detail) if detail else ""), flush=True)

    def must(self, req, text, problem):
        """problem: None/"" when it holds, else what does not."""
        self.line("FAIL" if problem else "PASS", req, text, problem or "")

    def should(self, req, text, problem):
        self.line("WARN" if problem else "PASS", req, text, problem or "")

    def run(self, req, text, fn, should=False):
        try:
            problem = fn()
        except Exception as exc:  # noqa: BLE001 - a crash of a check is a failure of it
            problem = "raised %s: %s" % (type(exc).__name__, exc)
        (self.should if should else self.must)(req, text, problem)


# ---------------------------------------------------------------------------------------------
# Service and HTTP


def start_service(binary, workdir):
    port_file = os.path.join(workdir, "port")
    log = open(os.path.join(workdir, "service.log"), "wb")
    proc = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--store", "sqlite:" + os.path.join(workdir, "c.db"),
                             "--port-file", port_file, "--threads", "2"],
                            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    log.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("service exited early with status %s" % proc.returncode)
        try:
            text = open(port_file, encoding="ascii").read()
        except FileNotFoundError:
            text = ""
        if text.endswith("\n") and text.strip().isdigit():
            return proc, int(text)
        time.sleep(0.05)
    proc.kill()
    proc.wait(10)
    raise RuntimeError("no port file within 10 s")


def stop_service(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
            return None
    return proc.returncode


OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def http(url, body=None, headers=None, method=None):
    """Returns (status, headers, body bytes); HTTP errors are answers, not exceptions."""
    request = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with OPENER.open(request, timeout=HTTP_TIMEOUT_S) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as err:
        try:
            return err.code, err.headers, err.read()
        finally:
            err.close()


def envelope(body_xml, header_xml="", env_ns=ENV):
    return ('<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="%s" xmlns:l="%s">%s<s:Body>%s</s:Body>'
            '</s:Envelope>' % (env_ns, TNS, header_xml, body_xml)).encode("utf-8")


def evidence(status, body, limit=600):
    return "HTTP %d, %s" % (status, body[:limit].decode("utf-8", "replace").replace("\n", " "))


# ---------------------------------------------------------------------------------------------
# The description


def qname(element, value):
    prefix, _, local = value.rpartition(":")
    return element.nsmap.get(prefix or None), local


def wsdl_checks(rep, raw):
    doc = etree.fromstring(raw)
    root = doc

    rep.must("R4003", "the WSDL is UTF-8 or UTF-16",
             None if re.match(rb'<\?xml[^>]*encoding="UTF-8"', raw) or not raw.startswith(b"<?xml") else
             "XML declaration %r" % raw[:60])
    rep.must("R4004", "the WSDL is XML 1.0", None if raw.startswith(b'<?xml version="1.0"') else "prolog %r" % raw[:40])
    rep.must("R2001/R2002/R2003", "no wsdl:import, xsd:import or xsd:include (everything is inline)",
             ", ".join(e.tag for e in root.iter("{%s}import" % WSDL, "{%s}import" % XSD, "{%s}include" % XSD)))
    rep.must("R2026", "no extension element with wsdl:required=\"true\"",
             ", ".join(e.tag for e in root.iter() if e.get("{%s}required" % WSDL) in ("true", "1")))
    misplaced = [e.getparent().tag for e in root.iter("{%s}documentation" % WSDL)
                 if [c for c in e.getparent() if isinstance(c.tag, str)][0] is not e]
    rep.must("R2030", "wsdl:documentation only as the first child of its parent", ", ".join(misplaced))

    schemas = root.findall("wsdl:types/xsd:schema", NS)
    rep.must("R2105", "every xsd:schema in wsdl:types has a targetNamespace",
             None if schemas and all(s.get("targetNamespace") for s in schemas) else "a schema lacks it")

    def schema_compiles():
        for s in schemas:
            etree.XMLSchema(etree.fromstring(etree.tostring(s)))
    rep.run("R2800/R2801", "the types are XML Schema 1.0 (the inline schema compiles)", schema_compiles)
    rep.must("R2110/R2111/R2112", "no soapenc:Array, no wsdl:arrayType",
             ", ".join(e.get("base") for e in root.iter("{%s}restriction" % XSD, "{%s}extension" % XSD)
                       if qname(e, e.get("base", ""))[0] == SOAPENC) +
             ", ".join(e.tag for e in root.iter() if e.get("{%s}arrayType" % WSDL)))

    target = root.get("targetNamespace")
    global_elements = {(s.get("targetNamespace"), e.get("name")) for s in schemas for e in s.findall("xsd:element", NS)}
    defined = {
        "message": {m.get("name") for m in root.findall("wsdl:message", NS)},
        "portType": {p.get("name") for p in root.findall("wsdl:portType", NS)},
        "binding": {b.get("name") for b in root.findall("wsdl:binding", NS)},
    }
    global_types = {(s.get("targetNamespace"), t.get("name")) for s in schemas
                    for t in list(s.findall("xsd:complexType", NS)) + list(s.findall("xsd:simpleType", NS))}

    def references():
        bad = []
        for e in root.iter():
            if not isinstance(e.tag, str):
                continue
            for attr in ("message", "binding", "type", "element", "base"):
                value = e.get(attr)
                if value is None or (attr == "type" and e.tag == "{%s}binding" % WSDL and False):
                    continue
                ns, local = qname(e, value)
                if e.tag in ("{%s}input" % WSDL, "{%s}output" % WSDL) and attr == "message":
                    ok = ns == target and local in defined["message"]
                elif e.tag == "{%s}port" % WSDL and attr == "binding":
                    ok = ns == target and local in defined["binding"]
                elif e.tag == "{%s}binding" % WSDL and attr == "type":
                    ok = ns == target and local in defined["portType"]
                elif attr == "element":
                    ok = (ns, local) in global_elements
                elif attr in ("type", "base"):
                    ok = ns == XSD or (ns, local) in global_types
                else:
                    continue
                if not ok:
                    bad.append("%s/@%s=%s" % (etree.QName(e).localname, attr, value))
        return ", ".join(bad)
    rep.run("R2101/R2102", "every QName reference resolves to a component defined here or in XML Schema", references)

    messages = root.findall("wsdl:message", NS)
    rep.must("R2201/R2210", "document-literal: every wsdl:message has exactly one part (soap:body names no parts)",
             ", ".join("%s has %d parts" % (m.get("name"), len(m.findall("wsdl:part", NS)))
                       for m in messages if len(m.findall("wsdl:part", NS)) != 1) +
             ", ".join("soap:body/@parts" for b in root.iter("{%s}body" % SOAPBIND) if b.get("parts") is not None))
    rep.must("R2204/R2206/R2306", "every part uses element= (never type=) naming a global element declaration",
             ", ".join("%s/%s" % (m.get("name"), p.get("name")) for m in messages for p in m.findall("wsdl:part", NS)
                       if p.get("type") is not None or p.get("element") is None
                       or qname(p, p.get("element")) not in global_elements))

    port_types = root.findall("wsdl:portType", NS)
    ops = [o for pt in port_types for o in pt.findall("wsdl:operation", NS)]
    rep.must("R2303", "only request-response operations (input then output; no solicit-response, notification)",
             ", ".join(o.get("name") for o in ops
                       if [etree.QName(c).localname for c in o if isinstance(c.tag, str)
                           and c.tag != "{%s}documentation" % WSDL] != ["input", "output"]))
    names = [o.get("name") for o in ops]
    rep.must("R2304", "no operation name overloading in the portType",
             None if len(names) == len(set(names)) else "names %s" % names)

    message_element = {m.get("name"): qname(m.find("wsdl:part", NS), m.find("wsdl:part", NS).get("element"))
                       for m in messages if m.find("wsdl:part", NS) is not None}

    def wrappers():
        bad = []
        for o in ops:
            name = o.get("name")
            inp = message_element[qname(o, o.find("wsdl:input", NS).get("message"))[1]]
            out = message_element[qname(o, o.find("wsdl:output", NS).get("message"))[1]]
            if inp != (TNS, name) or out != (TNS, name + "Response"):
                bad.append("%s: input %s, output %s" % (name, inp, out))
        return ", ".join(bad)
    rep.run("wrapped", "doc/literal wrapped: request element = operation name, response = name + \"Response\" "
            "(the R2729 naming, which BP requires for rpc-literal)", wrappers)

    bindings = root.findall("wsdl:binding", NS)
    for b in bindings:
        name = b.get("name")
        soap11 = b.find("soap:binding", NS)
        if soap11 is None:
            is12 = b.find("soap12:binding", NS) is not None
            rep.line("NOTE", "R2401", "binding %s uses %s, not the WSDL 1.1 SOAP binding" %
                     (name, "the SOAP 1.2 WSDL binding (soap12:)" if is12 else "no SOAP binding"),
                     "outside BP 1.1, which profiles SOAP 1.1 only; BP 1.1 conformance is claimed for "
                     "the LatherSoap binding/port; JAX-WS wsimport skips this port unless run with -extension")
            continue
        rep.must("R2401", "binding %s uses the WSDL 1.1 SOAP binding (soap:binding)" % name, None)
        rep.must("R2701/R2702", "binding %s: soap:binding transport=\"http://schemas.xmlsoap.org/soap/http\"" % name,
                 None if soap11.get("transport") == "http://schemas.xmlsoap.org/soap/http"
                 else "transport=%r" % soap11.get("transport"))
        styles = [soap11.get("style")] + [o.get("style") for o in b.iter("{%s}operation" % SOAPBIND)]
        rep.must("R2705", "binding %s is document-literal throughout (style=\"document\")" % name,
                 None if all(s in (None, "document") for s in styles) and soap11.get("style") == "document"
                 else "styles %s" % styles)
        uses = [e.get("use") for tag in ("body", "header", "headerfault", "fault")
                for e in b.iter("{%s}%s" % (SOAPBIND, tag))]
        rep.must("R2706", "binding %s: use=\"literal\" on every soap:body/header/fault" % name,
                 None if uses and all(u == "literal" for u in uses) else "uses %s" % uses)
        rep.must("R2716", "binding %s: no namespace attribute on soap:body (document-literal)" % name,
                 ", ".join(e.get("namespace") for e in b.iter("{%s}body" % SOAPBIND) if e.get("namespace") is not None))
        rep.must("R2718", "binding %s has the same operations as its portType" % name,
                 None if sorted(o.get("name") for o in b.findall("wsdl:operation", NS)) == sorted(names)
                 else "binding %s vs portType %s" % (sorted(o.get("name") for o in b.findall("wsdl:operation", NS)),
                                                      sorted(names)))
        signatures = [message_element[qname(o, o.find("wsdl:input", NS).get("message"))[1]] for o in ops]
        rep.must("R2710", "binding %s: the operations' signatures (Body child QNames) are distinct" % name,
                 None if len(signatures) == len(set(signatures)) else "signatures %s" % signatures)
        actions = {o.get("name"): o.find("soap:operation", NS).get("soapAction")
                   for o in b.findall("wsdl:operation", NS)}
        rep.must("R2744/R2745", "binding %s: every soap:operation names its soapAction (urn:lather:v1#Name)" % name,
                 ", ".join("%s=%r" % kv for kv in actions.items() if kv[1] != "urn:lather:v1#" + kv[0]))

    soap11_locations = [a.get("location") for a in root.iter("{%s}address" % SOAPBIND)]
    rep.should("R2711", "no two wsdl:ports with the same soap:address location",
               None if len(soap11_locations) == len(set(soap11_locations)) else "locations %s" % soap11_locations)
    return doc, [etree.XMLSchema(etree.fromstring(etree.tostring(s))) for s in schemas]


# ---------------------------------------------------------------------------------------------
# Messages


def message_checks(rep, url, schema):
    name = "wsi-%s" % uuid.uuid4().hex
    requests_ = {
        "Increment": "<l:Increment><l:value>41</l:value></l:Increment>",
        "HelloWorld": "<l:HelloWorld/>",
        "IncCounter": "<l:IncCounter><l:name>%s</l:name></l:IncCounter>" % name,
        "GetCounter": "<l:GetCounter><l:name>%s</l:name></l:GetCounter>" % name,
        "EchoDataSamples": "<l:EchoDataSamples><l:samples><l:sample><l:firstname>Zürich</l:firstname>"
                           "<l:lastname>東京</l:lastname><l:city>c</l:city><l:zip>1</l:zip><l:email>e</l:email>"
                           "<l:contactNos/><l:designation>d</l:designation><l:experience>1</l:experience>"
                           "<l:salary>0.5</l:salary><l:companiesWorkedFor><l:item>a</l:item></l:companiesWorkedFor>"
                           "<l:dateOfBirth>1980-02-29T13:45:30+02:00</l:dateOfBirth><l:isMarried>true</l:isMarried>"
                           "<l:children/></l:sample></l:samples></l:EchoDataSamples>",
    }
    answers = []  # (label, status, headers, body, expected wrapper or None for a fault)
    for op, body in requests_.items():
        status, headers, data = http(url, envelope(body), {"Content-Type": "text/xml; charset=utf-8",
                                                           "SOAPAction": '"urn:lather:v1#%s"' % op})
        answers.append((op, status, headers, data, op + "Response"))
    status, headers, data = http(url, envelope("<l:Increment><l:value>2147483647</l:value></l:Increment>"),
                                 {"Content-Type": "text/xml; charset=utf-8", "SOAPAction": '"urn:lather:v1#Increment"'})
    answers.append(("Increment(2147483647)", status, headers, data, None))

    for label, status, headers, data, wrapper in answers:
        def structure(data=data, wrapper=wrapper):
            problems = []
            if b"<!DOCTYPE" in data:
                problems.append("R1008 a DOCTYPE")
            doc = etree.fromstring(data)
            tree = doc.getroottree()
            if any(isinstance(n, etree._ProcessingInstruction) for n in doc.iter()) or \
                    any(isinstance(n, etree._ProcessingInstruction) for n in doc.itersiblings(preceding=True)):
                problems.append("R1009 a processing instruction")
            if doc.tag != "{%s}Envelope" % ENV:
                problems.append("document element %s" % doc.tag)
            children = [c for c in doc if isinstance(c.tag, str)]
            if not children or children[-1].tag != "{%s}Body" % ENV:
                problems.append("R1011 Envelope children %s (Body must be last)" % [c.tag for c in children])
            if [c.tag for c in children if c.tag != "{%s}Header" % ENV][:1] != ["{%s}Body" % ENV]:
                problems.append("Envelope children %s" % [c.tag for c in children])
            for e in doc.iter():
                if isinstance(e.tag, str) and e.get("{%s}encodingStyle" % ENV) is not None:
                    problems.append("R1005/R1006 soap:encodingStyle on %s" % e.tag)
            for e in [doc] + children:
                if any(a.startswith("{%s}" % ENV) for a in e.attrib):
                    problems.append("R1032 soap-namespace attribute on %s" % e.tag)
            if "xml" in (doc.nsmap or {}):
                problems.append("R1033 xmlns:xml declared")
            body = doc.find("{%s}Body" % ENV)
            kids = [c for c in body if isinstance(c.tag, str)]
            if len(kids) != 1:
                problems.append("Body has %d children" % len(kids))
            for k in kids:
                if etree.QName(k).namespace is None:
                    problems.append("R1014 unqualified Body child %s" % k.tag)
            if wrapper is not None and kids:
                if kids[0].tag != "{%s}%s" % (TNS, wrapper):
                    problems.append("R2712 Body child %s, expected {%s}%s" % (kids[0].tag, TNS, wrapper))
                elif not schema.validate(etree.fromstring(etree.tostring(kids[0]))):
                    problems.append("R2712 Body child is not valid against the WSDL's schema: %s"
                                    % schema.error_log.last_error)
            if wrapper is None and kids:
                fault = kids[0]
                if fault.tag != "{%s}Fault" % ENV:
                    problems.append("R1107 Body child %s is not soap:Fault" % fault.tag)
                names = [c.tag for c in fault if isinstance(c.tag, str)]
                if not set(names) <= {"faultcode", "faultstring", "faultactor", "detail"}:
                    problems.append("R1000/R1001 Fault children %s (only unqualified faultcode, faultstring, "
                                    "faultactor, detail)" % names)
                code = fault.findtext("faultcode") or ""
                ns, local = qname(fault.find("faultcode"), code) if fault.find("faultcode") is not None else (None, "")
                if ns is None or (ns == ENV and local not in ("VersionMismatch", "MustUnderstand", "Client", "Server")):
                    problems.append("R1004 faultcode %r" % code)
                if "." in local:
                    problems.append("R1031 faultcode %r uses the dot notation" % code)
            return "; ".join(problems)

        rep.run("R1008/R1009/R1011/R1014/R1005/R1032/R2712%s" % ("" if wrapper else "/R1000/R1001/R1004/R1031"),
                "%s response: no DTD/PI, Body last, one qualified Body child %s" %
                (label, "valid against the schema" if wrapper else "that is a well-formed Fault"), structure)

        media = headers.get("Content-Type", "")
        rep.must("R1012/R1018", "%s response is UTF-8 and its Content-Type says so" % label,
                 None if re.match(r"text/xml;\s*charset=\"?utf-8\"?$", media, re.I)
                 and re.match(rb'<\?xml version="1.0" encoding="UTF-8"\?>', data) else
                 "Content-Type %r, prolog %r" % (media, data[:50]))
        if wrapper:
            rep.should("R1110/R1124", "%s response (not a fault) is 200 OK" % label,
                       None if status == 200 else evidence(status, data))
        else:
            rep.must("R1126", "%s fault response is 500 Internal Server Error" % label,
                     None if status == 500 else evidence(status, data))


def receiver_checks(rep, url):
    ct = {"Content-Type": "text/xml; charset=utf-8"}

    def fault_code(data):
        doc = etree.fromstring(data)
        code = doc.findtext("{%s}Body/{%s}Fault/faultcode" % (ENV, ENV)) or ""
        return code.rpartition(":")[2]

    def expect_fault(request, code, headers=None):
        status, _, data = http(url, request, dict(ct, **(headers or {"SOAPAction": '""'})))
        got = fault_code(data) if data.startswith(b"<?xml") else ""
        return None if (status, got) == (500, code) else "expected 500 %s fault; got %s" % (code, evidence(status, data))

    def expect_ok(request, headers, needle):
        status, _, data = http(url, request, dict(ct, **headers))
        return None if status == 200 and needle in data else evidence(status, data)

    hello = envelope("<l:HelloWorld/>")
    rep.must("R1015", "a document element other than soap:Envelope gets a Client fault",
             expect_fault(b'<l:HelloWorld xmlns:l="urn:lather:v1"/>', "Client"))
    mu = '<s:Header><x:h xmlns:x="urn:example:unknown" s:mustUnderstand="1">v</x:h></s:Header>'
    rep.must("R1027", "a mustUnderstand=\"1\" header addressed to us that we do not know gets a MustUnderstand fault",
             expect_fault(envelope("<l:HelloWorld/>", mu), "MustUnderstand"))
    name = "wsi-mu-%s" % uuid.uuid4().hex

    def mu_before_processing():
        problem = expect_fault(envelope("<l:IncCounter><l:name>%s</l:name></l:IncCounter>" % name, mu), "MustUnderstand")
        if problem:
            return problem
        status, _, data = http(url, envelope("<l:GetCounter><l:name>%s</l:name></l:GetCounter>" % name),
                               dict(ct, SOAPAction='""'))
        return None if b">0</" in data else "IncCounter ran despite the MustUnderstand fault: " + evidence(status, data)
    rep.run("R1025", "mandatory headers are checked before any processing (the faulted IncCounter counted nothing)",
            mu_before_processing)
    rep.must("R1027", "a mustUnderstand header for another actor is ignored",
             expect_ok(envelope("<l:HelloWorld/>", '<s:Header><x:h xmlns:x="urn:example:unknown" s:mustUnderstand="1" '
                                's:actor="urn:example:someone-else"/></s:Header>'), {"SOAPAction": '""'}, b"Hello World"))
    rep.must("R2725", "VersionMismatch is checked before MustUnderstand and Client",
             expect_fault(envelope("<l:Increment><l:value>x</l:value></l:Increment>",
                                   '<s:Header><x:h xmlns:x="urn:x" s:mustUnderstand="1"/></s:Header>',
                                   env_ns="urn:example:not-a-soap-envelope"), "VersionMismatch"))
    rep.must("R2725", "MustUnderstand is checked before Client",
             expect_fault(envelope("<l:Increment><l:value>x</l:value></l:Increment>", mu), "MustUnderstand"))
    for what, headers in (("no SOAPAction header", {}), ("SOAPAction \"\"", {"SOAPAction": '""'}),
                          ("the .NET form \"urn:lather:v1/HelloWorld\"", {"SOAPAction": '"urn:lather:v1/HelloWorld"'})):
        rep.must("R1127", "dispatch does not rely on SOAPAction: HelloWorld with %s is answered" % what,
                 expect_ok(hello, headers, b"Hello World"))
    status, _, data = http(url, hello, dict(ct, SOAPAction="urn:lather:v1#HelloWorld"))
    rep.line("PASS" if status in (200, 500) else "FAIL", "R1119",
             "an unquoted SOAPAction MAY be faulted; the service %s" % ("accepts it" if status == 200 else "faults it"))
    rep.must("R4001", "a request starting with the UTF-8 byte order mark is accepted",
             expect_ok(b"\xef\xbb\xbf" + hello, {"SOAPAction": '""'}, b"Hello World"))
    rep.must("R1017", "xsi:type is not required (and tolerated when present)",
             expect_ok(envelope('<l:Increment><l:value xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                                'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xsi:type="xsd:int">1</l:value></l:Increment>'),
                       {"SOAPAction": '""'}, b">2</"))
    for what, body in (("an unknown element in the wrapper",
                        "<l:Increment><l:value>1</l:value><l:bogus>2</l:bogus></l:Increment>"),
                       ("an unqualified child of the wrapper", "<l:Increment><value>1</value></l:Increment>"),
                       ("a value that is not an xsd:int", "<l:Increment><l:value>abc</l:value></l:Increment>"),
                       ("an unqualified Body child (R1014)", "<HelloWorld/>"),
                       ("an element after soap:Body (R1011)", None),
                       ("two Body children (R2201/R2712: one wrapper element)",
                        "<l:Increment><l:value>1</l:value></l:Increment><l:Increment><l:value>5</l:value></l:Increment>"),
                       ("an empty Body", "")):
        request = envelope(body) if body is not None else envelope("<l:HelloWorld/>").replace(
            b"</s:Body>", b"</s:Body><l:extra/>")
        rep.should("R2724", "an envelope inconsistent with the WSDL gets a Client fault: %s" % what,
                   expect_fault(request, "Client"))

    status, headers, data = http(url, method="GET")
    rep.should("R1114", "GET /soap is answered 405 Method Not Allowed", None if status == 405 else evidence(status, data))
    status415, _, data415 = http(url, b"{}", {"Content-Type": "application/json"})
    rep.should("R1115", "a Content-Type the binding does not allow is answered 415",
               None if status415 == 415 else evidence(status415, data415))
    for label, (st, da) in (("405", (status, data)), ("415", (status415, data415))):
        if st != 500 and b"Fault>" in da:
            rep.line("NOTE", "R1126", "the HTTP-layer %s answer carries a SOAP Fault although it is not 500" % label,
                     "a deviation docs/contract.md documents (every client sees a reason); " + evidence(st, da, 400))
    utf16 = ('<?xml version="1.0" encoding="UTF-16"?>' + envelope("<l:HelloWorld/>").decode()[38:]).encode("utf-16")
    status, _, data = http(url, utf16, {"Content-Type": "text/xml; charset=utf-16", "SOAPAction": '""'})
    if status != 200:
        rep.line("NOTE", "R1012", "a UTF-16 envelope (which R1012 allows a sender to use) is refused",
                 "a deviation docs/contract.md documents (UTF-8 only); XML 1.0 section 4.3.3 asks every processor to "
                 "read UTF-16; " + evidence(status, data, 400))
    else:
        rep.line("PASS", "R1012", "a UTF-16 envelope is accepted")


def main():
    if len(sys.argv) != 2:
        print("usage: %s <path/to/lather-service>" % sys.argv[0], file=sys.stderr)
        return 2
    rep = Report()
    with tempfile.TemporaryDirectory(prefix="lather-wsi-") as workdir:
        try:
            proc, port = start_service(os.path.abspath(sys.argv[1]), workdir)
        except Exception as exc:  # noqa: BLE001
            rep.line("FAIL", "-", "service starts", str(exc))
            return 1
        try:
            url = "http://127.0.0.1:%d/soap" % port
            status, headers, raw = http(url + "?wsdl")
            rep.must("-", "GET /soap?wsdl is 200 text/xml",
                     None if status == 200 and headers.get("Content-Type", "").startswith("text/xml")
                     else evidence(status, raw))
            _, schemas = wsdl_checks(rep, raw)
            message_checks(rep, url, schemas[0])
            receiver_checks(rep, url)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            rep.line("FAIL", "-", "the checks ran to the end without an unexpected exception")
        finally:
            status = stop_service(proc)
            rep.must("-", "service exits 0 on SIGTERM", None if status == 0 else "exit status %r" % status)
    c = rep.counts
    print("%d passed, %d failed, %d warnings, %d notes" % (c["PASS"], c["FAIL"], c["WARN"], c["NOTE"]))
    return 1 if c["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
