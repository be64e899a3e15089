"""What bench/hot-swap, bench/worker-crash, bench/hang, bench/soak and bench/workers-vs-threads share: a
lather-service --workers supervisor started on 127.0.0.1 port 0 whose stderr is read line by line and stamped
with this process's monotonic clock on arrival, lather-stress runs, /proc readings of the supervisor's
workers, the machine's own stops (StallMonitors), a verdict (PASS / FAIL / INVALID) and one clean-up that ends only the processes these benches
started, on a normal exit, an exception, SIGINT, SIGTERM or SIGHUP.

Not a benchmark itself (no #! line); the scripts import it from their own folder.
"""
import atexit
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Every process started here (Popen), ended in reverse order by CleanUp().
_started = []
# Worker PIDs seen under a supervisor started here: ended too, should one outlive its supervisor.
_worker_pids = set()
_folders = []
_cleaned = False


def clean_up():
    """Ends what these benches started (SIGTERM, then SIGKILL after a grace), removes their folders."""
    global _cleaned
    if _cleaned:
        return
    _cleaned = True
    for p in reversed(_started):
        if p.poll() is None:
            try:
                p.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + 20
    for p in reversed(_started):
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    for pid in _worker_pids:  # a worker gets SIGTERM when its supervisor dies (PR_SET_PDEATHSIG); in case
        if _alive_child_of_ours(pid):
            os.kill(pid, signal.SIGKILL)
    for folder in _folders:
        if not os.environ.get("LATHER_BENCH_KEEP"):
            shutil.rmtree(folder, ignore_errors=True)


def _alive_child_of_ours(pid):
    """True if PID still runs lather-service (not a recycled PID given to another program)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"lather-service" in f.read()
    except OSError:
        return False


def _on_signal(number, _frame):
    clean_up()
    sys.exit(128 + number)


atexit.register(clean_up)
for _s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(_s, _on_signal)


def temp_folder(name):
    folder = tempfile.mkdtemp(prefix=f"lather-{name}-")
    _folders.append(folder)
    return folder


def popen(cmd, **kwargs):
    p = subprocess.Popen(cmd, **kwargs)
    _started.append(p)
    return p


class StallMonitors:
    """lather-stall-monitor on each core: the late wake-ups of a real-time sleeper, the machine's own stops
    (the hypervisor not running a virtual CPU, a kernel section not preemptible), which no process of the
    bench or the service can cause by being busy. Information beside each window's p99: a window whose calls
    waited while the machine stood still shows it here (bench/soak), and a short window that did is not judged
    (bench/hang)."""

    def __init__(self, build, cpus, seconds):
        self.stalls = []  # (time.monotonic() seconds, ms late, cpu)
        self.realtime = {}
        self._processes = []
        tool = os.path.join(build, "bench", "lather-stall-monitor")
        for cpu in cpus:
            process = popen([tool, "--cpu", str(cpu), "--seconds", str(int(seconds)), "--threshold-ms",
                                        "5"], stdout=subprocess.PIPE, text=True)
            self._processes.append(process)
            threading.Thread(target=self._read, args=(process, cpu), daemon=True).start()

    def _read(self, process, cpu):
        for line in process.stdout:
            fields = line.split()
            if fields[:1] == ["stall"]:
                self.stalls.append((float(fields[1]), float(fields[2]), cpu))
            elif fields[:1] == ["done"]:
                self.realtime[cpu] = fields[2] == "1"

    def between(self, start, end):
        """{cpu: (stalls, total ms, longest ms)} of the stalls from `start` to `end` (time.monotonic())."""
        out = {}
        for t, ms, cpu in list(self.stalls):
            if start <= t < end:
                n, total, longest = out.get(cpu, (0, 0.0, 0.0))
                out[cpu] = (n + 1, total + ms, max(longest, ms))
        return out

    def stop(self):
        for process in self._processes:
            if process.poll() is None:
                process.terminate()
        for process in self._processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def cores():
    return sorted(os.sched_getaffinity(0))


def pin_self(cpu):
    """Runs this script (and its own client threads) on `cpu`, beside the generators, off the server's core."""
    if cpu not in (None, ""):
        os.sched_setaffinity(0, {int(cpu)})


def pin(cpu):
    """The taskset prefix that runs a command on `cpu` ("" or None: no pinning)."""
    return ["taskset", "-c", str(cpu)] if cpu not in (None, "") else []


class Supervisor:
    """A lather-service --workers N started here; its stderr lines kept as (monotonic time, text)."""

    def __init__(self, binary, folder, workers, extra=(), cpu=None, threads=1, store=None, name="service", env=None):
        self.folder = folder
        self.port_file = os.path.join(folder, f"{name}.port")
        self.pid_file = os.path.join(folder, f"{name}.pid")
        self.log_path = os.path.join(folder, f"{name}.log")
        self.lines = []  # (monotonic seconds, line)
        self.cond = threading.Condition()
        store = store or "sqlite:" + os.path.join(folder, f"{name}.db")
        cmd = pin(cpu) + [binary, "--workers", str(workers), "--threads", str(threads), "--listen", "127.0.0.1:0",
                          "--port-file", self.port_file, "--pid-file", self.pid_file, "--admin-listen",
                          "127.0.0.1:0", "--store", store] + list(extra)
        self.command = cmd
        # No core files from the workers these benches crash on purpose (SIGSEGV).
        self.process = popen(cmd, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,
                             preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))
        self.pid = self.process.pid  # taskset execs the service: the same PID
        self._log = open(self.log_path, "w")
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.url, self.admin = self._wait_started(workers)

    def _read(self):
        for raw in self.process.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            now = time.monotonic()
            self._log.write(line + "\n")
            self._log.flush()
            with self.cond:
                self.lines.append((now, line))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def _wait_started(self, workers):
        _, line, m = self.wait_for(r"serving on http://(\S+)/soap with (\d+) workers", 0, 60)
        if m is None:
            raise SystemExit(f"the supervisor did not serve within 60 s; its log: {self.log_path}\n" + self.tail())
        _, _, admin = self.wait_for(r"lather-service: admin listener on http://(\S+) \(", 0, 1)
        if admin is None:
            raise SystemExit("the supervisor logged no admin listener")
        for pid in self.workers():
            _worker_pids.add(pid)
        return f"http://{m.group(1)}/soap", admin.group(1)

    def mark(self):
        """The index of the next log line (wait_for(..., since=mark) sees only lines after now)."""
        with self.cond:
            return len(self.lines)

    def wait_for(self, pattern, since, timeout):
        """Waits for a log line at index >= since matching `pattern`: (time, line, match), or (None, None, None)."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            i = since
            while True:
                while i < len(self.lines):
                    t, line = self.lines[i]
                    m = regex.search(line)
                    if m:
                        return t, line, m
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None and i >= len(self.lines):
                    return None, None, None
                self.cond.wait(min(left, 0.05))

    def wait_count(self, pattern, since, count, timeout):
        """Waits for `count` log lines at index >= since matching `pattern`: (time of the last, [matches]);
        the time is None if fewer came within `timeout`."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                found = [(t, regex.search(line)) for t, line in self.lines[since:]]
                found = [(t, m) for t, m in found if m]
                if len(found) >= count:
                    return found[count - 1][0], [m for _, m in found[:count]]
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    return None, [m for _, m in found]
                self.cond.wait(min(left, 0.05))

    def lines_since(self, since):
        with self.cond:
            return [line for _, line in self.lines[since:]]

    def tail(self, n=20):
        with self.cond:
            return "\n".join(line for _, line in self.lines[-n:])

    def workers(self):
        """PIDs of the supervisor's children (its workers, serving or draining)."""
        pids = []
        try:
            for task in os.listdir(f"/proc/{self.pid}/task"):
                with open(f"/proc/{self.pid}/task/{task}/children") as f:
                    pids += [int(p) for p in f.read().split()]
        except OSError:
            pass
        for pid in pids:
            _worker_pids.add(pid)
        return pids

    def get(self, path, timeout=5):
        with urllib.request.urlopen(f"http://{self.admin}{path}", timeout=timeout) as r:
            return r.status, r.read().decode()

    def healthz(self):
        try:
            return self.get("/healthz", timeout=2)
        except Exception as e:  # 503 raises; a refused connection too
            return getattr(e, "code", 0), str(e)

    def port(self):
        return int(self.url.rsplit(":", 1)[1].split("/")[0])

    def stop(self, timeout=30):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reader.join(timeout=5)
        return self.process.returncode


def worker_slot(pid):
    """The supervisor's slot of worker PID (LATHER_WORKER_INDEX in its environment), None if unknown."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            for entry in f.read().split(b"\0"):
                if entry.startswith(b"LATHER_WORKER_INDEX="):
                    return int(entry.split(b"=", 1)[1])
    except (OSError, ValueError):
        pass
    return None


def socket_inodes(pid):
    """The inodes of PID's sockets."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(int(target[8:-1]))
    except OSError:
        pass
    return inodes


def tcp_connections_on_port(port):
    """{inode: state} of TCP sockets whose local port is `port`, except the listening one (state 0A)."""
    found = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for row in f:
                    cols = row.split()
                    local_port = int(cols[1].rsplit(":", 1)[1], 16)
                    if local_port == port and cols[3] != "0A":
                        found[int(cols[9])] = cols[3]
        except OSError:
            pass
    return found


def connections_of(pid, port):
    """How many client connections (TCP sockets on the service's port, not the listener) PID holds."""
    return len(socket_inodes(pid) & set(tcp_connections_on_port(port)))


def proc_status(pid):
    """{'rss_kib', 'threads', 'fds'} of PID from /proc, None if it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        return {"rss_kib": int(fields["VmRSS"].split()[0]), "threads": int(fields["Threads"]),
                "fds": len(os.listdir(f"/proc/{pid}/fd"))}
    except (OSError, KeyError, ValueError):
        return None


def thread_report(pid, tid):
    """'comm state policy/nice cpu-seconds wchan [kernel stack]' of one thread (for a bench that found a process
    stuck: what it was doing, read while it still is)."""
    base = f"/proc/{pid}/task/{tid}"
    try:
        with open(base + "/stat") as f:
            line = f.read()
        comm = line[line.index("(") + 1:line.rindex(")")]
        fields = line[line.rindex(")") + 2:].split()
        state, nice, policy = fields[0], fields[16], fields[38]
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        with open(base + "/wchan") as f:
            wchan = f.read().strip() or "-"
        try:
            with open(base + "/stack") as f:
                stack = " < ".join(l.split("] ", 1)[-1].split("+")[0] for l in f.read().split("\n")[:4] if l)
        except OSError:
            stack = "?"
        return f"{tid} {comm} {state} policy {policy} nice {nice} cpu {cpu:.2f} s wchan {wchan} [{stack}]"
    except (OSError, ValueError, IndexError):
        return f"{tid} gone"


def process_report(pid):
    """thread_report of every thread of PID, '; '-separated; 'gone' when it has ended (a zombie says Z)."""
    try:
        tids = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return f"pid {pid} gone"
    return "; ".join(thread_report(pid, t) for t in tids)


def stress_command(build, url, args, json_path, cpu=None):
    return pin(cpu) + [os.path.join(build, "stress", "lather-stress"), url, "--quiet", "--json", json_path] + list(args)


def stress_start(build, url, args, json_path, cpu=None):
    """Starts lather-stress (bounded by its -d or -n); finish it with stress_finish()."""
    return popen(stress_command(build, url, args, json_path, cpu), stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                 text=True)


def stress_finish(process, json_path, what, timeout):
    """Waits for lather-stress; its JSON report. Exit 0 and 1 (a threshold) are results; others stop the bench."""
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        raise SystemExit(f"{what}: lather-stress did not end within {timeout:.0f} s")
    if process.returncode not in (0, 1, 2) or not os.path.exists(json_path):
        raise SystemExit(f"{what}: lather-stress failed ({process.returncode}): {err.strip()}")
    with open(json_path) as f:
        return json.load(f)


def stress_run(build, url, args, json_path, what, cpu=None, timeout=600):
    return stress_finish(stress_start(build, url, args, json_path, cpu), json_path, what, timeout)


def capacity(build, url, folder, cpu=None, op=(), connections=50, seconds=5):
    """Calls/s of a closed-model run (-c 50 -d 5s after 1 s of warm-up); stops the bench if any call failed."""
    report = stress_run(build, url, ["-c", str(connections), "-d", f"{seconds}s", "--warmup", "1s"] + list(op),
                        os.path.join(folder, f"capacity-{len(os.listdir(folder))}.json"), "capacity", cpu)
    if report["calls"]["failed"]:
        raise SystemExit(f"capacity run: {report['calls']['failed']} failed calls: {report['calls']['first_failure']}")
    return report["calls"]["calls_per_second"]


def sent_share(report):
    """Calls answered or failed / calls the schedule asked for (open model): below 0.9 the generator fell
    more than 10% behind, and the run did not offer the load it describes."""
    calls, settings = report["calls"], report["settings"]
    scheduled = settings["rate"] * calls["window_seconds"]
    return (calls["ok"] + calls["failed"]) / scheduled if scheduled else 1.0


def kinds(report):
    return {k: v for k, v in report["calls"]["failed_by_kind"].items() if v}


def ms(ns):
    return ns / 1e6


class Verdict:
    """Collects checks; prints PASS/FAIL lines and INVALID ones; exit code 0 all pass, 1 a failure, 2 invalid."""

    def __init__(self):
        self.failed = False
        self.invalid = False

    def check(self, ok, text):
        self.failed = self.failed or not ok
        print(("PASS: " if ok else "FAIL: ") + text, flush=True)

    def require(self, ok, text):
        """A condition of the set-up; INVALID (the bench did not create the load it describes) when false."""
        if not ok:
            self.invalid = True
            print("INVALID: " + text, flush=True)

    def exit_code(self):
        return 2 if self.invalid else 1 if self.failed else 0


def median(values):
    v = sorted(values)
    if not v:
        return 0
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def percentile(values, q):
    v = sorted(values)
    if not v:
        return 0
    return v[min(len(v) - 1, int(q * len(v)))]


class CounterClient:
    """IncCounter on one counter from `connections` threads, each sending its next call only once the last
    one was answered or failed, paced to `rate` calls/s in all; its own client (not lather-stress) so that
    when it stops no call is left in flight uncounted. Keep-alive connections, reopened after a failure or
    Connection: close. Counts ok (a 200 with a result), failed by kind, and the latency of the ok calls."""

    def __init__(self, host, port, name, rate, connections=4, timeout=5.0):
        self.host, self.port, self.name = host, port, name
        self.interval = connections / rate
        self.timeout = timeout
        self.ok = 0
        self.failed = {}
        self.first_failure = ""
        self.latencies = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        body = ('<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/'
                f'envelope/" xmlns:l="urn:lather:v1"><soap:Body><l:IncCounter><l:name>{name}</l:name></l:IncCounter>'
                '</soap:Body></soap:Envelope>').encode()
        self._request = (f"POST /soap HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: text/xml; charset=utf-8\r\n"
                         f"SOAPAction: \"urn:lather:v1#IncCounter\"\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        self._threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(connections)]

    def start(self):
        for t in self._threads:
            t.start()
        return self

    def stop(self):
        """Stops after each thread's current call; returns (ok, failed total)."""
        self._stop.set()
        for t in self._threads:
            t.join(timeout=self.timeout + 5)
        return self.ok, sum(self.failed.values())

    def _fail(self, kind, detail):
        with self._lock:
            self.failed[kind] = self.failed.get(kind, 0) + 1
            if not self.first_failure:
                self.first_failure = f"{kind}: {detail}"

    def _call(self, sock, buf):
        """One call on `sock`: (ok, keep the connection, leftover bytes)."""
        sock.sendall(self._request)
        while b"\r\n\r\n" not in buf:
            data = sock.recv(65536)
            if not data:
                raise EOFError("connection closed before the response")
            buf += data
        head, rest = buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, v in (x.split(":", 1) for x in lines[1:] if ":" in x)}
        length = int(headers.get("content-length", "0"))
        while len(rest) < length:
            data = sock.recv(65536)
            if not data:
                raise EOFError("connection closed inside the response")
            rest += data
        body, rest = rest[:length], rest[length:]
        keep = "close" not in headers.get("connection", "").lower()
        if status != 200 or not re.search(rb"<[^>]*result>\d+<", body):
            return f"status {status}: {body[:200]!r}", keep, rest
        return None, keep, rest

    def _run(self, index):
        import socket
        next_at = time.monotonic() + self.interval * index / len(self._threads)
        sock, buf = None, b""
        while not self._stop.is_set():
            pause = next_at - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            next_at = max(next_at + self.interval, time.monotonic() - self.interval)
            if self._stop.is_set():
                break
            began = time.monotonic()
            try:
                if sock is None:
                    sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    buf = b""
                error, keep, buf = self._call(sock, buf)
            except socket.timeout as e:
                error, keep, kind = f"timeout: {e}", False, "timeout"
            except ConnectionRefusedError as e:
                error, keep, kind = str(e), False, "connect"
            except (OSError, EOFError) as e:
                error, keep, kind = str(e) or type(e).__name__, False, "io"
            else:
                kind = "status"
            if error is None:
                with self._lock:
                    self.ok += 1
                    self.latencies.append(time.monotonic() - began)
            else:
                self._fail(kind, error)
            if not keep and sock is not None:
                sock.close()
                sock, buf = None, b""
        if sock is not None:
            sock.close()


def cpu_busy_seconds(cpu):
    """Seconds cpu `cpu` spent busy (everything but idle and iowait) since boot, from /proc/stat."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith(f"cpu{cpu} "):
                v = [int(x) for x in line.split()[1:]]
                return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")
    return 0.0


def process_cpu_seconds(pid):
    """User + system CPU seconds of PID (all its threads), 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


class CoreShare:
    """How much of a core other programs took over a window: the core's busy time less our processes'."""

    def __init__(self, cpu, pids):
        self.cpu = cpu
        self.start(pids)

    def start(self, pids):
        self._t = time.monotonic()
        self._busy = cpu_busy_seconds(self.cpu)
        self._first = {p: process_cpu_seconds(p) for p in pids}
        self._last = dict(self._first)

    def observe(self, pids):
        """Reads our processes' CPU now: a process that ends before others() counts up to its last reading (a
        worker retired or killed in the window; without it, its CPU was counted as other programs')."""
        for p in pids:
            cpu = process_cpu_seconds(p)
            if cpu > 0:
                self._first.setdefault(p, 0.0)  # born in the window: all its CPU is in it
                self._last[p] = cpu

    def others(self, pids):
        """Share of the core (0..1) used by processes other than ours (`pids` and those observed) since start()."""
        self.observe(pids)
        wall = time.monotonic() - self._t
        busy = cpu_busy_seconds(self.cpu) - self._busy
        ours = sum(self._last[p] - self._first[p] for p in self._last)
        return max(0.0, min(1.0, (busy - ours) / wall)) if wall > 0 else 0.0
