#!/usr/bin/env python3
"""The HTML reports in a real browser: Debian's headless Chromium, with no network (its own network
namespace when root can make one, and every host name mapped to nowhere), opens from file:// URLs
  - a live run's --html (lather-stress with its embedded service),
  - `merge`'s --html of two harnesses started together with --start-at against one lather-service,
  - `report`'s --html of both runs side by side,
  - `compare`'s and `sweep`'s --html against two services (the event and the classic engine),
and checks in the DOM after the page's script ran: no script error and no console message, every chart
drawn (an <svg> per figure, lines with their points, bars), the spectrum with as many points as the
.hgrm has steps below 100%, the per-second line with one point per rated second of the series, the figures on
the page equal to the JSON's, the verdict text there; that the page fetched nothing (the Performance API
inside the page, and Chromium's net log: no request that a page initiated, which a control page with an
<img> proves the check can see); no src/href/url()/@import in the file; at 360 px wide nothing overflows,
and a 360 px screenshot of the run's page is not blank.
Usage: html_browser_test.py BUILD_DIR   (exit 77 when Chromium is not installed)"""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import png  # noqa: E402  (tests/report/png.py)

build = os.path.abspath(sys.argv[1])
stress = os.path.join(build, "stress", "lather-stress")
service = os.path.join(build, "service", "lather-service")
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    print("SKIP: Chromium is not installed (scripts/bootstrap installs Debian's chromium)")
    sys.exit(77)

work = tempfile.mkdtemp(prefix="lather-html-")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS", name)
    else:
        failed += 1
        print("FAIL", name, detail)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)


# No network for the browser: a namespace of its own when possible, and every name resolving nowhere.
isolate = []
if os.geteuid() == 0 and shutil.which("unshare") and run(["unshare", "-n", "true"]).returncode == 0:
    isolate = ["unshare", "-n"]


def browser(url, extra, tag):
    netlog = os.path.join(work, tag + ".netlog.json")
    args = isolate + [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                      "--disable-background-networking", "--disable-component-update", "--disable-sync",
                      "--disable-default-apps", "--disable-domain-reliability", "--no-pings",
                      "--user-data-dir=" + os.path.join(work, "profile-" + tag),
                      "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
                      "--enable-logging=stderr", "--v=0", "--log-net-log=" + netlog] + extra + [url]
    r = run(args)
    return r, netlog


def page_requests(netlog):
    """URLs of requests a page initiated (Chromium's own background requests have no origin)."""
    with open(netlog) as f:
        log = json.load(f)
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = []
    for e in log["events"]:
        p = e.get("params", {})
        if types.get(e["type"]) == "URL_REQUEST_START_JOB" and "url" in p:
            if p.get("initiator", "not an origin") != "not an origin":
                urls.append(p["url"])
    return urls


class Dom(html.parser.HTMLParser):
    """The parts of the dumped DOM the checks read."""

    def __init__(self):
        super().__init__()
        self.body = {}
        self.figures = []  # [{"kind", "svg", "polylines": [points], "bars": n}]
        self.cells = {}    # data-figure -> [data-value, text]
        self.text = []
        self._cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        elif tag == "figure" and "data-chart" in a:
            self.figures.append({"kind": a.get("data-kind"), "svg": 0, "polylines": [], "bars": 0})
        elif tag == "svg" and self.figures:
            self.figures[-1]["svg"] += 1
        elif tag == "polyline" and self.figures:
            self.figures[-1]["polylines"].append(int(a.get("data-points", "0")))
        elif tag == "rect" and "bar" in (a.get("class") or "") and self.figures:
            self.figures[-1]["bars"] += 1
        if "data-figure" in a:
            self._cell = a["data-figure"]
            self.cells.setdefault(self._cell, []).append([a.get("data-value"), ""])

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell:
            self.cells[self._cell][-1][1] += data


def steps_below_100(hgrm_path):
    with open(hgrm_path) as f:
        lines = [l.split() for l in f if l.strip() and not l.startswith("#") and not l.lstrip().startswith("Value")]
    return sum(1 for l in lines if float(l[1]) < 1.0)


def open_and_check(tag, html_path):
    """What every page must do: load nothing, render without error, request nothing. Returns its DOM."""
    with open(html_path) as f:
        source = f.read()
    check(tag + ": the file loads nothing (no src, href, url(), @import)",
          not re.search(r"\s(src|href)\s*=|url\(|@import", source, re.I))
    r, netlog = browser("file://" + html_path, ["--window-size=1000,900", "--dump-dom"], tag)
    check(tag + ": chromium ran", r.returncode == 0, r.stderr[-500:])
    dom = Dom()
    dom.feed(r.stdout)
    consoles = [l for l in r.stderr.splitlines() if ":CONSOLE" in l]
    check(tag + ": the script ran to the end", dom.body.get("data-lather-rendered") == "ok", str(dom.body))
    check(tag + ": no script error", "data-lather-error" not in dom.body, dom.body.get("data-lather-error", ""))
    check(tag + ": no console message", not consoles, "\n".join(consoles[:3]))
    requests = page_requests(netlog)
    check(tag + ": no request from the page in Chromium's net log", not requests, str(requests))
    dom.source = source
    return dom


def check_narrow(tag, html_path):
    """A phone's width: nothing wider than the screen."""
    r, _ = browser("file://" + html_path, ["--window-size=360,800", "--dump-dom"], tag + "-360")
    narrow = Dom()
    narrow.feed(r.stdout)
    check(tag + ": nothing overflows at 360 px", narrow.body.get("data-lather-overflow") == "no"
          and narrow.body.get("data-lather-rendered") == "ok", str(narrow.body))


def check_page(tag, html_path, runs, hgrm_path=None, screenshot=False):
    """Opens the page and checks it against the runs (the JSON documents) it shows."""
    dom = open_and_check(tag, html_path)
    source = dom.source
    urls = set(re.findall(r"https?://[^\s\"'<>\\]+", source)) - {"http://www.w3.org/2000/svg"}
    targets = {r["settings"]["url"] for r in runs}
    check(tag + ": the only URLs in it are the runs' targets (text) and the SVG namespace", urls <= targets,
          str(urls - targets))
    check(tag + ": the page fetched nothing (Performance API)", dom.body.get("data-lather-resources") == "0",
          str(dom.body.get("data-lather-resources")))
    check(tag + ": every chart drawn", len(dom.figures) > 0 and dom.body.get("data-lather-charts") == str(len(dom.figures))
          and all(f["svg"] == 1 for f in dom.figures), str(dom.figures))
    for f in dom.figures:
        if f["kind"] == "bars":
            check(tag + ": bars chart has bars", f["bars"] > 0, str(f))
        else:
            check(tag + ": %s chart has lines with points" % f["kind"], f["polylines"] and max(f["polylines"]) > 0, str(f))
    spectra = [f for f in dom.figures if f["kind"] == "spectrum"]
    check(tag + ": one spectrum with a line per run", len(spectra) == 1 and len(spectra[0]["polylines"]) >= len(runs),
          str(spectra))
    if hgrm_path:
        check(tag + ": the spectrum has a point per .hgrm step below 100%",
              spectra[0]["polylines"][0] == steps_below_100(hgrm_path),
              "%s vs %d" % (spectra[0]["polylines"], steps_below_100(hgrm_path)))
    lines = [f for f in dom.figures if f["kind"] == "lines"]
    # A second too short for a rate (the JSON gives it no calls_ok_per_second) has no point.
    seconds = [sum("calls_ok_per_second" in s for s in run["series"]["seconds"]) for run in runs]
    check(tag + ": calls/s per second has a point per rated second of each run", lines and lines[0]["polylines"] == seconds,
          "%s vs %s" % (lines[0]["polylines"] if lines else None, seconds))
    values = dom.cells.get("calls_per_second", [])
    check(tag + ": calls/s on the page is the JSON's, for each run", len(values) == len(runs) and all(
        abs(float(v[0]) - run["calls"]["calls_per_second"]) <= 1e-9 * max(1.0, run["calls"]["calls_per_second"])
        and v[1] == "{:,}".format(round(run["calls"]["calls_per_second"])) for v, run in zip(values, runs)),
          "%s vs %s" % (values, [run["calls"]["calls_per_second"] for run in runs]))
    p99 = dom.cells.get("p99_ns", [])
    check(tag + ": p99 on the page is the JSON's", len(p99) == len(runs) and all(
        int(v[0]) == run["latency"]["p99_ns"] for v, run in zip(p99, runs)), str(p99))
    text = " ".join(" ".join(dom.text).split())
    check(tag + ": the verdict text is on the page", all(" ".join(run["verdict"]["text"].split()) in text for run in runs))

    # A phone's width: nothing wider than the screen, and a picture that is not blank.
    check_narrow(tag, html_path)
    if not screenshot:
        return
    shot = os.path.join(work, tag + "-360.png")
    r, _ = browser("file://" + html_path, ["--window-size=360,1400", "--screenshot=" + shot, "--hide-scrollbars"],
                   tag + "-shot")
    if os.path.exists(shot):
        width, height, channels, rows = png.read(shot)
        dark = png.drawn_pixels(rows, channels)
        check(tag + ": the 360 px screenshot is 360 wide and not blank (%d of %d pixels drawn)" % (dark, width * height),
              width == 360 and dark > 0.02 * width * height)
    else:
        check(tag + ": chromium wrote the 360 px screenshot", False, r.stderr[-300:])


def check_other_page(tag, html_path, kinds, texts):
    """compare's and sweep's pages: self-contained, drawn without error or request, `kinds` of charts present
    (each with data), `texts` on the page, nothing overflowing at 360 px. Returns the page's figures."""
    dom = open_and_check(tag, html_path)
    check(tag + ": every chart drawn", len(dom.figures) > 0 and all(f["svg"] == 1 for f in dom.figures), str(dom.figures))
    for kind in kinds:
        found = [f for f in dom.figures if f["kind"] == kind]
        check(tag + ": a %s chart with data" % kind, found and all(
            (f["bars"] > 0) if kind == "bars" else (f["polylines"] and max(f["polylines"]) > 0) for f in found), str(found))
    text = " ".join(" ".join(dom.text).split())
    for t in texts:
        check(tag + ": the page says %r" % t, t in text)
    check_narrow(tag, html_path)
    return dom.figures


def load(path):
    with open(path) as f:
        return json.load(f)


try:
    # The net log check sees a page's request: a control page that asks for an image.
    control = os.path.join(work, "control.html")
    with open(control, "w") as f:
        f.write('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png"></body></html>')
    _, netlog = browser("file://" + control, ["--dump-dom"], "control")
    check("control: the net log check sees a page's request", page_requests(netlog) == ["http://127.0.0.1:9/x.png"],
          str(page_requests(netlog)))

    # 1. A live run with --html, --json and --hgrm.
    one = os.path.join(work, "one")
    r = run([stress, "-d", "2s", "--warmup", "0.5s", "-c", "8", "--json", one + ".json", "--html", one + ".html",
             "--hgrm", one + ".hgrm"])
    check("a run writes --json, --html and --hgrm", r.returncode == 0 and all(
        os.path.exists(one + e) for e in (".json", ".html", ".hgrm")), r.stderr[-500:])
    check_page("run", one + ".html", [load(one + ".json")], one + ".hgrm", screenshot=True)

    # 2. Two harnesses started together against one service, merged.
    db = os.path.join(work, "c.db")
    port_file = os.path.join(work, "port")
    svc = subprocess.Popen([service, "--listen", "127.0.0.1:0", "--store", "sqlite:" + db, "--port-file", port_file],
                           stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(port_file) and os.path.getsize(port_file) > 0:
                break
            time.sleep(0.1)
        url = "http://127.0.0.1:%s/soap" % open(port_file).read().strip()
        at = "%.3f" % (time.time() + 2)
        harnesses = [subprocess.Popen([stress, url, "-c", "4", "-d", "2s", "--warmup", "0.5s", "--start-at", at,
                                       "--json", os.path.join(work, "h%d.json" % i)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for i in (1, 2)]
        errors = [h.communicate(timeout=60)[1] for h in harnesses]
        check("two harnesses with --start-at ran", all(h.returncode == 0 for h in harnesses) and
              all("waiting" in e for e in errors), str(errors))
    finally:
        svc.terminate()
        svc.wait(timeout=10)
    h1, h2 = (os.path.join(work, "h%d.json" % i) for i in (1, 2))
    starts = [load(h)["run"]["window_start_unix_ns"] for h in (h1, h2)]
    check("--start-at began both windows within 250 ms", abs(starts[0] - starts[1]) < 250e6, str(starts))
    merged = os.path.join(work, "merged")
    r = run([stress, "merge", h1, h2, "--json", merged + ".json", "--html", merged + ".html", "--hgrm", merged + ".hgrm"])
    check("merge of the two runs", r.returncode == 0 and "merged from  2 runs" in r.stdout, r.stdout[-300:] + r.stderr)
    check_page("merge", merged + ".html", [load(merged + ".json")], merged + ".hgrm")

    # 3. report over saved runs: both side by side.
    both = os.path.join(work, "both.html")
    r = run([stress, "report", one + ".json", merged + ".json", "--html", both])
    check("report of two saved runs", r.returncode == 0, r.stderr)
    check_page("report", both, [load(one + ".json"), load(merged + ".json")])

    # 4. compare's and sweep's pages, against two services (the event and the classic engine).
    services, urls = [], []
    try:
        for i, engine in enumerate(("event", "classic")):
            pf = os.path.join(work, "port-%s" % engine)
            services.append(subprocess.Popen([service, "--listen", "127.0.0.1:0", "--engine", engine, "--store",
                                              "sqlite:" + os.path.join(work, "c%d.db" % i), "--port-file", pf],
                                             stderr=subprocess.DEVNULL))
            for _ in range(100):
                if os.path.exists(pf) and os.path.getsize(pf) > 0:
                    break
                time.sleep(0.1)
            urls.append("http://127.0.0.1:%s/soap" % open(pf).read().strip())
        cmp_base = os.path.join(work, "compare")
        r = run([stress, "compare", "event=" + urls[0], "classic=" + urls[1], "-c", "4", "-t", "1", "-d", "1s",
                 "--warmup", "0.3s", "--rounds", "2", "--json", cmp_base + ".json", "--html", cmp_base + ".html"])
        check("compare writes --json and --html", r.returncode == 0 and os.path.exists(cmp_base + ".html"), r.stderr[-500:])
        doc = load(cmp_base + ".json")
        median = "{:,}".format(round(doc["targets"][0]["calls_per_second_median"]))
        figures = check_other_page("compare", cmp_base + ".html", ["bars", "spectrum"], ["event", "classic", median])
        bars = [f for f in figures if f["kind"] == "bars"]
        check("compare: two bar charts, a bar per target", len(bars) == 2 and all(f["bars"] >= 2 for f in bars), str(bars))
        sweep_base = os.path.join(work, "sweep")
        r = run([stress, "sweep", urls[0], "--steps", "1,2,4,8", "-d", "0.5s", "--warmup", "0.2s", "--json",
                 sweep_base + ".json", "--html", sweep_base + ".html"])
        check("sweep writes --json and --html", r.returncode == 0 and os.path.exists(sweep_base + ".html"), r.stderr[-500:])
        figures = check_other_page("sweep", sweep_base + ".html", ["lines"], ["Knee at", "Steps"])
        lines = [f for f in figures if f["kind"] == "lines"]
        check("sweep: the calls/s curve has a point per step", lines and lines[0]["polylines"][0] == 4,
              str(lines[0] if lines else None))
    finally:
        for svc in services:
            svc.terminate()
            svc.wait(timeout=10)
finally:
    shutil.rmtree(work, ignore_errors=True)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
