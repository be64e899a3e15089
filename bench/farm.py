"""What bench/scale-out and bench/network-bound-farm share: the farm of scripts/cluster (docs/scale-out.md)
brought up in a folder of its own and always taken down (normal exit, exception, SIGINT, SIGTERM, SIGHUP);
lather-stress runs against it (on the host, or in the client namespace lather-client), passed the farm's
components when it can take them (--server-pid NAME=PID); and the benches' own account of where the CPU
went during each run, read from the cgroups and /proc, whatever the harness says:

  nodes          each node's cgroup: cpuacct.usage (v1) / cpu.stat usage_usec (v2) against its CPU quota,
                 and the share of the quota's periods in which it was throttled (it used its whole quota)
  load balancer  HAProxy's cgroup against its threads (each thread's CPU from /proc/PID/task/TID/stat)
  database       PostgreSQL's cgroup (the postmaster and every backend it forked) against the cores it may
                 use; its busiest process (a backend is one process: a pegged one limits its node's calls)
  harness        lather-stress: /proc/PID/task/*/stat, against its load threads
  machine        /proc/stat: all cores, and what the processes above did not use (other programs)
  link           the client's veth (lc-c on the host): bytes each way against the shaped rate

Not a benchmark itself (no #! line); the scripts import it from their own folder.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER = os.path.join(ROOT, "scripts", "cluster")
TICK = os.sysconf("SC_CLK_TCK")
SATURATED = 0.9  # a budget used at 90% or more is saturated (the share the verdicts use)


def _on_signal(number, _frame):
    raise SystemExit(128 + number)  # unwinds through the `finally` that takes the farm down


for _s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(_s, _on_signal)


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def cores():
    return len(os.sched_getaffinity(0))


class Cluster:
    """scripts/cluster with LATHER_CLUSTER_DIR in a temporary folder; down() removes everything up() made."""

    def __init__(self, build, prefix):
        self.build = os.path.abspath(build)
        self.folder = tempfile.mkdtemp(prefix=prefix)
        os.chmod(self.folder, 0o755)  # the postgres user must reach the cluster's folder inside it
        self.dir = os.path.join(self.folder, "cluster")
        self.env_vars = dict(os.environ, LATHER_BUILD_DIR=self.build, LATHER_CLUSTER_DIR=self.dir)
        self.e = {}
        self.nodes = 0
        self.quotas = {}  # group (haproxy, postgres) -> cores, for those given a quota by set_quota()

    def run(self, *args, timeout=120):
        r = subprocess.run([CLUSTER, *args], env=self.env_vars, timeout=timeout, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            raise RuntimeError(f"scripts/cluster {' '.join(args)} exited {r.returncode}")
        return r.stdout

    def up(self, nodes, node_cpu):
        self.run("up", "--nodes", str(nodes), "--node-cpu", str(node_cpu), timeout=300)
        self.nodes = nodes
        for line in self.run("env").splitlines():
            k, _, v = line.partition("=")
            self.e[k] = v.strip("'")
        self.quota = float(node_cpu)

    def down(self):
        subprocess.run([CLUSTER, "down"], env=self.env_vars, timeout=180, capture_output=True)
        subprocess.run(["rm", "-rf", self.folder], timeout=60)

    @property
    def url(self):
        return self.e["LATHER_CLUSTER_URL"]

    def pid(self, name):
        """The PID scripts/cluster recorded for NAME (node-I, haproxy, postgres), if it is still that process."""
        try:
            pid, start = open(os.path.join(self.dir, "run", name + ".pid")).read().split()
            if open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[19] == start:
                return int(pid)
        except (OSError, ValueError, IndexError):
            pass
        return None

    def active(self, n):
        """HAProxy sends calls to nodes 1..n only (the others in MAINT: idle, still running)."""
        for i in range(1, self.nodes + 1):
            self.run("enable-node" if i <= n else "disable-node", str(i))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # enabled nodes must be UP again (a check after READY)
            up = self.servers_up()
            if all(up.get(f"node{i}") for i in range(1, n + 1)):
                return
            time.sleep(0.1)
        raise RuntimeError(f"HAProxy did not see nodes 1..{n} UP within 10 s")

    def servers_up(self):
        out = subprocess.run(["curl", "-s", "--max-time", "2", self.e["LATHER_CLUSTER_STATS"] + ";csv"],
                             capture_output=True, text=True, timeout=5).stdout
        return {f[1]: f[17] == "UP" for f in (line.split(",") for line in out.splitlines())
                if len(f) > 17 and f[0] == "lather_nodes" and f[1] != "BACKEND"}

    def cg_file(self, group, name):
        if self.e.get("LATHER_CLUSTER_CG_KIND") == "v2":
            return os.path.join(self.e["LATHER_CLUSTER_CG_CPU"], group, name)
        hierarchy = "LATHER_CLUSTER_CG_ACCT" if name.startswith("cpuacct") else "LATHER_CLUSTER_CG_CPU"
        return os.path.join(self.e[hierarchy], group, name)

    def set_quota(self, group, cores):
        """Gives cgroup `group` (node-I, haproxy, postgres) a CPU quota of `cores` per 100 ms period, as
        scripts/cluster does for the nodes (None: no quota). The nodes' quota is self.quota (one for all)."""
        period = 100000
        quota_us = max(1000, round(cores * period)) if cores else None
        if self.e.get("LATHER_CLUSTER_CG_KIND") == "v2":
            path, text = self.cg_file(group, "cpu.max"), f"{quota_us or 'max'} {period}"
        else:
            path, text = self.cg_file(group, "cpu.cfs_quota_us"), str(quota_us or -1)
        with open(path, "w") as f:
            f.write(text)
        if group.startswith("node-"):
            self.quota = cores
        elif cores:
            self.quotas[group] = cores
        else:
            self.quotas.pop(group, None)

    def cg_usage_s(self, group):
        """CPU the group has used so far, in seconds."""
        if self.e.get("LATHER_CLUSTER_CG_KIND") == "v2":
            for line in open(self.cg_file(group, "cpu.stat")):
                k, v = line.split()
                if k == "usage_usec":
                    return int(v) / 1e6
        return int(open(self.cg_file(group, "cpuacct.usage")).read()) / 1e9

    def cg_throttle(self, group):
        """(periods, throttled periods) of the group's CPU quota so far."""
        st = dict(line.split() for line in open(self.cg_file(group, "cpu.stat")))
        return int(st.get("nr_periods", 0)), int(st.get("nr_throttled", 0))

    def cg_pids(self, group):
        try:
            return [int(p) for p in open(os.path.join(self.e["LATHER_CLUSTER_CG_CPU"], group, "cgroup.procs")).read().split()]
        except OSError:
            return []


# ---------------------------------------------------------------------------------------------------------
# /proc readings

def proc_cpu_s(pid):
    """utime + stime of a process (all its threads), in seconds; None once it is gone."""
    try:
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / TICK
    except (OSError, IndexError, ValueError):
        return None


def thread_cpu_s(pid):
    """{tid: utime + stime in seconds} of each thread of a process."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            f = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()
            out[int(tid)] = (int(f[11]) + int(f[12])) / TICK
        except (OSError, IndexError, ValueError):
            pass
    return out


def machine_cpu_s():
    """(busy, total, irq, steal) seconds of all cores since boot, from /proc/stat: busy counts steal (time
    the hypervisor gave to others: not ours either); irq is hardware and soft interrupts (the network's
    softirqs among them), which this kernel accounts apart from the tasks they interrupted, so no cgroup's
    usage holds them."""
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    idle = f[3] + f[4]  # idle + iowait
    total = sum(f[:8])  # user nice system idle iowait irq softirq steal (guest is inside user)
    return (total - idle) / TICK, total / TICK, (f[5] + f[6]) / TICK, f[7] / TICK


def cpu_pressure_s():
    """Seconds some task has waited for a CPU since boot (PSI, /proc/pressure/cpu "some"); None without PSI."""
    try:
        for line in open("/proc/pressure/cpu"):
            if line.startswith("some"):
                return int(line.split("total=")[1]) / 1e6
    except (OSError, IndexError, ValueError):
        pass
    return None


def link_bytes(dev):
    """(rx, tx) bytes of a host interface: on lc-c, rx is what the client sent (requests: up) and tx what it
    received (responses: down)."""
    base = f"/sys/class/net/{dev}/statistics/"
    return int(open(base + "rx_bytes").read()), int(open(base + "tx_bytes").read())


class Snapshot:
    """Every reading at one moment, for the difference of two (Account)."""

    def __init__(self, cluster, active, harness_pid, link_dev=None):
        self.t = time.monotonic()
        self.busy, self.total, self.irq, self.steal = machine_cpu_s()
        self.pressure = cpu_pressure_s()
        self.nodes = {}
        for i in range(1, cluster.nodes + 1):
            g = f"node-{i}"
            self.nodes[i] = (cluster.cg_usage_s(g), *cluster.cg_throttle(g))
        self.haproxy = cluster.cg_usage_s("haproxy")
        hp = cluster.pid("haproxy")
        self.haproxy_threads = thread_cpu_s(hp) if hp else {}
        self.postgres = cluster.cg_usage_s("postgres")
        self.postgres_procs = {p: proc_cpu_s(p) for p in cluster.cg_pids("postgres")}
        self.client_cg = cluster.cg_usage_s("client")
        self.harness = proc_cpu_s(harness_pid)
        self.harness_threads = thread_cpu_s(harness_pid)
        self.link = link_bytes(link_dev) if link_dev else None


def _busiest(before, after, seconds):
    """The largest per-entity CPU share (of one core) between two {id: seconds} readings."""
    best = 0.0
    for k, v in after.items():
        if v is not None and before.get(k) is not None:
            best = max(best, (v - before[k]) / seconds)
    return best


class Account:
    """Where the CPU went between two Snapshots, per component against its budget; saturated() names what
    was at 90% or more of its budget. Components as the harness's JSON names them (name, instances, cores,
    cores_used, utilization, peak_instance_utilization), plus the machine and, when shaped, the link."""

    def __init__(self, cluster, a, b, active, harness_threads, link_rate_bits=None):
        s = b.t - a.t
        self.seconds = s
        self.cores = cores()
        node_used = {i: (b.nodes[i][0] - a.nodes[i][0]) / s for i in range(1, active + 1)}
        periods = sum(b.nodes[i][1] - a.nodes[i][1] for i in range(1, active + 1))
        throttled = sum(b.nodes[i][2] - a.nodes[i][2] for i in range(1, active + 1))
        idle_nodes = sum((b.nodes[i][0] - a.nodes[i][0]) / s for i in b.nodes if i > active)
        q = cluster.quota
        self.nodes = dict(name="nodes", instances=active, cores=active * q, cores_used=sum(node_used.values()),
                          utilization=sum(node_used.values()) / (active * q),
                          peak_instance_utilization=max(node_used.values()) / q,
                          low_instance_utilization=min(node_used.values()) / q,
                          throttled_share=throttled / periods if periods else 0.0)
        hp_threads = max(1, len(b.haproxy_threads))
        hp_budget = min(hp_threads, self.cores, cluster.quotas.get("haproxy", self.cores))
        hp_used = (b.haproxy - a.haproxy) / s
        self.haproxy = dict(name="load balancer", instances=1, cores=hp_budget, cores_used=hp_used,
                            utilization=hp_used / hp_budget, threads=hp_threads,
                            peak_thread_utilization=_busiest(a.haproxy_threads, b.haproxy_threads, s))
        pg_used = (b.postgres - a.postgres) / s
        pg_budget = cluster.quotas.get("postgres", self.cores)
        self.postgres = dict(name="database", instances=1, cores=pg_budget, cores_used=pg_used,
                             utilization=pg_used / pg_budget, processes=len(b.postgres_procs),
                             peak_process_utilization=_busiest(a.postgres_procs, b.postgres_procs, s))
        h_used = (b.harness - a.harness) / s if a.harness is not None and b.harness is not None else 0.0
        h_budget = min(max(1, harness_threads), self.cores)
        self.harness = dict(name="harness", instances=1, cores=h_budget, cores_used=h_used,
                            utilization=h_used / h_budget,
                            peak_thread_utilization=_busiest(a.harness_threads, b.harness_threads, s))
        busy = (b.busy - a.busy) / s
        irq, steal = (b.irq - a.irq) / s, (b.steal - a.steal) / s
        ours = self.nodes["cores_used"] + idle_nodes + hp_used + pg_used + h_used
        self.machine = dict(name="machine", cores=self.cores, cores_used=busy, utilization=busy / self.cores,
                            others=max(0.0, busy - ours - irq - steal), idle_nodes=idle_nodes, interrupts=irq,
                            steal=steal,
                            pressure=(b.pressure - a.pressure) / s if a.pressure is not None and b.pressure is not None
                            else -1)
        self.link = None
        if link_rate_bits and a.link and b.link:
            up = (b.link[0] - a.link[0]) / s
            down = (b.link[1] - a.link[1]) / s
            cap = link_rate_bits / 8
            self.link = dict(name="network", up_bytes_per_s=up, down_bytes_per_s=down,
                             up_utilization=up / cap, down_utilization=down / cap, capacity_bytes_per_s=cap)

    def per_call_us(self, calls_per_second):
        """{component: microseconds of CPU per call} of the farm's parts and the harness."""
        x = max(1.0, calls_per_second)
        return {"nodes": self.nodes["cores_used"] / x * 1e6, "haproxy": self.haproxy["cores_used"] / x * 1e6,
                "postgres": self.postgres["cores_used"] / x * 1e6, "harness": self.harness["cores_used"] / x * 1e6}

    def saturated(self, calls_per_second=0.0):
        """[(component, words)] of what was at 90% or more of its budget, the nodes first. A busy machine is
        told with its shares, the largest of the farm's parts besides the nodes named first."""
        out = []
        n = self.nodes
        if n["utilization"] >= SATURATED:
            out.append(("nodes", f"nodes ({n['instances']} x {n['cores'] / n['instances']:g} core, at "
                                 f"{n['low_instance_utilization']:.0%}-{n['peak_instance_utilization']:.0%} of their quota)"))
        h = self.haproxy
        if h["utilization"] >= SATURATED or h["peak_thread_utilization"] >= SATURATED:
            out.append(("load balancer", f"the load balancer (haproxy at {h['cores_used']:.2f} of its {h['cores']:.3g} "
                                         f"threads' cores, busiest thread {h['peak_thread_utilization']:.0%})"))
        p = self.postgres
        if p["utilization"] >= SATURATED or p["peak_process_utilization"] >= SATURATED:
            out.append(("database", f"the database (postgres at {p['cores_used']:.2f} cores, busiest process "
                                    f"{p['peak_process_utilization']:.0%} of a core)"))
        c = self.harness
        if c["utilization"] >= SATURATED or c["peak_thread_utilization"] >= SATURATED:
            out.append(("harness", f"the harness (lather-stress at {c['cores_used']:.2f} of {c['cores']} cores, "
                                   f"busiest thread {c['peak_thread_utilization']:.0%})"))
        if self.link:
            k = self.link
            worst = max(k["up_utilization"], k["down_utilization"])
            if worst >= SATURATED:
                way = "responses" if k["down_utilization"] >= k["up_utilization"] else "requests"
                out.append(("network", f"the network into the balancer ({way}: {worst:.0%} of "
                                       f"{k['capacity_bytes_per_s'] * 8 / 1e6:g} Mbit/s each way)"))
        m = self.machine
        if m["utilization"] >= SATURATED:
            big = max((("the load balancer", "haproxy"), ("the database", "postgres"), ("the harness", "harness")),
                      key=lambda c: self.part(c[1]))
            out.append(("machine", f"the machine's CPU ({m['cores_used']:.2f} of {m['cores']} cores busy; the "
                                   f"largest part besides the nodes {big[0]}): " + self.shares(calls_per_second)))
        return out

    def part(self, name):
        return {"nodes": self.nodes["cores_used"] + self.machine["idle_nodes"], "haproxy": self.haproxy["cores_used"],
                "postgres": self.postgres["cores_used"], "harness": self.harness["cores_used"],
                "interrupts": self.machine["interrupts"], "steal": self.machine["steal"],
                "other programs": self.machine["others"]}[name]

    def shares(self, calls_per_second=0.0):
        per_call = self.per_call_us(calls_per_second) if calls_per_second else {}
        parts = sorted(("nodes", "haproxy", "postgres", "harness", "interrupts", "steal", "other programs"),
                       key=lambda n: -self.part(n))
        return ", ".join(f"{n} {self.part(n):.2f}" + (f" ({per_call[n]:.0f} us per call)" if n in per_call else "")
                         for n in parts)

    def table(self, calls_per_second=0.0):
        """Lines: each component's CPU use against its budget (and per call, given the calls/s)."""
        n, h, p, c, m = self.nodes, self.haproxy, self.postgres, self.harness, self.machine
        u = self.per_call_us(calls_per_second) if calls_per_second else None
        lines = [
            f"    nodes      {n['cores_used']:.2f} of {n['cores']:.2f} cores ({n['utilization']:.0%}; each "
            f"{n['low_instance_utilization']:.0%}-{n['peak_instance_utilization']:.0%} of its "
            f"{n['cores'] / n['instances']:g}-core quota, throttled in {n['throttled_share']:.0%} of the periods)",
            f"    haproxy    {h['cores_used']:.2f} of {h['cores']:.3g} cores ({h['utilization']:.0%}; {h['threads']} "
            f"threads, busiest {h['peak_thread_utilization']:.0%} of a core)",
            f"    postgres   {p['cores_used']:.2f} of {p['cores']:.3g} cores ({p['utilization']:.0%}; {p['processes']} "
            f"processes, busiest {p['peak_process_utilization']:.0%} of a core)",
            f"    harness    {c['cores_used']:.2f} of {c['cores']} cores ({c['utilization']:.0%}; busiest thread "
            f"{c['peak_thread_utilization']:.0%} of a core)",
            f"    machine    {m['cores_used']:.2f} of {m['cores']} cores busy ({m['utilization']:.0%}; other "
            f"programs {m['others']:.2f}, interrupts and softirqs {m['interrupts']:.2f}, steal {m['steal']:.2f}, "
            f"idle nodes {m['idle_nodes']:.2f}" + (f"; some task waited for a CPU {m['pressure']:.0%} of the time"
                                                  if m["pressure"] >= 0 else "") + ")",
        ]
        if u:
            lines.append("    per call   " + ", ".join(f"{k} {v:.0f} us" for k, v in u.items()) + " of CPU")
        if self.link:
            k = self.link
            lines.append(f"    link       up {k['up_bytes_per_s'] * 8 / 1e6:.1f} Mbit/s ({k['up_utilization']:.0%}), "
                         f"down {k['down_bytes_per_s'] * 8 / 1e6:.1f} Mbit/s ({k['down_utilization']:.0%}) of "
                         f"{k['capacity_bytes_per_s'] * 8 / 1e6:g} Mbit/s each way (lc-c's byte counters)")
        return lines

    def as_json(self):
        return {"seconds": self.seconds, "components": [self.nodes, self.haproxy, self.postgres, self.harness],
                "machine": self.machine, "link": self.link}


# ---------------------------------------------------------------------------------------------------------
# lather-stress

def stress_binary(build):
    return os.path.join(os.path.abspath(build), "stress", "lather-stress")


def sees_the_farm(build):
    """Does this lather-stress take --server-pid NAME=PID (components of a farm)?"""
    r = subprocess.run([stress_binary(build), "--help"], capture_output=True, text=True, timeout=30)
    return "NAME=" in r.stdout


def component_flags(cluster, active):
    """--server-pid NAME=PID for each active node (with its /metrics: Lather's timings), HAProxy and
    PostgreSQL's postmaster (its backends are its descendants)."""
    flags = []
    metrics = cluster.e.get("LATHER_CLUSTER_NODE_METRICS", "").split()
    for i in range(1, active + 1):
        pid = cluster.pid(f"node-{i}")
        if pid:
            flags += ["--server-pid", f"node={pid}"]
            if i <= len(metrics):
                flags += ["--metrics-url", f"node={metrics[i - 1]}"]
    for name in ("haproxy", "postgres"):
        pid = cluster.pid(name)
        if pid:
            flags += ["--server-pid", f"{name}={pid}"]
    return flags


def socket_count(pid):
    try:
        return sum(1 for fd in os.listdir(f"/proc/{pid}/fd") if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"))
    except OSError:
        return 0


def wait_connected(p, connections, timeout=30):
    """The moment lather-stress (by now p's program: scripts/cluster client execs into it) holds its
    connections: its warm-up begins then. On a busy machine starting it can take a second or more, which
    would otherwise put the readings' window out of the harness's."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and p.poll() is None:
        try:
            comm = open(f"/proc/{p.pid}/comm").read().strip()
        except OSError:
            comm = ""
        if comm == "lather-stress" and socket_count(p.pid) >= connections:
            return time.monotonic()
        time.sleep(0.02)
    raise RuntimeError(f"lather-stress (pid {p.pid}) did not open its {connections} connections within {timeout} s")


def run_measured(cluster, cmd, warmup, duration, active, threads, link_dev=None, link_rate_bits=None):
    """Runs lather-stress (cmd, which writes --json to cmd's value after --json and opens -c connections; it
    may begin with `scripts/cluster client`, which becomes lather-stress by exec) and takes this module's
    readings inside its measured window (after the warm-up, until just before the end). Returns
    (report, Account, output)."""
    json_path = cmd[cmd.index("--json") + 1]
    connections = int(cmd[cmd.index("-c") + 1])
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=cluster.env_vars)
    try:
        t0 = wait_connected(p, connections)
        time.sleep(max(0.0, t0 + warmup + 0.3 - time.monotonic()))
        a = Snapshot(cluster, active, p.pid, link_dev)
        time.sleep(max(0.5, t0 + warmup + duration - 0.2 - time.monotonic()))
        b = Snapshot(cluster, active, p.pid, link_dev)
        out, _ = p.communicate(timeout=duration + warmup + 120)
    except BaseException:
        p.kill()
        p.wait()
        raise
    if p.returncode not in (0, 1):
        raise RuntimeError(f"lather-stress exited {p.returncode}: {out[-2000:]}")
    report = json.load(open(json_path))
    return report, Account(cluster, a, b, active, threads, link_rate_bits), out


def harness_verdict(report):
    """(component or limit, text) of the harness's own verdict."""
    v = report.get("verdict", {})
    comp = v.get("component")
    name = comp if comp else v.get("limit", "?")
    return name, v.get("text", "")


def harness_component(report):
    """The harness's limit in this module's names: nodes, load balancer, database, machine, network,
    harness, or its own word when it names none of those."""
    v = report.get("verdict", {})
    comp, limit = (v.get("component") or "").lower(), v.get("limit", "")
    for key, name in (("node", "nodes"), ("load balancer", "load balancer"), ("database", "database"),
                      ("machine", "machine"), ("network", "network")):
        if key in comp:
            return name
    if "network" in limit:
        return "network"
    if limit.startswith("client"):
        return "harness"
    if limit == "unknown" and "busy with other work" in v.get("text", ""):
        return "machine"  # it says the machine's cores were busy with other programs, and will not guess
    return limit or "?"


def cross_check(report, account, calls_per_second):
    """One line: the harness's limit beside what the cgroups and /proc found saturated."""
    ours = [n for n, _ in account.saturated(calls_per_second)]
    theirs = harness_component(report)
    agree = theirs in ours or (not ours and theirs in ("concurrency", "unknown"))
    return (f"cross-check: the harness says {theirs}; the cgroups and /proc say "
            f"{', '.join(ours) if ours else 'nothing saturated'}: {'agree' if agree else 'DISAGREE'}")


def short(text, width=220):
    return text if len(text) <= width else text[:width - 3] + "..."
