#!/usr/bin/python3
"""bench/fast-path-share's zeep driver: ordinary calls through python3-zeep's client built from ?wsdl.

usage: /usr/bin/python3 zeep_driver.py WSDL_URL 11|12 N COUNTER
N Increment calls (values 41, 42, ...), then HelloWorld, IncCounter(COUNTER), GetCounter(COUNTER), through
port LatherSoap (11) or LatherSoap12 (12). Prints one "ok"/"FAIL" line per call; exit 1 on any failure.
"""
import sys

import requests
import zeep
import zeep.transports


def main():
    wsdl, version, count, counter = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    session = requests.Session()
    session.trust_env = False  # never through an environment proxy to 127.0.0.1
    client = zeep.Client(wsdl, transport=zeep.transports.Transport(session=session, timeout=10))
    svc = client.bind("LatherService", "LatherSoap" if version == "11" else "LatherSoap12")
    failed = 0
    for i in range(count):
        got = svc.Increment(41 + i)
        failed += got != 42 + i
    failed += svc.HelloWorld() != "Hello World"
    first = svc.IncCounter(counter)
    failed += svc.GetCounter(counter) != first
    print("zeep: %d calls, %d wrong answers" % (count + 3, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
