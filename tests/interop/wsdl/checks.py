"""Checks of lather-call --wsdl and lather-stress --wsdl against a running foreign service (servers.py).

Each check prints "ok: ..." or "FAIL: ..." (with what the tool printed) and records the failure in
Checks.failed; foreign_wsdl.py exits 1 at the end if any failed. Every tool run has a timeout.
Checks.on(server) gives the same checks against another server of a servers.Group, counting failures
in the same Checks.failed.
"""

import copy
import ctypes
import json
import os
import re
import shlex
import signal
import subprocess
import time

TOOL_TIMEOUT_S = 30
STRESS_TIMEOUT_S = 60
PID_SEARCH_TIMEOUT_S = 30  # run_with_pid: forks until a child's PID has the wanted residue
PID_SEARCH_MAX_FORKS = 20000
NS_LAST_PID = "/proc/sys/kernel/ns_last_pid"


def _aim_next_pid(residue, modulus):
    """As root: sets the PID namespace's last PID so that the next fork gets the next PID with that residue
    (cycling PIDs by forking took over 30 s while the suite's other tests forked too). Without the right to,
    does nothing: run_with_pid's forks cycle through the PIDs as before."""
    try:
        with open(NS_LAST_PID, "r+") as f:
            last = int(f.read().strip())
            target = last + 1 + (residue - (last + 1)) % modulus
            if target >= int(open("/proc/sys/kernel/pid_max").read()):
                return
            f.seek(0)
            f.write(str(target - 1))
    except (OSError, ValueError):
        pass
LIBC = ctypes.CDLL("libc.so.6", use_errno=True)  # loaded before any fork: the child only calls prctl


class Result:
    def __init__(self, argv, rc, out, err, pid=None):
        self.argv, self.rc, self.out, self.err, self.pid = argv, rc, out, err, pid

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError:
            return None

    def describe(self):
        cmd = shlex.join([os.path.basename(self.argv[0])] + self.argv[1:])[:2000]
        return (f"\n    $ {cmd}\n    exit {self.rc}"
                f"\n    stdout: {self.out[-1500:]!r}\n    stderr: {self.err[-1500:]!r}")


def number_is(value, expected):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value - expected) < 1e-9


def text_of(value):
    """A simpleContent element's value: the JSON value itself, or the one non-@ member of its object."""
    if isinstance(value, dict):
        texts = [v for k, v in value.items() if not k.startswith("@")]
        return texts[0] if len(texts) == 1 else None
    return value


class Checks:
    def __init__(self, build_dir, server):
        self.call_bin = os.path.join(build_dir, "client", "lather-call")
        self.stress_bin = os.path.join(build_dir, "stress", "lather-stress")
        self.server = server
        self._failed = [0]  # shared with the Checks of on()
        self.env = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "https_proxy")}
        self.env["no_proxy"] = "*"

    @property
    def failed(self):
        return self._failed[0]

    def on(self, server):
        """The same checks against another server (a member of a servers.Group); failures count here too."""
        other = copy.copy(self)
        other.server = server
        return other

    # --- running the tools -------------------------------------------------------------------------
    def run(self, argv, timeout=TOOL_TIMEOUT_S):
        try:
            p = subprocess.run(argv, capture_output=True, encoding="utf-8", errors="replace", timeout=timeout,
                               env=self.env, stdin=subprocess.DEVNULL)
            return Result(argv, p.returncode, p.stdout, p.stderr)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            return Result(argv, f"timeout after {timeout} s", out, "")
        except OSError as e:
            return Result(argv, f"not started: {e}", "", "")

    def run_with_pid(self, argv, out_path, err_path, timeout=STRESS_TIMEOUT_S, residue=None, modulus=1000):
        """Runs argv like run(), in a process whose PID % modulus == residue (None: any PID): it forks until a
        child gets such a PID (at most PID_SEARCH_MAX_FORKS children, PID_SEARCH_TIMEOUT_S), and that child
        execs argv. Result.pid is the PID; Result.rc is a string if no such PID came or the run timed out."""
        deadline = time.monotonic() + PID_SEARCH_TIMEOUT_S
        env = dict(self.env)
        pid = None
        with open(out_path, "wb") as out, open(err_path, "wb") as err, open(os.devnull, "rb") as null:
            for _ in range(PID_SEARCH_MAX_FORKS):
                if time.monotonic() > deadline:
                    break
                if residue is not None:
                    _aim_next_pid(residue, modulus)  # as root, the next PID is asked for; others may take it first
                child = os.fork()
                if child == 0:  # the child: exec argv if its PID fits, else end at once
                    code = 0
                    try:
                        if residue is None or os.getpid() % modulus == residue:
                            LIBC.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: it ends if this test dies
                            os.dup2(null.fileno(), 0)
                            os.dup2(out.fileno(), 1)
                            os.dup2(err.fileno(), 2)
                            os.execve(argv[0], argv, env)
                    except BaseException:
                        code = 127
                    finally:
                        os._exit(code)
                if residue is None or child % modulus == residue:
                    pid = child
                    break
                os.waitpid(child, 0)
        if pid is None:
            return Result(argv, f"no child with a PID = {residue} mod {modulus} within {PID_SEARCH_MAX_FORKS} forks "
                                f"or {PID_SEARCH_TIMEOUT_S} s", "", "")
        rc = None
        end = time.monotonic() + timeout
        try:
            while rc is None:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    rc = os.waitstatus_to_exitcode(status)
                elif time.monotonic() > end:
                    rc = f"timeout after {timeout} s"
                else:
                    time.sleep(0.02)
        finally:
            if not isinstance(rc, int):  # timed out, or the whole test's alarm: end it by its PID
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        with open(out_path, errors="replace") as out, open(err_path, errors="replace") as err:
            return Result(argv, rc, out.read(), err.read(), pid)

    def call(self, op, *args, port=None, json_out=True, wsdl=None, file=None, url=None):
        argv = [self.call_bin, "--wsdl", wsdl or self.server.wsdl_url]
        if port:
            argv += ["--port", port]
        if url:
            argv += ["--url", url]
        if json_out:
            argv.append("--json")
        if file:
            argv += ["-f", file]
        argv.append(op)
        return self.run(argv + list(args))

    # --- recording -----------------------------------------------------------------------------------
    def check(self, name, ok, result=None, why=""):
        if ok:
            print(f"ok: {name}")
        else:
            self._failed[0] += 1
            print(f"FAIL: {name}{': ' + why if why else ''}{result.describe() if result else ''}")
        return ok

    # --- generic checks ------------------------------------------------------------------------------
    def list_ports(self, ports, style):
        """ports: {port name: (soap version, binding name, address, {operation: action})}."""
        r = self.run([self.call_bin, "--wsdl", self.server.wsdl_url, "list"])
        lines = r.out.splitlines()
        missing = []
        for port, (version, _, _, actions) in ports.items():
            for op, action in actions.items():
                if not any(l.startswith(f"{port} {op}(") and f"SOAP {version}" in l and f'action "{action}"' in l
                           for l in lines):
                    missing.append(f'{port} {op}(...) ... SOAP {version} action "{action}"')
        self.check(f"list names every operation of {', '.join(ports)} with its SOAP version and action",
                   r.rc == 0 and not missing, r, "missing lines: " + "; ".join(missing))

        r = self.run([self.call_bin, "--wsdl", self.server.wsdl_url, "list", "--json"])
        doc = r.json()
        problems = []
        listed = {p.get("name"): p for p in (doc or {}).get("ports", [])} if isinstance(doc, dict) else {}
        for p in listed.values():
            if p.get("soap_version") not in ("1.1", "1.2"):
                problems.append(f"port {p.get('name')} has soap_version {p.get('soap_version')!r}")
        for port, (version, binding, address, actions) in ports.items():
            p = listed.get(port)
            if p is None:
                problems.append(f"no port {port}")
                continue
            for key, want in (("soap_version", version), ("address", address), ("style", style)):
                if p.get(key) != want:
                    problems.append(f"{port}.{key} = {p.get(key)!r}, expected {want!r}")
            if not str(p.get("binding", "")).endswith(binding):
                problems.append(f"{port}.binding = {p.get('binding')!r}, expected {binding!r}")
            ops = {o.get("name"): o for o in p.get("operations", [])}
            for op, action in actions.items():
                if op not in ops:
                    problems.append(f"{port} has no operation {op}")
                elif ops[op].get("action") != action:
                    problems.append(f"{port} {op} action = {ops[op].get('action')!r}, expected {action!r}")
        self.check("list --json: every port with its version, address, binding, style and operations",
                   r.rc == 0 and doc is not None and not problems, r, "; ".join(problems) or "not JSON")
        return listed

    def input_fields(self, listed, port, op, fields, key="input"):
        """fields: {name: required}; each a top-level input field of op (dotted paths also accepted).
        key="output_fields": the same for the output."""
        ops = {o.get("name"): o for o in listed.get(port, {}).get("operations", [])}
        inputs = ops.get(op, {}).get(key, [])
        problems = []
        for name, required in fields.items():
            found = [f for f in inputs if f.get("name") == name]
            if not found and any(str(f.get("name", "")).startswith((name + ".", name + "[")) for f in inputs):
                continue
            if not found:
                problems.append(f"no {key} field {name}")
            elif required is not None and found[0].get("required") is not required:
                problems.append(f"{name}.required = {found[0].get('required')!r}, expected {required}")
        what = "input" if key == "input" else "output"
        self.check(f"list --json: {port} {op} {what} fields {', '.join(fields)}", not problems, None,
                   "; ".join(problems) + f" ({key} = {json.dumps(inputs)[:600]})")

    def answer(self, name, r, test):
        """A call that must succeed (exit 0) and whose JSON answer passes test(doc)."""
        doc = r.json()
        try:
            good = r.rc == 0 and doc is not None and bool(test(doc))
        except (KeyError, TypeError, IndexError, AttributeError):
            good = False
        return self.check(name, good, r, "unexpected answer") and doc

    def last_post(self, name, path, media):
        posts = self.server.posts()
        last = posts[-1] if posts else ""
        self.check(name, last.startswith(path + " ") and media in last, None,
                   f"the server's last POST was {last!r}, expected {path} with {media}")

    def fault(self, name, r, code, reason, detail_tokens):
        lines = r.out.splitlines()
        fault_line = next((l for l in lines if l.startswith("fault: ")), "")
        detail_line = next((l for l in lines if l.startswith("detail: ")), "")
        self.check(name, r.rc == 2 and code in fault_line and reason in fault_line
                   and any(t in detail_line for t in detail_tokens), r,
                   f"expected exit 2, 'fault: ...{code}...: {reason}' and a 'detail:' line with one of "
                   f"{detail_tokens}")

    def refused(self, name, field_pattern, op, *args, port=None, url=None):
        """Calls op; expects exit 64, one stderr line naming the field (regex), and nothing sent (counted only
        when the server logs its POSTs)."""
        before = len(self.server.posts())
        r = self.call(op, *args, port=port, url=url)
        err_lines = [l for l in r.err.splitlines() if l.strip()]
        sent = len(self.server.posts()) - before
        self.check(name, r.rc == 64 and len(err_lines) == 1 and re.search(field_pattern, err_lines[0])
                   and sent == 0, r, f"expected exit 64, one stderr line matching /{field_pattern}/ and "
                   f"nothing sent (the server got {sent} POSTs)")

    def stress(self, name, op, sets, n=200, c=4, port=None, stderr_pattern=None, url=None, validate=None):
        """n calls must all be ok in lather-stress's --json, and (when the server logs its POSTs) reach it.
        Returns the --json's calls object ({} if there was none)."""
        out = os.path.join(self.server.work, f"stress-{op}-{n}-{c}.json")
        argv = [self.stress_bin] + ([url] if url else []) + ["--wsdl", self.server.wsdl_url, "--op", op]
        if port:
            argv += ["--port", port]
        for s in sets:
            argv += ["--set", s]
        if validate:
            argv += ["--validate", str(validate)]
        argv += ["-n", str(n), "-c", str(c), "--no-probe", "--json", out]
        before = len(self.server.posts())
        r = self.run(argv, timeout=STRESS_TIMEOUT_S)
        calls = {}
        try:
            with open(out) as f:
                calls = json.load(f).get("calls", {})
        except (OSError, ValueError, AttributeError):
            pass
        received = len(self.server.posts()) - before
        good = (r.rc == 0 and calls.get("ok") == n and calls.get("failed") == 0
                and (received >= n or not self.server.logs_posts))
        if stderr_pattern:
            good = good and re.search(stderr_pattern, r.err) is not None
        self.check(name, good, r, f"expected exit 0, calls.ok == {n}, calls.failed == 0"
                   + (f", {n} POSTs received" if self.server.logs_posts else "")
                   + (f", stderr matching /{stderr_pattern}/" if stderr_pattern else "")
                   + f" (calls = {calls}, received {received})")
        return calls
