#!/usr/bin/python3
"""bench/fast-path-share's suds driver: ordinary calls through python3-suds built from ?wsdl (SOAP 1.1 only).

usage: /usr/bin/python3 suds_driver.py WSDL_URL 11 N COUNTER
N Increment calls (values 41, 42, ...), then HelloWorld, IncCounter(COUNTER), GetCounter(COUNTER) through
port LatherSoap. Prints one summary line; exit 1 on any wrong answer.
"""
import logging
import sys

import suds.client


def main():
    wsdl, version, count, counter = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    if version != "11":
        sys.exit("suds speaks SOAP 1.1 only")
    logging.basicConfig(level=logging.CRITICAL)
    client = suds.client.Client(wsdl, cache=None, timeout=10, port="LatherSoap")
    svc = client.service
    failed = 0
    for i in range(count):
        failed += svc.Increment(41 + i) != 42 + i
    failed += svc.HelloWorld() != "Hello World"
    first = svc.IncCounter(counter)
    failed += svc.GetCounter(counter) != first
    print("suds: %d calls, %d wrong answers" % (count + 3, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
