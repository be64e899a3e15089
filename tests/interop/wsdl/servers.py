"""The foreign SOAP services of tests/interop/wsdl, started and stopped by the test (foreign_wsdl.py).

Each start_* function starts one real server bound to 127.0.0.1 on a free port, waits until it serves its
WSDL and returns a Server. Every server appends one line "PATH CONTENT-TYPE | SOAPACTION" per POST to
Server.log_path (Server.posts() reads them), so a test can tell whether a request reached it and over
which port. Server.stop() ends the process by its PID (SIGTERM, then SIGKILL); children also get SIGKILL
if this Python process dies first (PR_SET_PDEATHSIG).
"""

import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
STARTUP_TIMEOUT_S = 20.0
ASMX_STARTUP_TIMEOUT_S = 60.0  # the first ?WSDL compiles Service.asmx
STOP_TIMEOUT_S = 5.0
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 never via http_proxy


class MissingRuntime(Exception):
    """The server's runtime (php, node, mono) is not installed: the test is skipped."""


class StartFailure(Exception):
    pass


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Server:
    def __init__(self, name, argv, work, cwd=None, env=None):
        self.name, self.work = name, work
        self.log_path = os.path.join(work, "posts.log")
        self.out_path = os.path.join(work, name + ".out")
        self.err_path = os.path.join(work, name + ".err")
        open(self.log_path, "w").close()
        full_env = dict(os.environ, LATHER_WSDL_LOG=self.log_path, **(env or {}))
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(argv, cwd=cwd, env=full_env, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=err, preexec_fn=_die_with_parent)
        self.wsdl_url = None

    def output(self):
        with open(self.out_path, errors="replace") as f:
            return f.read()

    def errors(self, limit=2000):
        """The end of the server's stderr, without the PHP built-in server's per-connection lines."""
        with open(self.err_path, errors="replace") as f:
            lines = [l for l in f if not re.search(r"\] 127\.0\.0\.1:\d+ (Accepted|Closing)$", l.rstrip())]
        return "".join(lines)[-limit:]

    def posts(self):
        with open(self.log_path, errors="replace") as f:
            return [line.rstrip("\n") for line in f if line.strip()]

    def wait_for_line(self, prefix, timeout_s):
        """The first stdout line starting with prefix, waiting up to timeout_s."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for line in self.output().splitlines():
                if line.startswith(prefix):
                    return line
            if self.proc.poll() is not None:
                raise StartFailure(f"{self.name} exited with {self.proc.returncode}: {self.errors()}")
            time.sleep(0.05)
        raise StartFailure(f"{self.name} printed no '{prefix}' line in {timeout_s:.0f} s: {self.errors()}")

    def wait_for_wsdl(self, url, timeout_s):
        deadline = time.monotonic() + timeout_s
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise StartFailure(f"{self.name} exited with {self.proc.returncode}: {self.errors()}")
            try:
                with NO_PROXY.open(url, timeout=max(1.0, deadline - time.monotonic())) as r:
                    if r.status == 200 and b"definitions" in r.read():
                        self.wsdl_url = url
                        return
            except OSError as e:
                last = e
            time.sleep(0.1)
        raise StartFailure(f"{self.name}: {url} did not answer with a WSDL in {timeout_s:.0f} s ({last}): "
                           f"{self.errors()}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(STOP_TIMEOUT_S)


def _php(work, folder, wsdl_path, extra_env=None):
    if shutil.which("php") is None:
        raise MissingRuntime("php is not installed (apt-get install php-cli php-soap)")
    mods = subprocess.run(["php", "-m"], capture_output=True, text=True, timeout=30).stdout.split()
    if "soap" not in mods:
        raise MissingRuntime("PHP has no soap extension (apt-get install php-soap)")
    last = None
    for _ in range(3):  # a free port may be taken between free_port() and php -S: try another
        port = free_port()
        # One process (no PHP_CLI_SERVER_WORKERS): it handles one request at a time, Connection: close.
        server = Server(folder, ["php", "-S", f"127.0.0.1:{port}", "router.php"], work,
                        cwd=os.path.join(HERE, folder), env=extra_env)
        try:
            server.wait_for_wsdl(f"http://127.0.0.1:{port}{wsdl_path}", STARTUP_TIMEOUT_S)
            return server
        except StartFailure as e:
            server.stop()
            last = e
    raise last


def start_php_shop(work):
    return _php(work, "php_shop", "/shop/service?wsdl", {"LATHER_WSDL_STATE": os.path.join(work, "orders.json")})


def start_php_rpc(work):
    return _php(work, "php_rpc", "/calc/service?wsdl")


def start_node_soap(work):
    node = shutil.which("node")
    if node is None:
        raise MissingRuntime("node is not installed")
    module = os.path.join(HERE, "..", "node", "node_modules", "soap")
    if not os.path.isdir(module):
        raise StartFailure(f"{os.path.normpath(module)} is missing (run tests/interop/node/install.sh)")
    server = Server("node_soap", [node, os.path.join(HERE, "node_soap", "server.js")], work)
    try:
        port = int(server.wait_for_line("listening ", STARTUP_TIMEOUT_S).split()[1])
        server.wait_for_wsdl(f"http://127.0.0.1:{port}/ship/service?wsdl", STARTUP_TIMEOUT_S)
        return server
    except Exception:
        server.stop()
        raise


def start_asmx(work):
    """Service.asmx in Mono's ASP.NET runtime behind asmx/AsmxHost.cs (xsp4 4.2 does not start on Mono 6.8)."""
    for tool in ("mono", "mcs"):
        if shutil.which(tool) is None:
            raise MissingRuntime(f"{tool} is not installed (apt-get install mono-devel mono-xsp4)")
    if not os.path.isdir("/usr/lib/mono/gac/System.Web.Services"):
        raise MissingRuntime("Mono's System.Web.Services is not installed (apt-get install mono-xsp4)")
    app = os.path.join(work, "app")
    os.makedirs(os.path.join(app, "bin"))
    for name in ("Service.asmx", "web.config"):
        shutil.copy(os.path.join(HERE, "asmx", name), app)
    # Mono's ASP.NET keeps its compiled pages under TMPDIR and its settings under HOME: both in work.
    env = {"HOME": os.path.join(work, "home"), "TMPDIR": os.path.join(work, "tmp")}
    for d in env.values():
        os.makedirs(d)
    exe = os.path.join(app, "bin", "AsmxHost.exe")
    build = subprocess.run(["nice", "-n", "19", "mcs", "-nologo", "-r:System.Web.dll", f"-out:{exe}",
                            os.path.join(HERE, "asmx", "AsmxHost.cs")],
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, **env))
    if build.returncode != 0:
        raise StartFailure(f"mcs AsmxHost.cs failed: {build.stdout}{build.stderr}")
    last = None
    for _ in range(3):
        port = free_port()
        server = Server("asmx", ["mono", exe, str(port), app, os.path.join(work, "posts.log")], work, env=env)
        try:
            server.wait_for_line("listening ", STARTUP_TIMEOUT_S)
            server.wait_for_wsdl(f"http://127.0.0.1:{port}/Service.asmx?WSDL", ASMX_STARTUP_TIMEOUT_S)
            return server
        except StartFailure as e:
            server.stop()
            last = e
    raise last


def start_refusals(work):
    """python3 -m http.server over refusals/ (it binds port 0 and prints the port it got)."""
    server = Server("refusals", ["/usr/bin/python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
                                 "--directory", os.path.join(HERE, "refusals")], work)
    try:
        line = server.wait_for_line("Serving HTTP on ", STARTUP_TIMEOUT_S)
        port = int(line.split(" port ")[1].split()[0])
        server.wait_for_wsdl(f"http://127.0.0.1:{port}/weird-style.wsdl", STARTUP_TIMEOUT_S)
        server.base_url = f"http://127.0.0.1:{port}"
        return server
    except Exception:
        server.stop()
        raise


STARTERS = {"php-shop": start_php_shop, "php-rpc": start_php_rpc, "node-soap": start_node_soap,
            "asmx": start_asmx, "refusals": start_refusals}
