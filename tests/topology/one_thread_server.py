#!/usr/bin/python3
"""tests/topology/one_thread_server.py: a foreign SOAP server for the staged scenarios, in ONE thread.

Answers the contract's Increment (SOAP 1.1, POST /soap, docs/contract.md and CONTRACT.md: the request's
<l:value>N</l:value> inside <l:Increment>, the answer <l:IncrementResponse><l:result>N+1</l:result>) over
HTTP/1.1 keep-alive, with asyncio on its one thread: no executor, no helper thread (the address is numeric,
so asyncio resolves nothing in a thread pool). Every request body is parsed with xml.etree (a real XML
parse, not a scan) and the response is built from strings, so the thread's CPU is the cost of a call.

Modes (--mode):
  cpu        answer at once: the thread is busy the whole time a call is in it (CPU-bound)
  serialize  each call sleeps --sleep-ms (2 ms) while holding one global asyncio.Lock: calls wait, using no
             CPU, one at a time (a server that serialises on a lock, a single database connection...)
  sleep      each call sleeps --sleep-ms without the lock: calls wait concurrently

usage: one_thread_server.py --listen HOST:PORT [--port-file FILE] [--mode cpu|serialize|sleep] [--sleep-ms 2]
The port (useful with :0) is printed on stdout and written to --port-file. Stops on SIGTERM or SIGINT.
"""
import argparse
import asyncio
import email.utils
import os
import signal
import sys
import threading
import xml.etree.ElementTree as ET

SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
LATHER = "urn:lather:v1"
VALUE_PATH = f"{{{SOAP11}}}Body/{{{LATHER}}}Increment/{{{LATHER}}}value"
INT_MAX = 2147483647


def envelope(body):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<soap:Envelope xmlns:soap="{SOAP11}" xmlns:l="{LATHER}">'
            f'<soap:Body>{body}</soap:Body></soap:Envelope>').encode()


def fault(code, reason):
    return 500, envelope(f"<soap:Fault><faultcode>soap:{code}</faultcode><faultstring>{reason}</faultstring></soap:Fault>")


def answer(method, target, body):
    """The status and SOAP body for one request."""
    if method != "POST" or target != "/soap":
        return fault("Client", "only POST /soap is served here")
    try:
        value_element = ET.fromstring(body).find(VALUE_PATH)
        if value_element is None:
            return fault("Client", "the Body holds no Increment with a value")
        value = int(value_element.text.strip())
    except (ET.ParseError, ValueError, AttributeError) as e:
        return fault("Client", f"not an Increment request: {e}")
    if value >= INT_MAX or value < -INT_MAX - 1:
        return fault("Client", "value + 1 is not an xsd:int")
    return 200, envelope(f"<l:IncrementResponse><l:result>{value + 1}</l:result></l:IncrementResponse>")


def http_response(status, body, keep_alive):
    reason = "OK" if status == 200 else "Internal Server Error"
    head = (f"HTTP/1.1 {status} {reason}\r\n"
            "Content-Type: text/xml; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\n"
            f"Date: {email.utils.formatdate(usegmt=True)}\r\n"
            + ("" if keep_alive else "Connection: close\r\n") +
            "\r\n")
    return head.encode() + body


class Server:
    def __init__(self, mode, sleep_seconds):
        self.mode = mode
        self.sleep_seconds = sleep_seconds
        self.lock = asyncio.Lock()

    async def serve(self, reader, writer):
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                parts = lines[0].split(" ")
                if len(parts) != 3:
                    return
                method, target, version = parts
                length = 0
                keep_alive = version == "HTTP/1.1"
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    name = name.strip().lower()
                    if name == "content-length":
                        length = int(value.strip())
                    elif name == "connection":
                        keep_alive = value.strip().lower() != "close"
                body = await reader.readexactly(length) if length else b""
                if self.mode == "serialize":
                    async with self.lock:
                        await asyncio.sleep(self.sleep_seconds)
                elif self.mode == "sleep":
                    await asyncio.sleep(self.sleep_seconds)
                status, soap = answer(method, target, body)
                writer.write(http_response(status, soap, keep_alive))
                await writer.drain()
                if not keep_alive:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()


async def main(args):
    host, _, port = args.listen.rpartition(":")
    server = Server(args.mode, args.sleep_ms / 1000.0)
    listener = await asyncio.start_server(server.serve, host, int(port), backlog=1024)
    bound = listener.sockets[0].getsockname()[1]
    print(bound, flush=True)
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(f"{bound}\n")
        os.replace(args.port_file + ".tmp", args.port_file)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with listener:
        await stop.wait()
    if threading.active_count() != 1:  # the premise of the scenarios: say it if it ever stops holding
        print(f"one_thread_server: {threading.active_count()} threads", file=sys.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--listen", required=True, help="HOST:PORT, numeric host; port 0 picks one")
    parser.add_argument("--port-file", help="write the bound port here")
    parser.add_argument("--mode", choices=("cpu", "serialize", "sleep"), default="cpu")
    parser.add_argument("--sleep-ms", type=float, default=2.0)
    asyncio.run(main(parser.parse_args()))
