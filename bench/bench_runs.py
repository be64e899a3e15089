"""What bench/overload and bench/slowloris share: an account of what a run really did, read from /proc and the
service's /metrics rather than taken from the tools' own word, and the rule that turns repeated runs into one
verdict.

  Watch       CPU of each process we started between two instants: run time (the sum of its threads'
              /proc/PID/task/TID/schedstat, in ns), user and system time, how long it was runnable but waiting
              for a core (schedstat's run delay: the time other programs took from it), its affinity and the
              cores its busy threads last ran on (/proc/PID/task/TID/stat field 39); and each core's busy share
              (/proc/stat), with what programs other than ours used of it.
  metrics()   the service's /metrics as {name{labels}: value}; received() the SOAP requests it read.
  Service     lather-service on 127.0.0.1 port 0 pinned to a core, always stopped (SIGTERM, then SIGKILL).
  Runs        per-run verdicts (PASS / FAIL / INVALID) of named targets, and the summary over runs: a target
              holds when it passed in every run; one valid run that failed makes it FAIL; otherwise a run
              whose set-up fell short makes it INVALID. Exit code 0 all PASS, 1 a FAIL, 2 INVALID.

Not a benchmark itself (no #! line); the scripts import it from their own folder.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

TICK = os.sysconf("SC_CLK_TCK")
WAITED_LIMIT = 0.10  # a process runnable but off its core for more than 10% of a phase: the phase is not clean


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def _stat_fields(path):
    """The fields of a /proc stat file after the command name (field 3 is index 0)."""
    with open(path) as f:
        text = f.read()
    return text[text.rindex(")") + 2:].split()


def _sample_process(pid):
    """{tid: (run_ns, delay_ns, utime, stime, last_cpu)} of every thread of `pid`; {} if it has exited."""
    threads = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return threads
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                run_ns, delay_ns, _ = (int(v) for v in f.read().split())
            fields = _stat_fields(f"/proc/{pid}/task/{tid}/stat")
            threads[tid] = (run_ns, delay_ns, int(fields[11]), int(fields[12]), int(fields[36]))
        except (OSError, ValueError):
            continue  # the thread ended between the listing and the read
    return threads


def _sample_cores():
    """{cpu: (tasks' ticks (user, nice, system), irq + softirq ticks, steal ticks, all ticks)} from /proc/stat."""
    cores = {}
    for line in open("/proc/stat"):
        m = re.match(r"^cpu(\d+) (.*)$", line)
        if m:
            v = [int(x) for x in m.group(2).split()] + [0] * 8
            cores[int(m.group(1))] = (v[0] + v[1] + v[2], v[5] + v[6], v[7], sum(v[:8]))
    return cores


def _ancestors(pid):
    """`pid` and the processes above it (their CPU includes what their finished children used)."""
    out = set()
    while pid > 1 and pid not in out:
        out.add(pid)
        try:
            pid = int(_stat_fields(f"/proc/{pid}/stat")[1])
        except (OSError, ValueError, IndexError):
            break
    return out


def _sample_others(ours):
    """{(pid, start time): (name, background, CPU ticks with its finished children's)} of every process not in
    `ours`.
    Background: SCHED_IDLE or SCHED_BATCH, or nice >= 10 (a build run under chrt -i 0 nice -n 19)."""
    others = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in ours:
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                text = f.read()
            name = text[text.index("(") + 1:text.rindex(")")]
            v = text[text.rindex(")") + 2:].split()
            ticks = int(v[11]) + int(v[12]) + int(v[13]) + int(v[14])
            # Keyed by PID and start time (field 22): a PID reused, or a kernel thread renamed, is no mix-up.
            others[(int(entry), int(v[19]))] = (name, int(v[38]) in (3, 5) or int(v[16]) >= 10, ticks)
        except (OSError, ValueError, IndexError):
            continue
    return others


def affinity(pid):
    try:
        return sorted(os.sched_getaffinity(pid))
    except OSError:
        return []


class Usage:
    """What one process did between two samples."""

    def __init__(self, name, pid, wall, before, after, cpus):
        self.name, self.pid, self.wall, self.affinity = name, pid, wall, cpus
        run = delay = user = system = 0
        self.ran_on = set()
        busiest_run = busiest_delay = 0
        for tid, a in after.items():
            b = before.get(tid, (0, 0, 0, 0, a[4]))
            thread_run, thread_delay = a[0] - b[0], a[1] - b[1]
            run += thread_run
            delay += thread_delay
            user += a[2] - b[2]
            system += a[3] - b[3]
            if thread_run > 0.01 * wall * 1e9:
                self.ran_on.add(a[4])
            if thread_run > busiest_run:
                busiest_run, busiest_delay = thread_run, thread_delay
        self.busiest = busiest_run / 1e9 / wall if wall > 0 else 0  # the busiest thread's share of a core
        # How long the busiest thread was runnable but off its core (other programs, or our own threads, had it).
        # The busiest thread's, not the sum: idle threads woken together (a signal) queue behind one another.
        self.waited = busiest_delay / 1e9 / wall if wall > 0 else 0
        self.alive = bool(after)
        self.cpu_seconds = run / 1e9
        self.cores = self.cpu_seconds / wall if wall > 0 else 0  # cores used (1.0: one core, all the time)
        self.all_waited = delay / 1e9 / wall if wall > 0 else 0  # every thread's wait, summed
        self.user_seconds, self.system_seconds = user / TICK, system / TICK

    def describe(self):
        where = ",".join(map(str, self.affinity)) if self.affinity else "?"
        ran = ",".join(map(str, sorted(self.ran_on))) or "-"
        return (f"{self.name} (pid {self.pid}) allowed cpu {where}, ran on cpu {ran}: {self.cores:.2f} cores "
                f"(user {self.user_seconds:.1f} s, system {self.system_seconds:.1f} s; busiest thread "
                f"{self.busiest:.0%}, waited for a core {self.waited:.1%} of the time)")


class Watch:
    """Samples our processes and the cores at start() and stop(); stop() returns a Phase."""

    def __init__(self, processes):
        self.processes = dict(processes)  # name -> pid
        if len(affinity(os.getpid())) == 1:  # this script, pinned: its work on that core is ours too
            self.processes.setdefault("this script", os.getpid())

    def add(self, name, pid):
        self.processes[name] = pid

    def _ours(self):
        return set(self.processes.values()) | _ancestors(os.getpid())

    def start(self):
        self.others0 = _sample_others(self._ours())
        self.t0 = time.monotonic()
        self.before = {name: _sample_process(pid) for name, pid in self.processes.items()}
        self.cores0 = _sample_cores()
        return self

    def stop(self):
        after = {name: _sample_process(pid) for name, pid in self.processes.items()}
        wall = time.monotonic() - self.t0
        cores1 = _sample_cores()
        others1 = _sample_others(self._ours())
        usages = {name: Usage(name, pid, wall, self.before.get(name, {}), after[name], affinity(pid))
                  for name, pid in self.processes.items()}
        phase = Phase(wall, usages, self.cores0, cores1)
        phase.set_others(self.others0, others1)
        return phase


class Phase:
    """The usages of one watched interval, and each core's busy share with the part other programs used."""

    def __init__(self, wall, usages, cores0, cores1):
        self.wall, self.usages = wall, usages
        self.cores = {}  # cpu -> (busy share, other programs' share, irq + softirq share, steal share)
        for cpu, now in cores1.items():
            then = cores0.get(cpu, now)
            total = now[3] - then[3]
            tasks, irq, steal = ((now[i] - then[i]) / total if total > 0 else 0 for i in range(3))
            ours = sum(u.cores for u in usages.values() if u.affinity == [cpu])
            self.cores[cpu] = (tasks + irq + steal, max(0.0, tasks - ours), irq, steal)

    def set_others(self, before, after):
        """Other programs' CPU by class (cores, whole machine): every process alive at the end of the phase
        (from its birth if it began during it); what /proc/stat says the cores spent outside our processes
        beyond that is `others_unseen` (programs that came and went)."""
        used = {}
        for key, (name, background, ticks) in after.items():
            start = before[key][2] if key in before else 0  # else it began during the phase
            t = (ticks - start) / TICK / self.wall if self.wall > 0 else 0
            if t > 0:
                used[key] = (name, background, t)
        normal = sum(t for _, b, t in used.values() if not b)
        background = sum(t for _, b, t in used.values() if b)
        # A parent's CPU counts its children when they end, perhaps a child that ran before the phase: no more
        # than /proc/stat says the cores spent outside our processes.
        seen = sum(c[1] for c in self.cores.values())
        scale = min(1.0, seen / (normal + background)) if normal + background > 0 else 1.0
        self.others_normal, self.others_background = normal * scale, background * scale
        self.others_unseen = max(0.0, seen - normal - background)
        self.others_top = [(n, b, t * scale) for n, b, t in sorted(used.values(), key=lambda x: -x[2])[:3]]

    def __getitem__(self, name):
        return self.usages[name]

    def lines(self, indent="    "):
        out = [indent + u.describe() for u in self.usages.values()]
        out.append(indent + "cores (/proc/stat, sampled at ticks): " + "; ".join(
            f"cpu {c} {busy:.0%} busy ({other:.0%} other programs, {irq:.0%} interrupts, {steal:.0%} stolen by the host)"
            for c, (busy, other, irq, steal) in sorted(self.cores.items())))
        if hasattr(self, "others_normal"):
            top = ", ".join(f"{n} {t:.0%}" + (" (background)" if b else "") for n, b, t in self.others_top)
            out.append(indent + f"other programs: {self.others_normal:.2f} cores at normal priority, "
                                f"{self.others_background:.2f} in the background, {self.others_unseen:.2f} by programs "
                                "that came and went" + (f" (most: {top})" if top else ""))
        return out

    def neighbours(self, limit=0.10):
        """None, or why a figure of this phase is not the service's alone: other programs at normal priority,
        or programs that came and went (of unknown priority, so counted as normal), used more than `limit` of
        a core (they delay our threads whenever they run)."""
        if not hasattr(self, "others_normal"):
            return None
        stolen = max(c[3] for c in self.cores.values()) if self.cores else 0
        if stolen > limit:
            return f"the host took {stolen:.0%} of a core from this machine (steal time): rerun when it is quiet"
        used = self.others_normal + self.others_unseen
        if used <= limit:
            return None
        top = ", ".join(f"{n} {t:.0%}" for n, b, t in self.others_top if not b)
        return (f"other programs used {used:.0%} of a core at normal priority or unknown ({top or 'short-lived'}): "
                "rerun when the machine is quiet")

    def crowded(self, names=None):
        """The watched processes (by name) that waited for a core more than WAITED_LIMIT of the phase."""
        return [u for n, u in self.usages.items() if (names is None or n in names) and u.waited > WAITED_LIMIT]


def crowding_reason(phase, names, what):
    """None, or why `what` is not a clean measurement: a process of ours waited for its core too long."""
    crowded = phase.crowded(names)
    if not crowded:
        return None
    worst = max(crowded, key=lambda u: u.waited)
    others = ", ".join(f"cpu {c}: {v[1]:.0%}" for c, v in sorted(phase.cores.items()))
    return (f"{what}: {worst.name} waited for its core {worst.waited:.0%} of the time (other programs used {others});"
            " rerun when the machine is quiet")


NET_COUNTERS = ("TcpRetransSegs", "TcpExtTCPTimeouts", "TcpExtListenOverflows", "TcpExtTCPRcvQDrop",
                "TcpExtTCPBacklogDrop", "TcpExtPruneCalled", "TcpExtTCPZeroWindowDrop")


def net_counters():
    """The machine's TCP counters (/proc/net/snmp and netstat; every program's traffic, not only ours)."""
    values = {}
    for path in ("/proc/net/snmp", "/proc/net/netstat"):
        lines = open(path).read().splitlines()
        for names, numbers in zip(lines[::2], lines[1::2]):
            prefix, _, keys = names.partition(": ")
            for k, v in zip(keys.split(), numbers.partition(": ")[2].split()):
                values[prefix + k] = int(v)
    return values


def net_line(before, after):
    """The TCP counters that moved between two net_counters() readings, as text."""
    moved = [f"{name.replace('TcpExt', '').replace('Tcp', '')} {after.get(name, 0) - before.get(name, 0):,}"
             for name in NET_COUNTERS if after.get(name, 0) != before.get(name, 0)]
    return "TCP (whole machine): " + (", ".join(moved) if moved else "no retransmits or drops")


def metrics(url, timeout=10):
    """The service's /metrics as {name or name{labels}: value}."""
    with urllib.request.urlopen(url.replace("/soap", "/metrics"), timeout=timeout) as r:
        text = r.read().decode()
    values = {}
    for line in text.splitlines():
        m = re.match(r"^([a-z_]+(?:\{[^}]*\})?) ([0-9.e+-]+)$", line)
        if m:
            values[m.group(1)] = float(m.group(2))
    return values


def delta(before, after, name):
    return after.get(name, 0) - before.get(name, 0)


def received(values):
    """Requests the service read and answered: every SOAP request counted, plus every HTTP-layer rejection."""
    return sum(v for k, v in values.items()
               if k.startswith("lather_requests_total{") or k.startswith("lather_http_rejections_total{"))


def bucket(name, le):
    return f'{name}_bucket{{le="{le:g}"}}'


STORE_SCHEMA = """
PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS message_ids (message_id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL,
  value INTEGER NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS message_ids_at ON message_ids (at);
"""


def prefill_message_ids(path, rows):
    """A SQLite store file at `path` prefilled with `rows` message ids shaped like WCF's urn:uuid (random, 45
    characters), remembered within the last hour (the service's schema, which it also creates itself with IF
    NOT EXISTS), by the sqlite3 shell (bench/idempotency-table, bench/commit-latency)."""
    now_ms = int(time.time() * 1000)
    sql = STORE_SCHEMA + f"""
PRAGMA synchronous=OFF;
PRAGMA cache_size=-1000000;
INSERT INTO message_ids
  SELECT 'urn:uuid:' || substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-a' ||
         substr(h, 18, 3) || '-' || substr(h, 21, 12), 'prefill', value, {now_ms} - 3600000 + value % 3600000
  FROM (SELECT lower(hex(randomblob(16))) AS h, value FROM generate_series(1, {rows}))
  ORDER BY 1;
PRAGMA wal_checkpoint(TRUNCATE);
"""
    r = subprocess.run(["sqlite3", path], input=sql, capture_output=True, text=True, timeout=3600)
    if r.returncode != 0:
        raise RuntimeError(f"prefilling {path}: {r.stderr.strip()}")


class Service:
    """lather-service --listen 127.0.0.1:0 pinned to `cpu`, in a folder of its own; stop() always ends it."""

    def __init__(self, build, cpu, args, name):
        self.folder = tempfile.mkdtemp(prefix=f"lather-{name}-")
        port_file = os.path.join(self.folder, "port")
        binary = os.path.join(build, "service", "lather-service")
        self.process = subprocess.Popen(
            ["taskset", "-c", str(cpu), binary, "--listen", "127.0.0.1:0", "--port-file", port_file,
             "--store", "sqlite:" + os.path.join(self.folder, "c.db")] + list(args), stderr=subprocess.DEVNULL)
        self.pid = self.process.pid  # taskset executes the service in its own process
        for _ in range(150):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            if self.process.poll() is not None:
                self.stop()
                sys.exit(f"{name}: lather-service exited at start")
            time.sleep(0.1)
        else:
            self.stop()
            sys.exit(f"{name}: lather-service did not start")
        self.port = int(open(port_file).read().strip())
        self.url = f"http://127.0.0.1:{self.port}/soap"

    def stop(self):
        if self.process.poll() is None:
            try:
                os.kill(self.pid, signal.SIGCONT)  # in case it was stopped (bench/overload's refusal phase)
            except ProcessLookupError:
                pass
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        subprocess.run(["rm", "-rf", self.folder], timeout=60)


class Runs:
    """Verdicts of named targets over repeated runs: record() one run's, summary() prints each and the worst."""

    def __init__(self, targets, needed=None):
        self.targets = list(targets)  # (key, wording, True if a higher value is better)
        # needed: a target holds when it held in this many valid runs (INVALID runs reported, not counted) and
        # failed in none; None: it must hold in every run, and one INVALID run makes it INVALID.
        self.needed = needed
        self.results = {key: [] for key, _, _ in self.targets}  # key -> [(verdict, figure text, value)]

    def record(self, key, verdict, figure, value):
        assert verdict in ("PASS", "FAIL", "INVALID")
        self.results[key].append((verdict, figure, value))
        return verdict

    def summary(self):
        """Prints one line per target with every run's verdict and figure and the worst run; returns the exit
        code (0 every target PASS, 1 one FAIL, 2 otherwise INVALID)."""
        code = 0
        for key, wording, higher_better in self.targets:
            rows = self.results[key]
            verdicts = [v for v, _, _ in rows]
            valid_count = len(verdicts) - verdicts.count("INVALID")
            short = (valid_count < self.needed) if self.needed else ("INVALID" in verdicts or not rows)
            overall = "FAIL" if "FAIL" in verdicts else "INVALID" if short else "PASS"
            per_run = "; ".join(f"run {i + 1} {v} {figure}" for i, (v, figure, _) in enumerate(rows))
            valid = [r for r in rows if r[0] != "INVALID"]
            worst = ""
            if valid:
                pick = min if higher_better else max
                w = pick(valid, key=lambda r: r[2])
                worst = f"; worst valid run: {w[1]}"
            elif rows:
                worst = "; no valid run"
            print(f"{overall}: {wording} [{len(rows)} runs: {per_run}{worst}]")
            code = max(code, {"PASS": 0, "INVALID": 2, "FAIL": 3}[overall])
        return {0: 0, 2: 2, 3: 1}[code]


def verdict(invalid_reasons, ok):
    return "INVALID" if invalid_reasons else "PASS" if ok else "FAIL"
