"""The foreign SOAP services of tests/interop/wsdl, started and stopped by the test (foreign_wsdl.py).

Each STARTERS function (work, build_dir) starts one real server bound to 127.0.0.1 on a free port, waits
until it serves its WSDL and returns a Server; start_peers returns a Group of three. Every server appends
one line "PATH CONTENT-TYPE | SOAPACTION" per POST to Server.log_path (Server.posts() reads them), so a
test can tell whether a request reached it and over which port - except the project's own peers (Spyne's
spyne_server.py and lather-service, run as they are), whose Server.logs_posts is False. Server.stop()
ends the process by its PID (SIGTERM, then SIGKILL); children also get SIGKILL if this Python process dies
first (PR_SET_PDEATHSIG).
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
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
STARTUP_TIMEOUT_S = 20.0
# soapcpp2 + g++ of calc.h's server: about 3 s on a quiet machine, over 60 s beside stress-ng on both cores
# (scripts/test-busy); the limit only catches a compiler that hangs.
GSOAP_BUILD_TIMEOUT_S = 240.0
ASMX_STARTUP_TIMEOUT_S = 60.0  # the first ?WSDL compiles Service.asmx
STOP_TIMEOUT_S = 5.0
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 never via http_proxy


class MissingRuntime(Exception):
    """The server's runtime (php, node, mono, spyne, gsoap) is not installed: the test is skipped."""


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
        self.logs_posts = True  # False: the server writes nothing to log_path (posts() stays empty)
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

    def wait_for_port_file(self, path, timeout_s):
        """The port a server wrote to path (--port-file), waiting up to timeout_s."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                with open(path) as f:
                    text = f.read().strip()
                if text.isdigit():
                    return int(text)
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise StartFailure(f"{self.name} exited with {self.proc.returncode}: {self.errors()}")
            time.sleep(0.05)
        raise StartFailure(f"{self.name} wrote no port to {path} in {timeout_s:.0f} s: {self.errors()}")

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


def start_php_shop(work, build_dir=None):
    return _php(work, "php_shop", "/shop/service?wsdl", {"LATHER_WSDL_STATE": os.path.join(work, "orders.json")})


def start_php_rpc(work, build_dir=None):
    return _php(work, "php_rpc", "/calc/service?wsdl")


def start_node_soap(work, build_dir=None):
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


def start_asmx(work, build_dir=None):
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


def start_refusals(work, build_dir=None):
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


class Group:
    """Several servers started for one SERVICE (peers), by name; stop() ends them all."""

    def __init__(self, work):
        self.work = work
        self.members = {}

    def add(self, name, server):
        self.members[name] = server
        return server

    def __getitem__(self, name):
        return self.members[name]

    @property
    def wsdl_url(self):
        return ", ".join(f"{name} {server.wsdl_url}" for name, server in self.members.items())

    def errors(self, limit=2000):
        return "".join(f"--- {name}:\n{server.errors(limit)}\n" for name, server in self.members.items())

    def stop(self):
        for server in reversed(list(self.members.values())):
            server.stop()


def start_spyne(work):
    """tests/interop/spyne_server.py as it is (a Spyne WSGI app under wsgiref, HTTP/1.0); it logs no POSTs."""
    python = "/usr/bin/python3"
    if not os.access(python, os.X_OK):
        raise MissingRuntime(f"{python} is not installed")
    probe = subprocess.run([python, "-c", "import spyne, lxml"], capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        raise MissingRuntime("Python Spyne is not installed (apt-get install python3-spyne python3-lxml)")
    os.makedirs(work)
    port_file = os.path.join(work, "spyne.port")
    server = Server("spyne", [python, os.path.join(REPO, "tests", "interop", "spyne_server.py"), "--port", "0",
                              "--port-file", port_file], work)
    server.logs_posts = False
    try:
        port = server.wait_for_port_file(port_file, STARTUP_TIMEOUT_S)
        server.wait_for_wsdl(f"http://127.0.0.1:{port}/soap?wsdl", STARTUP_TIMEOUT_S)
        return server
    except Exception:
        server.stop()
        raise


def start_gsoap(work):
    """gsoap/calc.h through Debian's soapcpp2 (calc.wsdl, ns.xsd and the server skeleton) and g++ with
    gsoap/calc_server.cpp. Server.wsdl_url is the generated calc.wsdl (a file; its soap:address is the dead
    http://127.0.0.1:1/calc), Server.live_url the running server's endpoint."""
    soapcpp2, cxx = shutil.which("soapcpp2"), shutil.which("g++")
    if soapcpp2 is None:
        raise MissingRuntime("soapcpp2 is not installed (apt-get install gsoap)")
    if cxx is None:
        raise MissingRuntime("g++ is not installed (apt-get install g++)")
    if not os.path.exists("/usr/include/stdsoap2.h"):
        raise MissingRuntime("gSOAP's headers and libgsoap++ are not installed (apt-get install libgsoap-dev)")
    gen = os.path.join(work, "generated")
    os.makedirs(gen)
    shutil.copy(os.path.join(HERE, "gsoap", "calc.h"), gen)
    steps = [(["soapcpp2", "-S", "-L", "-x", "-d", gen, "calc.h"], "soapcpp2 -S -L -x calc.h"),
             (["nice", "-n", "19", cxx, "-std=c++17", "-O0", "-w", "-I", gen, "-o", os.path.join(gen, "calc_server"),
               os.path.join(HERE, "gsoap", "calc_server.cpp"), os.path.join(gen, "soapC.cpp"),
               os.path.join(gen, "soapServer.cpp"), "-lgsoap++", "-pthread"], "g++ calc_server.cpp")]
    deadline = time.monotonic() + GSOAP_BUILD_TIMEOUT_S
    for argv, what in steps:
        try:
            build = subprocess.run(argv, cwd=gen, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                                   timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise StartFailure(f"{what} took more than {GSOAP_BUILD_TIMEOUT_S:.0f} s") from None
        if build.returncode != 0:
            raise StartFailure(f"{what} failed (exit {build.returncode}): {(build.stdout + build.stderr)[-1500:]}")
    for name in ("calc.wsdl", "ns.xsd"):
        if not os.path.exists(os.path.join(gen, name)):
            raise StartFailure(f"soapcpp2 wrote no {name} in {gen}")
    server = Server("gsoap", [os.path.join(gen, "calc_server")], work)
    try:
        port = int(server.wait_for_line("listening ", STARTUP_TIMEOUT_S).split()[1])
        server.live_url = f"http://127.0.0.1:{port}/calc"
        server.wsdl_url = os.path.join(gen, "calc.wsdl")
        return server
    except Exception:
        server.stop()
        raise


def start_lather(work, build_dir):
    """build/service/lather-service on port 0 with its own SQLite store; it logs no POSTs."""
    binary = os.path.join(build_dir, "service", "lather-service")
    if not os.access(binary, os.X_OK):
        raise StartFailure(f"{binary} is missing or not executable")
    os.makedirs(work)
    port_file = os.path.join(work, "lather.port")
    server = Server("lather", [binary, "--listen", "127.0.0.1:0", "--port-file", port_file,
                               "--store", "sqlite:" + os.path.join(work, "lather.db")], work)
    server.logs_posts = False
    try:
        port = server.wait_for_port_file(port_file, STARTUP_TIMEOUT_S)
        server.wait_for_wsdl(f"http://127.0.0.1:{port}/soap?wsdl", STARTUP_TIMEOUT_S)
        return server
    except Exception:
        server.stop()
        raise


def start_peers(work, build_dir):
    """The project's own peer servers, each in its folder of work: Spyne, a gSOAP build of gsoap/calc.h, and
    lather-service."""
    group = Group(work)
    try:
        group.add("spyne", start_spyne(os.path.join(work, "spyne")))
        group.add("gsoap", start_gsoap(os.path.join(work, "gsoap")))
        group.add("lather", start_lather(os.path.join(work, "lather"), build_dir))
        return group
    except BaseException:
        group.stop()
        raise


def start_byte_identity(work, build_dir=None):
    """byte_identity/capture_server.py: wsdl/lather.wsdl at /soap?wsdl (its addresses pointing back at it),
    every POST's raw bytes in Server.capture_dir, answers computed from the requests."""
    capture_dir = os.path.join(work, "captured")
    os.makedirs(capture_dir)
    server = Server("capture", ["/usr/bin/python3", os.path.join(HERE, "byte_identity", "capture_server.py"),
                                os.path.join(REPO, "wsdl", "lather.wsdl"), capture_dir], work)
    server.capture_dir = capture_dir
    try:
        port = int(server.wait_for_line("listening ", STARTUP_TIMEOUT_S).split()[1])
        server.wait_for_wsdl(f"http://127.0.0.1:{port}/soap?wsdl", STARTUP_TIMEOUT_S)
        return server
    except Exception:
        server.stop()
        raise


STARTERS = {"php-shop": start_php_shop, "php-rpc": start_php_rpc, "node-soap": start_node_soap,
            "asmx": start_asmx, "refusals": start_refusals, "peers": start_peers,
            "byte-identity": start_byte_identity}
