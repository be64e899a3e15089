#include "stress/report/run_html.h"

#include <algorithm>
#include <cstdio>

#include "stress/report/hgrm.h"
#include "stress/report/units.h"
#include "stress/verdict/verdict_format.h"

namespace lather {
namespace {

using Figure = std::pair<std::string, std::string>;

std::string Exact(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::string Ns(uint64_t ns) { return FormatNanos(static_cast<double>(ns)); }

std::string Share(double share) { return share < 0 ? "unknown" : FormatPercent(share); }

std::string NameOf(const RunReport& r, size_t i) {
  return r.context.name.empty() ? "run " + std::to_string(i + 1) : r.context.name;
}

std::string Model(const StressSettings& s) {
  return s.rate > 0 ? "open, " + WithThousands(s.rate) + " calls/s " + (s.poisson ? "(Poisson)" : "(uniform)") : "closed";
}

// The figures table of one run: name, shown value and exact value of each.
std::vector<std::pair<std::string, Figure>> KeyFigures(const RunReport& r) {
  const ThreadStats& t = r.load.total;
  const LatencyHistogram& h = t.latency;
  const double n = static_cast<double>(r.calls());
  std::vector<std::pair<std::string, Figure>> rows = {
      {"calls/s", {"calls_per_second", Exact(r.calls_per_second())}},
      {"calls ok", {"calls_ok", std::to_string(t.calls_ok())}},
      {"calls failed", {"calls_failed", std::to_string(t.failures())}},
      {"latency p50", {"p50_ns", std::to_string(h.ValueAtPercentile(50))}},
      {"latency p90", {"p90_ns", std::to_string(h.ValueAtPercentile(90))}},
      {"latency p99", {"p99_ns", std::to_string(h.ValueAtPercentile(99))}},
      {"latency p99.9", {"p99_9_ns", std::to_string(h.ValueAtPercentile(99.9))}},
      {"latency max", {"max_ns", std::to_string(h.max())}},
      {"latency mean", {"mean_ns", Exact(h.Mean())}},
      {"bytes per call", {"wire_bytes_per_call", Exact(n > 0 ? r.wire_bytes_per_call() : 0)}},
  };
  return rows;
}

std::string Shown(const RunReport& r, const std::string& figure) {
  const ThreadStats& t = r.load.total;
  const LatencyHistogram& h = t.latency;
  if (figure == "calls_per_second") return WithThousands(r.calls_per_second());
  if (figure == "calls_ok") return WithThousands(static_cast<double>(t.calls_ok()));
  if (figure == "calls_failed") return WithThousands(static_cast<double>(t.failures()));
  if (h.count() == 0 && figure.find("_ns") != std::string::npos) return "-";
  if (figure == "p50_ns") return Ns(h.ValueAtPercentile(50));
  if (figure == "p90_ns") return Ns(h.ValueAtPercentile(90));
  if (figure == "p99_ns") return Ns(h.ValueAtPercentile(99));
  if (figure == "p99_9_ns") return Ns(h.ValueAtPercentile(99.9));
  if (figure == "max_ns") return Ns(h.max());
  if (figure == "mean_ns") return FormatNanos(h.Mean());
  if (figure == "wire_bytes_per_call") return WithThousands(r.calls() > 0 ? r.wire_bytes_per_call() : 0);
  return "";
}

// The figures of every run, a column each.
Table FiguresTable(const std::vector<RunReport>& runs) {
  Table t;
  t.header.push_back("");
  for (size_t i = 0; i < runs.size(); ++i) t.header.push_back(NameOf(runs[i], i));
  if (runs.size() == 1) t.header.clear();
  const auto names = KeyFigures(runs.front());
  for (size_t row = 0; row < names.size(); ++row) {
    std::vector<std::string> cells = {names[row].first};
    std::vector<Figure> figures = {{"", ""}};
    for (const RunReport& r : runs) {
      const Figure f = KeyFigures(r)[row].second;
      cells.push_back(Shown(r, f.first));
      figures.push_back(f);
    }
    t.rows.push_back(cells);
    t.figures.push_back(figures);
  }
  return t;
}

// The verdict's evidence: each resource's use, its share and its ceiling.
Table EvidenceTable(const RunReport& r) {
  const Verdict& v = r.verdict;
  const RunFigures& f = r.figures;
  Table t;
  t.title = "Evidence";
  t.header = {"resource", "used", "share", "ceiling"};
  auto ceiling = [](double c) { return c > 0 ? FormatApprox(c) + " calls/s" : "unknown"; };
  t.rows.push_back({"client CPU",
                    v.client_cores_used >= 0 ? FormatCores(v.client_cores_used) + " of " + FormatCoreCount(r.client_cores) + CoresWord(r.client_cores) : "unknown",
                    Share(v.client_utilization), ceiling(v.client_ceiling)});
  t.rows.push_back({"server CPU",
                    v.server_cores_used >= 0 ? FormatCores(v.server_cores_used) + " of " + FormatCoreCount(r.server_cores) + CoresWord(r.server_cores) : "unknown",
                    Share(v.server_utilization), ceiling(v.server_ceiling)});
  if (f.loopback && !f.link_declared) {
    t.rows.push_back({"network", "loopback, no wire", "-", "-"});
  } else {
    const std::string link = FormatBits(f.link_bits_per_second) + (f.half_duplex ? " half duplex" : " each way");
    t.rows.push_back({"network up (requests)", FormatBits(v.calls_per_second * 8 * std::max(0.0, f.wire_up_bytes_per_call)) + " of " + link,
                      Share(v.network_up_utilization), ceiling(v.network_ceiling)});
    t.rows.push_back({"network down (responses)", FormatBits(v.calls_per_second * 8 * std::max(0.0, f.wire_down_bytes_per_call)) + " of " + link,
                      Share(v.network_down_utilization), ceiling(v.network_ceiling)});
  }
  t.rows.push_back({"busiest load thread", v.client_thread_peak >= 0 ? "of one core" : "unknown", Share(v.client_thread_peak), ""});
  t.rows.push_back({"busiest server thread",
                    v.server_thread_peak >= 0 ? "of one core (" + std::to_string(f.server_threads) + " threads)" : "unknown",
                    Share(v.server_thread_peak), ""});
  if (v.shared_utilization >= 0) {
    t.rows.push_back({"shared cores (client + server)", FormatCoreCount(f.machine_cores) + " cores", Share(v.shared_utilization),
                      ceiling(v.shared_ceiling)});
  }
  if (f.unloaded_latency_seconds > 0) {
    t.rows.push_back({"unloaded latency (1 connection)", FormatNanos(f.unloaded_latency_seconds * 1e9), "", ""});
  }
  if (f.server_exec_seconds_per_call >= 0) {
    t.rows.push_back({"server time per call", "queue " + FormatNanos(f.server_queue_wait_seconds_per_call * 1e9) +
                      " + execution " + FormatNanos(f.server_exec_seconds_per_call * 1e9), "", ""});
  }
  return t;
}

Chart SharesChart(const RunReport& r, const std::string& title) {
  const Verdict& v = r.verdict;
  Chart c;
  c.kind = Chart::Kind::kBars;
  c.id = "shares";
  c.title = title;
  c.y_max = 100;
  auto add = [&c](const std::string& name, double share) {
    if (share >= 0) c.bars.push_back({name, 100 * share, -1, -1, FormatPercent(share)});
  };
  add("client CPU", v.client_utilization);
  add("server CPU", v.server_utilization);
  if (!(r.figures.loopback && !r.figures.link_declared)) {
    add("network up", v.network_up_utilization);
    add("network down", v.network_down_utilization);
  }
  add("busiest load thread", v.client_thread_peak);
  add("busiest server thread", v.server_thread_peak);
  add("shared cores", v.shared_utilization);
  c.note = "A resource at 85% or more is saturated; the verdict names the most used one.";
  return c;
}

Chart CeilingsChart(const RunReport& r) {
  const Verdict& v = r.verdict;
  Chart c;
  c.kind = Chart::Kind::kBars;
  c.id = "ceilings";
  c.title = "Calls/s achieved and each resource's ceiling";
  c.bars.push_back({"achieved", v.calls_per_second, -1, -1, WithThousands(v.calls_per_second) + " calls/s"});
  auto add = [&c](const std::string& name, double ceiling) {
    if (ceiling > 0) c.bars.push_back({name + " ceiling", ceiling, -1, -1, "~" + FormatApprox(ceiling)});
  };
  add("client", v.client_ceiling);
  add("server", v.server_ceiling);
  if (!(r.figures.loopback && !r.figures.link_declared)) add("network", v.network_ceiling);
  add("shared cores", v.shared_ceiling);
  c.note = "A ceiling is the calls/s a resource could sustain at full use, from its measured cost per call.";
  return c;
}

// Calls/s, p99 and CPU per second of each run. Calls/s is each second's calls over its real length, and a
// last second too short for a rate (SecondStats::rated()) has no point: drawn as a whole second, the last
// 0.3 s of a run of 10.3 s would read as a collapse that did not happen.
void PerSecondCharts(const std::vector<RunReport>& runs, Section* s) {
  Chart calls, p99, cpu;
  calls.id = "calls-per-second";
  calls.title = "Calls/s per second";
  calls.x_label = "second of the measured window";
  calls.y_label = "calls/s";
  calls.x_from_zero = true;
  p99 = calls;
  p99.id = "p99-per-second";
  p99.title = "p99 latency per second";
  p99.y_label = "ms";
  cpu = calls;
  cpu.id = "cpu-per-second";
  cpu.title = "CPU per second";
  cpu.y_label = "cores busy";
  bool any_cpu = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunReport& r = runs[i];
    const std::string name = runs.size() > 1 ? NameOf(r, i) + ": " : "";
    ChartSeries c{runs.size() > 1 ? NameOf(r, i) : "calls/s", {}}, p{runs.size() > 1 ? NameOf(r, i) : "p99", {}};
    const auto& seconds = r.load.total.seconds;
    for (size_t k = 0; k < seconds.size(); ++k) {
      const double end = static_cast<double>(k) + seconds[k].seconds;  // each point at the end of its stretch
      if (seconds[k].rated()) c.points.emplace_back(end, seconds[k].PerSecond(seconds[k].calls_ok));
      if (seconds[k].latency.count() > 0) {
        p.points.emplace_back(end, static_cast<double>(seconds[k].latency.ValueAtPercentile(99)) / 1e6);
      }
    }
    calls.series.push_back(c);
    p99.series.push_back(p);
    ChartSeries client{name + "client", {}}, server{name + "server", {}};
    for (size_t k = 0; k < r.cpu_per_second.size(); ++k) {
      client.points.emplace_back(static_cast<double>(k + 1), r.cpu_per_second[k].first);
      if (r.cpu_per_second[k].second >= 0) server.points.emplace_back(static_cast<double>(k + 1), r.cpu_per_second[k].second);
    }
    any_cpu = any_cpu || !client.points.empty();
    cpu.series.push_back(client);
    if (!server.points.empty()) cpu.series.push_back(server);
  }
  if (calls.series.front().points.empty() && runs.size() == 1) {
    calls.note = "No per-second series in this run (the gsoap client does not keep one).";
  }
  s->charts.push_back(calls);
  s->charts.push_back(p99);
  if (any_cpu) s->charts.push_back(cpu);
}

Chart SpectrumChart(const std::vector<RunReport>& runs) {
  Chart c;
  c.kind = Chart::Kind::kSpectrum;
  c.id = "spectrum";
  c.title = "Latency by percentile";
  c.x_label = "percentile (1 in N calls was slower)";
  c.y_label = "latency, ms";
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunReport& r = runs[i];
    c.series.push_back(SpectrumSeries(runs.size() > 1 ? NameOf(r, i) : "latency", r.load.total.latency));
    if (runs.size() == 1 && r.settings.rate > 0) {
      c.series.push_back(SpectrumSeries("service time (from the actual send)", r.load.total.service_time));
    }
  }
  c.note = "HdrHistogram's percentile plot: at 99% one call in 100 was slower, at 99.9% one in 1,000 (a logarithmic "
           "axis); steps as in HdrHistogram's percentile distribution, without its last one at 100% (the maximum, in "
           "the table).";
  return c;
}

Table SettingsTable(const std::vector<RunReport>& runs) {
  Table t;
  if (runs.size() > 1) {
    t.header.push_back("");
    for (size_t i = 0; i < runs.size(); ++i) t.header.push_back(NameOf(runs[i], i));
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> rows = {
      {"target", {}}, {"operation", {}}, {"client", {}}, {"load model", {}}, {"connections", {}},
      {"threads", {}}, {"pipeline", {}}, {"keep-alive", {}}, {"measured", {}}, {"warm-up", {}},
      {"link", {}}, {"window start", {}}, {"--start-at", {}}, {"merged from", {}}};
  for (const RunReport& r : runs) {
    const StressSettings& s = r.settings;
    std::string merged;
    for (const std::string& m : r.context.merged_from) merged += (merged.empty() ? "" : ", ") + m;
    const std::vector<std::string> values = {
        s.url, s.op + (s.op == "echo" ? " (" + std::to_string(s.samples) + " samples)" : "") + ", SOAP 1." +
                   std::to_string(s.soap_version == 2 ? 2 : 1),
        s.client, Model(s), std::to_string(s.connections), std::to_string(s.threads), std::to_string(s.pipeline),
        s.keep_alive ? "yes" : "no (a connection per call)",
        s.total_calls > 0 ? WithThousands(static_cast<double>(s.total_calls)) + " calls" :
                            FormatSeconds(s.duration_seconds),
        FormatSeconds(s.warmup_seconds),
        r.figures.loopback && !r.link_declared ? "loopback" :
            FormatBits(r.link_bits_per_second) + (r.link_declared ? "" : " (assumed)") + (r.half_duplex ? ", half duplex" : ""),
        r.context.window_start_unix_ns > 0 ? Rfc3339(r.context.window_start_unix_ns) : "unknown",
        r.context.start_at.empty() ? "-" : r.context.start_at, merged.empty() ? "-" : merged};
    for (size_t k = 0; k < rows.size(); ++k) rows[k].second.push_back(values[k]);
  }
  for (auto& [name, values] : rows) {
    std::vector<std::string> cells = {name};
    cells.insert(cells.end(), values.begin(), values.end());
    t.rows.push_back(cells);
  }
  return t;
}

Table MachineTable(const std::vector<MachineInfo>& machines, const std::vector<std::string>& names) {
  Table t;
  if (machines.size() > 1) {
    t.header = {""};
    t.header.insert(t.header.end(), names.begin(), names.end());
  }
  const char* labels[] = {"host", "cores", "CPU", "kernel", "architecture", "lather", "compiler", "gSOAP"};
  for (int row = 0; row < 8; ++row) {
    std::vector<std::string> cells = {labels[row]};
    for (const MachineInfo& m : machines) {
      const std::string values[] = {m.hostname, std::to_string(m.cores), m.cpu_model.empty() ? "unknown" : m.cpu_model,
                                    m.kernel, m.arch, m.lather_version, m.compiler, m.gsoap_version};
      cells.push_back(values[row]);
    }
    t.rows.push_back(cells);
  }
  return t;
}

}  // namespace

ChartSeries SpectrumSeries(const std::string& name, const LatencyHistogram& h) {
  ChartSeries s{name, {}};
  for (const PercentileStep& step : PercentileSteps(h)) {
    if (step.percentile < 100.0) s.points.emplace_back(step.percentile, static_cast<double>(step.value) / 1e6);
  }
  return s;
}

HtmlDocument RunsDocument(const std::vector<RunReport>& runs) {
  HtmlDocument d;
  if (runs.empty()) return d;
  const RunReport& first = runs.front();
  if (runs.size() == 1) {
    d.title = "lather-stress: " + WithThousands(first.calls_per_second()) + " calls/s, " + first.settings.op;
    d.subtitle = first.settings.url + (first.context.name.empty() ? "" : " \u2014 " + first.context.name) +
                 (first.context.window_start_unix_ns > 0 ? " \u2014 " + Rfc3339(first.context.window_start_unix_ns) : "");
  } else {
    d.title = "lather-stress: " + std::to_string(runs.size()) + " runs";
    std::string names;
    for (size_t i = 0; i < runs.size(); ++i) names += (i ? ", " : "") + NameOf(runs[i], i);
    d.subtitle = names;
  }

  Section result;
  result.title = runs.size() == 1 ? "Result" : "Runs";
  if (runs.size() == 1) result.highlight = "Verdict: " + first.verdict.text;
  result.tables.push_back(FiguresTable(runs));
  if (runs.size() > 1) {
    Chart bars;
    bars.kind = Chart::Kind::kBars;
    bars.id = "calls-per-second-by-run";
    bars.title = "Calls/s by run";
    for (size_t i = 0; i < runs.size(); ++i) {
      bars.bars.push_back({NameOf(runs[i], i), runs[i].calls_per_second(), -1, -1,
                           WithThousands(runs[i].calls_per_second()) + " calls/s"});
    }
    result.charts.push_back(bars);
  }
  d.sections.push_back(result);

  Section latency;
  latency.title = "Latency";
  latency.charts.push_back(SpectrumChart(runs));
  d.sections.push_back(latency);

  Section time;
  time.title = "Over time";
  PerSecondCharts(runs, &time);
  d.sections.push_back(time);

  for (size_t i = 0; i < runs.size(); ++i) {
    const RunReport& r = runs[i];
    Section verdict;
    verdict.title = runs.size() == 1 ? "Verdict" : "Verdict of " + NameOf(r, i);
    if (runs.size() > 1) verdict.highlight = r.verdict.text;
    verdict.paragraphs.push_back("Limit: " + LimitName(r.verdict.limit) + ".");
    verdict.tables.push_back(EvidenceTable(r));
    verdict.charts.push_back(SharesChart(r, "Share of each resource used"));
    verdict.charts.push_back(CeilingsChart(r));
    d.sections.push_back(verdict);
  }

  Section settings;
  settings.title = "Settings";
  settings.tables.push_back(SettingsTable(runs));
  d.sections.push_back(settings);

  Section machine;
  machine.title = "Machine";
  std::vector<MachineInfo> machines;
  std::vector<std::string> names;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunReport& r = runs[i];
    if (r.context.load_hosts.empty()) {
      machines.push_back(r.context.machine);
      names.push_back(NameOf(r, i));
    } else {
      for (size_t k = 0; k < r.context.load_hosts.size(); ++k) {
        machines.push_back(r.context.load_hosts[k]);
        names.push_back(k < r.context.merged_from.size() ? r.context.merged_from[k] : NameOf(r, i));
      }
    }
  }
  machine.paragraphs.push_back(machines.size() > 1 ? "The load hosts the harnesses ran on." : "The load host the harness ran on.");
  machine.tables.push_back(MachineTable(machines, names));
  d.sections.push_back(machine);
  return d;
}

Status WriteRunsHtml(const std::vector<RunReport>& runs, const std::string& path) {
  return WriteHtml(RunsDocument(runs), path);
}

}  // namespace lather
