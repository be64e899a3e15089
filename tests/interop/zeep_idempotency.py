#!/usr/bin/python3
"""Interop example: idempotent IncCounter from python3-zeep with a WS-Addressing wsa:MessageID.

Usage: /usr/bin/python3 tests/interop/zeep_idempotency.py <path/to/lather-service>

Two ways a zeep user sends the header: an lxml element passed as _soapheaders (the retry sends the
same id), and zeep's own WsAddressingPlugin (wsa:Action, wsa:To and a fresh wsa:MessageID per call).
Checks over SOAP 1.1 and 1.2: a repeated id answers the first value and counts once, a new id counts,
the id reused for another counter is a Client/Sender fault that changes nothing. Prints one line per
check and "N passed, M failed"; exits non-zero on any failure.
"""

import os
import sys
import tempfile
import traceback
import uuid

import zeep
import zeep.exceptions
import zeep.wsa
from lxml import etree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zeep_interop import Results, read_log, start_service, stop_service  # noqa: E402

WSA = "http://www.w3.org/2005/08/addressing"


def message_id(text):
    element = etree.Element("{%s}MessageID" % WSA)
    element.text = text
    return element


def checks(results, client, port_name, wsa_client):
    service = client.bind("LatherService", port_name)
    label = port_name
    name = "zeep-idem-" + port_name
    first_id = "urn:uuid:%s" % uuid.uuid4()
    first = service.IncCounter(name, _soapheaders=[message_id(first_id)])
    results.record("%s: first IncCounter with a wsa:MessageID answers 1" % label, first == 1, "got %r" % first)
    retry = service.IncCounter(name, _soapheaders=[message_id(first_id)])
    results.record("%s: the retry with the same id answers the first value" % label, retry == first, "got %r" % retry)
    results.record("%s: the counter counted it once" % label, service.GetCounter(name) == 1)
    second = service.IncCounter(name, _soapheaders=[message_id("urn:uuid:%s" % uuid.uuid4())])
    results.record("%s: a new id counts" % label, second == 2, "got %r" % second)
    try:
        service.IncCounter(name + "-other", _soapheaders=[message_id(first_id)])
        results.record("%s: the id reused for another counter is a fault" % label, False, "no fault")
    except zeep.exceptions.Fault as fault:
        results.record("%s: the id reused for another counter is a fault" % label,
                       "already used" in (fault.message or ""), "got %r" % fault.message)
    results.record("%s: the refused request changed nothing" % label, service.GetCounter(name + "-other") == 0)
    # zeep's WS-Addressing plugin: a fresh id per call, so two calls count twice.
    plugged = wsa_client.bind("LatherService", port_name)
    a = plugged.IncCounter(name)
    b = plugged.IncCounter(name)
    results.record("%s: WsAddressingPlugin calls (a new id each) both count" % label, (a, b) == (3, 4),
                   "got %r" % ((a, b),))


def main():
    if len(sys.argv) != 2:
        print("usage: %s <path/to/lather-service>" % sys.argv[0], file=sys.stderr)
        return 2
    results = Results()
    crashed = False
    with tempfile.TemporaryDirectory(prefix="lather-zeep-idem-") as workdir:
        proc, port, log_path = start_service(os.path.abspath(sys.argv[1]), workdir)
        try:
            wsdl = "http://127.0.0.1:%d/soap?wsdl" % port
            client = zeep.Client(wsdl)
            wsa_client = zeep.Client(wsdl, plugins=[zeep.wsa.WsAddressingPlugin()])
            for port_name in ("LatherSoap", "LatherSoap12"):
                checks(results, client, port_name, wsa_client)
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
    sys.exit(main())
