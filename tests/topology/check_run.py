#!/usr/bin/python3
"""tests/topology/check_run.py: checks one lather-stress --json report of a staged scenario.

usage: check_run.py REPORT.json --connections N [--limit WORD] [--saturated-thread client|server]
                    [--serializing yes|no] [--half-duplex] [--namespaced] [--min-unloaded SECONDS]

Prints one line per check, "ok ..." or "FAIL ...", then the verdict's text. Exits 0 when all passed, 1 when
an invariant failed, 2 when only expectations failed (the verdict's word, saturated thread, serializing,
unloaded latency: what the scenario should make it say, which a busy host can change).
No timing thresholds: the checks are on which resource the verdict names and on the figures agreeing with
each other and with physics.

The invariants, checked in every scenario:
  - calls: some succeeded, none failed; calls/s = ok / window; the verdict's calls/s is the same figure
  - closed model, one call in flight per connection: calls/s x mean latency (Little's law: the calls in
    flight on average) is at most the connections
  - no utilization above 1.0 (client, server, network, network up, network down; -1 = unknown)
  - no busiest-thread share above one core, nor above the cores its process used
  - every known ceiling (-1 = unknown) >= the calls/s achieved (x 0.999 for rounding)
  - network_utilization is the busier direction (full duplex) or the sum of both (--half-duplex), and
    bytes.half_duplex says which
  - each direction's utilization = its wire bytes per call x 8 x calls/s / the link's bits per second;
    with no link judged (network_ceiling -1, e.g. loopback without --link) every network share is -1
  - the named limit (network, server CPU, client CPU) has a known ceiling, the lowest of the known ones,
    and within 1/0.8 of the calls/s achieved (a saturated resource cannot have much room left)
With --namespaced (the target is in the other namespace, over a veth):
  - the interface is not lo
  - the interface counters agree with the socket counts plus TCP/IP: on the client's veth end,
        interface_tx_bytes = socket_sent_per_call x calls + interface_tx_packets x OVERHEAD
        interface_rx_bytes = socket_received_per_call x calls + interface_rx_packets x OVERHEAD
    within 5% (calls in flight at the window's edges are counted by the interface and not as calls)
  - wire_up/down_bytes_per_call are those interface bytes per call, and wire_bytes_per_call their sum

OVERHEAD = 66 bytes per packet on a veth: 14 (Ethernet header: /proc/net/dev counts the frame without its
FCS) + 20 (IPv4, no options) + 32 (TCP with the timestamp option, which Linux negotiates by default).
Measured once on this kernel (6.18, veth, namespaces as in netns.sh): 20,000 Increment calls on one
connection (lather-stress -c 1 -n 20000), the client end's counters read before and after: 20,038 packets
sent, 8,822,908 bytes = 375 socket bytes x 20,000 + 66.02 bytes per packet (the 0.02: the handshake's
SYN carries 20 bytes of options more). One packet per call each way: the ACKs ride on the answers and
the next requests. Segments here are all below one MSS, so no GSO packet stands for several.
"""
import argparse
import json
import math
import sys

OVERHEAD = 66
UNKNOWN = -1
SATURATED = 0.8  # docs/stress.md: saturated at 85% of capacity; 0.8 leaves room for rounding


class Checker:
    """Counts failures apart: an expectation (what the scenario should make the verdict say) can fail
    because the host was busy; an invariant (figures agreeing with each other) cannot."""

    def __init__(self):
        self.failed = 0
        self.failed_invariants = 0

    def check(self, ok, what, expectation=False):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.failed += 1
            self.failed_invariants += 0 if expectation else 1
        return ok


def known(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x != UNKNOWN


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def get(report, dotted, missing):
    node = report
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            missing.append(dotted)
            return None
        node = node[part]
    return node


def main():
    p = argparse.ArgumentParser()
    p.add_argument("report")
    p.add_argument("--connections", type=int, required=True)
    p.add_argument("--limit")
    p.add_argument("--saturated-thread", choices=("client", "server"))
    p.add_argument("--serializing", choices=("yes", "no"))
    p.add_argument("--half-duplex", action="store_true")
    p.add_argument("--namespaced", action="store_true")
    p.add_argument("--min-unloaded", type=float, help="the unloaded latency is at least this (s)")
    a = p.parse_args()

    with open(a.report) as f:
        r = json.load(f)
    c = Checker()
    missing = []
    v = lambda k: get(r, "verdict." + k, missing)  # noqa: E731
    b = lambda k: get(r, "bytes." + k, missing)  # noqa: E731

    limit = v("limit")
    text = v("text") or ""
    cps = v("calls_per_second")
    ok_calls = get(r, "calls.ok", missing)
    failed = get(r, "calls.failed", missing)
    window = get(r, "calls.window_seconds", missing)
    calls_cps = get(r, "calls.calls_per_second", missing)
    mean_s = (get(r, "latency.mean_ns", missing) or 0) / 1e9
    verdict_cps_known = cps is not None
    if cps is None:  # reported missing above; the checks below still run on the calls' own figure
        cps = calls_cps

    # What the verdict names.
    if a.limit is not None:
        c.check(limit == a.limit, f"verdict.limit is {a.limit!r} (got {limit!r})", expectation=True)
    c.check(bool(limit) and limit in text, f"verdict.text names the limit ({limit!r})")
    if a.saturated_thread is not None:
        got = v("saturated_thread")
        c.check(got == a.saturated_thread, f"verdict.saturated_thread is {a.saturated_thread!r} (got {got!r})",
                expectation=True)
    if a.serializing is not None:
        got = v("serializing")
        c.check(got is (a.serializing == "yes"), f"verdict.serializing is {a.serializing == 'yes'} (got {got!r})",
                expectation=True)
    if a.min_unloaded is not None:
        got = v("unloaded_latency_seconds")
        c.check(known(got) and got >= a.min_unloaded,
                f"verdict.unloaded_latency_seconds >= {a.min_unloaded} s: every call takes that long (got {got!r})",
                expectation=True)

    # Calls.
    c.check(known(ok_calls) and ok_calls > 0, f"calls.ok > 0 (got {ok_calls!r})")
    c.check(failed == 0, f"calls.failed == 0 (got {failed!r})")
    if known(ok_calls) and known(window) and window > 0 and known(calls_cps):
        c.check(close(calls_cps, ok_calls / window, 0.001),
                f"calls.calls_per_second {calls_cps:.1f} = ok / window = {ok_calls / window:.1f}")
    if verdict_cps_known and known(cps) and known(calls_cps):
        c.check(close(cps, calls_cps, 0.001), f"verdict.calls_per_second {cps:.1f} = calls.calls_per_second {calls_cps:.1f}")
    if known(cps) and mean_s > 0:
        in_flight = cps * mean_s
        c.check(in_flight <= a.connections * 1.01,
                f"Little's law: calls/s x mean latency = {in_flight:.2f} calls in flight <= {a.connections} connections")

    # Utilizations and thread peaks.
    for k in ("client_utilization", "server_utilization", "network_utilization",
              "network_up_utilization", "network_down_utilization"):
        u = v(k)
        if u is None:
            continue
        c.check(u == UNKNOWN or 0 <= u <= 1.0, f"verdict.{k} {u:.4f} is within 0..1 (or -1)")
    for side in ("client", "server"):
        peak = v(f"{side}_thread_peak")
        used = get(r, f"cpu.{side}_cores_used", missing)
        if peak is None:
            continue
        c.check(peak == UNKNOWN or 0 <= peak <= 1.0, f"verdict.{side}_thread_peak {peak:.4f} is within one core (or -1)")
        if known(peak) and known(used) and used >= 0:
            c.check(peak <= used + 0.02,
                    f"verdict.{side}_thread_peak {peak:.3f} <= cpu.{side}_cores_used {used:.3f} (one thread of the process)")

    # Ceilings.
    ceilings = {}
    for k in ("client_ceiling", "server_ceiling", "network_ceiling"):
        x = v(k)
        if x is None or not known(cps):
            continue
        if known(x):
            ceilings[k] = x
        c.check(x == UNKNOWN or x >= cps * 0.999, f"verdict.{k} {x:,.0f} >= calls/s {cps:,.1f} (or -1)")
    own = {"network": "network_ceiling", "server CPU": "server_ceiling", "client CPU": "client_ceiling"}.get(limit)
    if own is not None:
        c.check(own in ceilings, f"the limit {limit!r} has a known {own}")
    if own is not None and own in ceilings:
        lowest = min(ceilings, key=ceilings.get)
        c.check(ceilings[own] <= ceilings[lowest] * 1.0001,
                f"the limit's {own} {ceilings[own]:,.0f} is the lowest known ceiling (lowest: {lowest} {ceilings[lowest]:,.0f})")
        c.check(ceilings[own] <= cps / SATURATED,
                f"the limit's {own} {ceilings[own]:,.0f} <= calls/s / {SATURATED} = {cps / SATURATED:,.0f} "
                f"(a saturated resource is within {1 / SATURATED:.2f}x of what it achieved)")

    # The network: duplex, per-direction shares, bytes.
    net, up, down = v("network_utilization"), v("network_up_utilization"), v("network_down_utilization")
    half = b("half_duplex")
    c.check(half is a.half_duplex, f"bytes.half_duplex is {a.half_duplex} (got {half!r})")
    if known(net) and known(up) and known(down):
        if a.half_duplex:
            c.check(abs(net - (up + down)) <= 0.005,
                    f"half duplex: network_utilization {net:.4f} = up {up:.4f} + down {down:.4f}")
        else:
            c.check(abs(net - max(up, down)) <= 0.005,
                    f"full duplex: network_utilization {net:.4f} = the busier of up {up:.4f}, down {down:.4f}")
    link = b("link_bits_per_second")
    wire_up, wire_down, wire = b("wire_up_bytes_per_call"), b("wire_down_bytes_per_call"), b("wire_bytes_per_call")
    no_wire = v("network_ceiling") == UNKNOWN
    if no_wire:  # no link to judge (loopback without --link): a share of it is unknown too, not 0
        for k, share in (("network_utilization", net), ("network_up_utilization", up), ("network_down_utilization", down)):
            c.check(share == UNKNOWN, f"network_ceiling is -1 (no link judged), so verdict.{k} is -1 too (got {share!r})")
    elif known(cps) and known(link) and link > 0:
        for name, share, per_call in (("up", up, wire_up), ("down", down, wire_down)):
            if known(share) and known(per_call):
                expect = per_call * 8 * cps / link
                c.check(close(share, expect, 0.02),
                        f"network_{name}_utilization {share:.4f} = wire_{name} {per_call:.1f} B x 8 x {cps:,.0f}/s / "
                        f"{link:,.0f} bit/s = {expect:.4f}")
    if known(wire_up) and known(wire_down) and known(wire):
        c.check(close(wire, wire_up + wire_down, 0.01),
                f"wire_bytes_per_call {wire:.1f} = up {wire_up:.1f} + down {wire_down:.1f}")

    if a.namespaced:
        iface = b("interface")
        c.check(iface not in (None, "", "lo"), f"bytes.interface is the veth, not lo (got {iface!r})")
        sent, received = b("socket_sent_per_call"), b("socket_received_per_call")
        tx, rx = b("interface_tx_bytes"), b("interface_rx_bytes")
        txp, rxp = b("interface_tx_packets"), b("interface_rx_packets")
        if all(known(x) for x in (sent, received, tx, rx, txp, rxp, ok_calls)) and ok_calls > 0:
            for name, counted, socket_bytes, packets in (("tx", tx, sent, txp), ("rx", rx, received, rxp)):
                expect = socket_bytes * ok_calls + packets * OVERHEAD
                c.check(close(counted, expect, 0.05),
                        f"interface_{name}_bytes {counted:,} = socket {socket_bytes:.1f} B x {ok_calls:,} calls + "
                        f"{packets:,} packets x {OVERHEAD} B = {expect:,.0f} ({(counted / expect - 1) * 100:+.2f}%)")
                residue = (counted - socket_bytes * ok_calls) / packets if packets else math.nan
                print(f"     {name}: {residue:.2f} bytes per packet beyond the socket bytes")
            for name, per_call, counted in (("up", wire_up, tx), ("down", wire_down, rx)):
                if known(per_call):
                    c.check(close(per_call * ok_calls, counted, 0.05),
                            f"wire_{name}_bytes_per_call {per_call:.1f} x {ok_calls:,} calls = the interface's {counted:,}")

    if missing:
        c.check(False, "fields missing from the report: " + ", ".join(sorted(set(missing))))
    print("verdict: " + " ".join(text.split()))
    print(f"{c.failed} check(s) failed ({c.failed_invariants} of them invariants)" if c.failed else "all checks passed")
    if c.failed_invariants:
        return 1
    return 2 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
