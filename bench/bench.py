#!/usr/bin/env python3
"""Helper for bench/run: makes the test data and times ferry, curl and aria2c against nginx.

Standard library only. `bench/run` starts and stops nginx; this file does the rest:
  bench.py prepare --work DIR --size-mb N --scenarios P1,P2
  bench.py measure --work DIR --port P --ferry BIN --scenarios P1,P2 --runs N --size-mb N
The gateway scenarios (P3, P4, P6: ferryd) live in gateway.py and need --ferryd (and
--minimal-route for P4, --nginx-dir for P6's access log); P5 (memory) lives in memory.py.

We time with our own loop instead of hyperfine so that the tools can alternate run by run
(a slow drift of the machine then hits every tool alike) and so that every run is checked.
"""

import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request

import gateway
import memory

SMALL_COUNT = 2000
SMALL_SIZE = 64 * 1024
PARALLEL = 50
TARGETS = {"P1": 1.02, "P2": 1.05}  # ferry/curl, from issue 19 (issue 2 asked 1.05 and 1.20)
SCENARIOS = ("P1", "P2", "P3", "P4", "P5", "P6")
# Timed runs per scenario when BENCH_RUNS is not given. P6 is one long run with five kills.
DEFAULT_RUNS = {"P1": 5, "P2": 5, "P3": 3, "P4": 2, "P5": 1, "P6": 1}
P3_TARGETS = {"aria2c": 0.7, "curl": 2.0}  # ferryd / tool, time until all 2,000 jobs succeeded (issue 19)
P4_TARGET_RATIO = 0.5    # ferryd's req/s at least half the minimal route's
P4_TARGET_P99_MS = 10.0
P6_TARGET = 1.02         # bytes nginx sent / file size
# aria2c by default preallocates a big file before downloading it and saves a .aria2 control
# file (with fsync) for resuming; curl and ferry just stream the body to the file. These two
# options turn that bookkeeping off. aria2c still fsyncs each finished file.
ARIA2_STREAMING = ["--file-allocation=none", "--auto-save-interval=0"]


class RunFailed(Exception):
    pass


# ---------------------------------------------------------------------------- data

def prepare(work, size_mb, scenarios):
    www = os.path.join(work, "www")
    small = os.path.join(www, "small")
    os.makedirs(small, exist_ok=True)
    if "P1" in scenarios or "P6" in scenarios:
        prepare_big(www, size_mb)
    if {"P2", "P3", "P4"} & set(scenarios):
        prepare_small(small)
    if "P5" in scenarios:
        memory.prepare(www)


def prepare_big(www, size_mb):
    # The big file: random bytes, so nothing along the way can compress or dedupe it.
    # Regenerated only when the wanted size changes (1 GiB from /dev/urandom takes ~5 s).
    big = os.path.join(www, "big.bin")
    want = size_mb * 1024 * 1024
    if not os.path.exists(big) or os.path.getsize(big) != want:
        print(f"bench: writing {big} ({size_mb} MiB)", flush=True)
        with open(big + ".tmp", "wb") as f:
            subprocess.run(["head", "-c", str(want), "/dev/urandom"], stdout=f, check=True)
        os.replace(big + ".tmp", big)


def prepare_small(small):
    names = [f"f{i:04d}.bin" for i in range(SMALL_COUNT)]
    if not all(os.path.exists(os.path.join(small, n)) and
               os.path.getsize(os.path.join(small, n)) == SMALL_SIZE for n in names):
        print(f"bench: writing {SMALL_COUNT} files of {SMALL_SIZE // 1024} KiB", flush=True)
        for n in names:
            with open(os.path.join(small, n), "wb") as f:
                f.write(os.urandom(SMALL_SIZE))


def small_urls(port):
    return [f"http://127.0.0.1:{port}/small/f{i:04d}.bin" for i in range(SMALL_COUNT)]


# ---------------------------------------------------------------------------- scenarios

def p1_commands(out_base, port, ferry):
    """One big file to disk. Output under OUT_BASE/big (by default bench/work/out/big, on the same
    disk as the source), a folder of its own: deleting it must not delete another scenario's 2,000
    files."""
    url = f"http://127.0.0.1:{port}/big.bin"
    out_dir = os.path.join(out_base, "big")
    out = os.path.join(out_dir, "big.bin")
    cmds = {
        "ferry": [ferry, "get", url, "-o", out, "-s"],
        # -f: fail on HTTP errors like ferry does (exit status), costs nothing.
        "curl": ["curl", "-s", "-f", "-o", out, url],
        "aria2c": ["aria2c", "-q", "-x1", "-s1", "--allow-overwrite=true", *ARIA2_STREAMING,
                   "-d", out_dir, "-o", "big.bin", url],
    }
    return cmds, out_dir, [out]


def p2_commands(work, out_base, port, ferry):
    """2,000 small files, 50 at once, each saved under its last path component, in OUT_BASE/small."""
    out_dir = os.path.join(out_base, "small")
    urls = small_urls(port)
    urls_txt = os.path.join(work, "urls.txt")
    with open(urls_txt, "w") as f:
        f.write("".join(u + "\n" for u in urls))
    # curl reads the URLs from a config file (no 100 KB command line); with -Z one multi
    # handle drives all transfers and keeps a connection pool, so 50 connections get reused
    # for 2,000 requests. The "conns" column of the report shows that this is so.
    curl_cfg = os.path.join(work, "urls.curl")
    with open(curl_cfg, "w") as f:
        f.write("".join(f'url = "{u}"\n' for u in urls))
    cmds = {
        "ferry": [ferry, "get", "-i", urls_txt, "-d", out_dir, "--parallel", str(PARALLEL), "-s"],
        # --no-progress-meter: curl 7.88 still draws its -Z progress meter under -s.
        "curl": ["curl", "-s", "--no-progress-meter", "-f", "-Z", "--parallel-max", str(PARALLEL),
                 "--remote-name-all", "--output-dir", out_dir, "-K", curl_cfg],
        "aria2c": ["aria2c", "-q", "-j", str(PARALLEL), *ARIA2_STREAMING,
                   "-i", urls_txt, "-d", out_dir],
    }
    outs = [os.path.join(out_dir, u.rsplit("/", 1)[1]) for u in urls]
    return cmds, out_dir, outs


# ---------------------------------------------------------------------------- running

def accepted_connections(port):
    """nginx's stub_status 'accepts' counter, minus the connection this request itself used."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/nginx_status", timeout=5) as r:
        lines = r.read().decode().splitlines()
    return int(lines[2].split()[0]) - 1


def verify(outs, size, source=None):
    missing = [p for p in outs if not os.path.exists(p)]
    if missing:
        raise RunFailed(f"{len(missing)} of {len(outs)} files missing (first: {missing[0]})")
    wrong = [p for p in outs if os.path.getsize(p) != size]
    if wrong:
        raise RunFailed(f"{len(wrong)} files have the wrong size "
                        f"(first: {wrong[0]}: {os.path.getsize(wrong[0])} != {size})")
    if source is not None:
        import filecmp
        if not filecmp.cmp(source, outs[0], shallow=False):
            raise RunFailed(f"{outs[0]} differs from {source}")


def set_aside_earlier(out_dir):
    """Moves an earlier run's output folder under OUT_BASE-kept (bench/work/out-kept) instead of
    deleting it.

    Deleting 2,000 files and creating 2,000 more right after costs ext4 dearly: for seconds to
    minutes it skips the freed inodes as "recently deleted" while looking for free ones, scanning
    further with every file. On this VM that took curl's P2 from 0.22 s to 1.1 s and more, grew run
    by run and swamped the tools' own differences. The kept folders are deleted when the
    measurement ends.
    """
    if os.path.exists(out_dir):
        kept = os.path.dirname(out_dir) + "-kept"
        os.makedirs(kept, exist_ok=True)
        os.rename(out_dir, os.path.join(kept, f"{time.monotonic_ns()}"))


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(cmd, out_dir, outs, size, port, source=None, keep_earlier=False):
    """Clean output, flush the disk, time one command, then check what it wrote.

    Returns the seconds, the connections the command opened and the CPU seconds (user + system)
    it used, which vary far less from run to run than the seconds do on a busy disk.
    """
    if keep_earlier:
        set_aside_earlier(out_dir)
    else:
        shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    os.sync()  # earlier runs' dirty pages must not be written back during this one
    before = accepted_connections(port)
    cpu_before = children_cpu_seconds()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - t0
    cpu = children_cpu_seconds() - cpu_before
    conns = accepted_connections(port) - before - 1
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise RunFailed(f"exit status {proc.returncode}: {' | '.join(tail) or '(no stderr)'}")
    verify(outs, size, source)
    return elapsed, conns, cpu


def command_runners(cmds, out_dir, outs, size, port, source, keep_earlier=False):
    """tool -> run(warm_up): one checked, timed run of that tool's command."""
    return {tool: (lambda warm_up, cmd=cmd: run_once(cmd, out_dir, outs, size, port,
                                                      source if warm_up else None, keep_earlier))
            for tool, cmd in cmds.items()}


def work_outputs(args):
    """The output folder under bench/work (P3's curl and aria2c, and P1 and P2 by default)."""
    return os.path.join(args.work, "out")


def remove_outputs(*out_bases):
    for base in out_bases:
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(base + "-kept", ignore_errors=True)


def measure_scenario(name, runners, runs):
    tools = tuple(runners)
    times = {t: [] for t in tools}
    conns = {t: [] for t in tools}
    cpu = {t: [] for t in tools}
    errors = {}
    # Warm-up: one run each, with a byte-for-byte check for the big file. Fills the page cache
    # with the source files and shows a broken tool before we spend time on it.
    for tool in tools:
        try:
            print(f"  {name} warm-up  {tool}", flush=True)
            runners[tool](True)
        except (RunFailed, gateway.RunFailed) as e:
            errors[tool] = str(e)
            print(f"  {name} {tool}: ERROR {e}", file=sys.stderr, flush=True)
    for r in range(runs):
        # Rotate the order every round so no tool always runs first or last.
        order = tools[r % len(tools):] + tools[:r % len(tools)]
        for tool in order:
            if tool in errors:
                continue
            try:
                t, c, *used = runners[tool](False)
            except (RunFailed, gateway.RunFailed) as e:
                errors[tool] = f"run {r + 1}: {e}"
                print(f"  {name} {tool}: ERROR {errors[tool]}", file=sys.stderr, flush=True)
                continue
            times[tool].append(t)
            conns[tool].append(c)
            if used:
                cpu[tool].append(used[0])
            print(f"  {name} run {r + 1}/{runs}  {tool:<6} {t:8.3f} s  {c:5d} connections",
                  flush=True)
    return {"times": times, "conns": conns, "cpu": cpu, "errors": errors}


# ---------------------------------------------------------------------------- report

def version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return "?"


def time_rows(lines, label, res, tools, nbytes):
    """Rows of the time table for one scenario; returns {tool: median}."""
    medians = {}
    for tool in tools:
        ts = res["times"][tool]
        if tool in res["errors"] or not ts:
            why = res["errors"].get(tool, "no runs")
            lines.append(f"{label:<30} {tool:<7} {'ERROR':>9}  {why}")
        else:
            med = statistics.median(ts)
            medians[tool] = med
            mibs = nbytes / med / 2**20
            cpu = res.get("cpu", {}).get(tool)
            lines.append(f"{label:<30} {tool:<7} {med:9.3f} {min(ts):8.3f} {max(ts):8.3f} "
                         f"{mibs:8.1f} {statistics.median(res['conns'][tool]):6.0f}"
                         f"{f'{statistics.median(cpu):8.3f}' if cpu else '':>8}")
        label = ""
    lines.append("")
    return medians


def ratio_line(key, a, b, target, higher_is_better=False):
    if higher_is_better:
        tgt = f">= {target:.2f}" if target else "-"
    else:
        tgt = f"<= {target:.2f}" if target else "-"
    if a is None or b is None:
        return f"{key:<30} {'n/a':>7}   {tgt:<9} {'ERROR' if target else '-'}"
    ratio = a / b
    if not target:
        verdict = "(no target)"
    elif higher_is_better:
        verdict = "PASS" if ratio >= target else "MISS"
    else:
        verdict = "PASS" if ratio <= target else "MISS"
    return f"{key:<30} {ratio:7.3f}   {tgt:<9} {verdict}"


def report(results, args):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Ferry loopback benchmark, {now}, {platform.node()}, {os.cpu_count()} CPUs, "
        f"kernel {platform.release()}",
        "median of the timed runs per tool after 1 warm-up, tools alternating, page cache warm; "
        "runs: " + ", ".join(f"{n} {runs_for(args, n)}" for n in results),
        # A busy machine (a build in the background) makes every ratio noisy: say so up front.
        f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
    ]
    if {"P1", "P2"} & set(results):
        lines.append(f"ferry : {args.ferry}")
        lines.append(f"P1 and P2 write into {args.out}")
    if {"P3", "P4", "P5", "P6"} & set(results):
        lines.append(f"ferryd: {args.ferryd}")
    lines += [
        f"curl  : {version(['curl', '--version'])}",
        f"aria2 : {version(['aria2c', '--version'])}",
        f"nginx : {version(['nginx', '-v'])} on 127.0.0.1:{args.port}",
    ]
    if "P4" in results:
        lines.append(f"wrk   : {version(['wrk', '-v'])}")
    labels = {"P1": f"P1 1 x {args.size_mb} MiB to disk",
              "P2": f"P2 {SMALL_COUNT} x {SMALL_SIZE // 1024} KiB, {PARALLEL} at once",
              "P3": f"P3 {SMALL_COUNT} jobs x {SMALL_SIZE // 1024} KiB"}
    medians = {}
    timed = [n for n in results if n in labels]
    if timed:
        lines += ["", f"{'scenario':<30} {'tool':<7} {'median s':>9} {'min s':>8} {'max s':>8} "
                      f"{'MiB/s':>8} {'conns':>6} {'CPU s':>7}"]
    for name in timed:
        res = results[name]
        nbytes = args.size_mb * 2**20 if name == "P1" else SMALL_COUNT * SMALL_SIZE
        for tool, med in time_rows(lines, labels[name], res, tuple(res["times"]), nbytes).items():
            medians[(name, tool)] = med
    if "P3" in results:
        for i, d in enumerate(results["P3"].get("ferryd_runs", [])):
            lines.append(f"P3 ferryd {'warm-up' if i == 0 else f'run {i}':<8} all submitted after "
                         f"{d['submitted_s']:6.3f} s, succeeded after {d['elapsed_s']:6.3f} s; CPU s: "
                         f"ferryd {d['cpu_ferryd_s']:5.2f}, postgres {d['cpu_postgres_s']:5.2f}, "
                         f"bench client {d['cpu_bench_client_s']:5.2f}")
        lines.append(f"P3: ferryd with FERRY_WORKERS={gateway.P3_WORKERS}, jobs in a session with "
                     f"max_connections_per_host={args.per_host or 'engine default (6)'}, "
                     f"{gateway.P3_SUBMITTERS} submitting connections, "
                     f"{f'POST /v1/jobs/batch of {args.p3_batch} jobs' if args.p3_batch else 'one POST /v1/jobs per job'}"
                     f"; time = first submit until "
                     f"/metrics counts all {SMALL_COUNT} succeeded")
        lines.append("")
    if "P4" in results:
        res = results["P4"]
        lines.append(f"P4 wrk -t{gateway.P4_THREADS} -c{gateway.P4_CONNECTIONS} -d{args.p4_seconds}s"
                     f"{'':<4} {'median req/s':>12} {'min':>9} {'max':>9} {'p99 ms (median)':>16} "
                     f"{'max p99':>8}")
        for tool, what in (("ferryd", "ferryd GET /v1/jobs/{id}"), ("minimal", "minimal-route GET")):
            size = res.get("body_bytes", {}).get(tool)
            label = f"{what + (f' ({size} B)' if size else ''):<33}"
            if tool in res["errors"] or not res["rps"][tool]:
                why = res["errors"].get(tool) or res["errors"].get("setup", "no runs")
                lines.append(f"{label} ERROR  {why}")
                continue
            rps, p99 = res["rps"][tool], res["p99_ms"][tool]
            lines.append(f"{label} {statistics.median(rps):12.0f} {min(rps):9.0f} {max(rps):9.0f} "
                         f"{statistics.median(p99):16.2f} {max(p99):8.2f}")
        lines.append("")
    if "P5" in results:
        lines += memory.report(results["P5"])
    if "P6" in results:
        res = results["P6"]
        lines.append(f"P6 1 x {res.get('size', 0) / 2**20:.0f} MiB job, {gateway.P6_KILLS} x kill -9 of "
                     f"ferryd (nginx limit_rate {args.p6_rate}/s, FERRY_LEASE_SECONDS="
                     f"{gateway.P6_LEASE_SECONDS})")
        lines.append(f"{'run':<6} {'seconds':>8} {'attempts':>9} {'requests':>9} {'MiB sent':>9} "
                     f"{'sent/size':>10} {'sha256':>7}  re-fetched per restart (MiB)")
        for i, run in enumerate(res["runs"]):
            lost = " ".join(f"{x / 2**20:.1f}" for x in gateway.p6_requests_detail(run))
            lines.append(f"{i + 1:<6} {run['seconds']:8.1f} {run['attempts']:9d} {len(run['requests']):9d} "
                         f"{run['sent'] / 2**20:9.1f} {run['ratio']:10.4f} {'ok':>7}  {lost}")
        for what, why in res["errors"].items():
            lines.append(f"{what:<6} ERROR  {why}")
        lines.append("")

    lines.append(f"{'ratio of medians':<30} {'ratio':>7}   {'target':<9} result")
    for name in results:
        if name in ("P1", "P2"):
            for other in ("curl", "aria2c"):
                target = TARGETS[name] if other == "curl" else None
                lines.append(ratio_line(f"{name} ferry/{other}", medians.get((name, "ferry")),
                                        medians.get((name, other)), target))
            cpu = {t: statistics.median(c) for t, c in results[name].get("cpu", {}).items() if c}
            lines.append(ratio_line(f"{name} ferry/curl CPU s", cpu.get("ferry"), cpu.get("curl"), None))
        elif name == "P3":
            for other, target in P3_TARGETS.items():
                lines.append(ratio_line(f"P3 ferryd/{other}", medians.get(("P3", "ferryd")),
                                        medians.get(("P3", other)), target))
        elif name == "P4":
            res = results["P4"]
            f, m = gateway.median(res["rps"]["ferryd"]), gateway.median(res["rps"]["minimal"])
            lines.append(ratio_line("P4 ferryd/minimal req/s", f, m, P4_TARGET_RATIO, True))
            p99 = gateway.median(res["p99_ms"]["ferryd"])
            worst = max(res["p99_ms"]["ferryd"]) if res["p99_ms"]["ferryd"] else None
            if p99 is None:
                lines.append(f"{'P4 ferryd p99 ms':<30} {'n/a':>7}   {'< 10':<9} ERROR")
            else:
                verdict = "PASS" if p99 < P4_TARGET_P99_MS else "MISS"
                note = "" if worst < P4_TARGET_P99_MS else f" (worst run {worst:.2f})"
                lines.append(f"{'P4 ferryd p99 ms (median)':<30} {p99:7.2f}   {'< 10':<9} {verdict}{note}")
        elif name == "P5":
            lines += memory.ratio_lines(results["P5"], ratio_line)
        elif name == "P6":
            runs = results["P6"]["runs"]
            if not runs:
                lines.append(f"{'P6 sent/size':<30} {'n/a':>7}   {'<= 1.02':<9} ERROR")
            else:
                worst = max(r["ratio"] for r in runs)
                verdict = "PASS" if worst <= P6_TARGET else "MISS"
                lines.append(f"{'P6 sent/size (worst run)':<30} {worst:7.4f}   {'<= 1.02':<9} {verdict}")
    return "\n".join(lines) + "\n"


def runs_for(args, name):
    return args.runs if args.runs else DEFAULT_RUNS[name]


def measure(args):
    results = {}
    for name in args.scenarios:
        runs = runs_for(args, name)
        print(f"bench: {name} ({runs} timed runs)", flush=True)
        if name == "P1":
            cmds, out_dir, outs = p1_commands(args.out, args.port, args.ferry)
            source = os.path.join(args.work, "www", "big.bin")
            results[name] = measure_scenario(
                name, command_runners(cmds, out_dir, outs, args.size_mb * 2**20, args.port, source), runs)
            shutil.rmtree(out_dir, ignore_errors=True)
        elif name == "P2":
            cmds, out_dir, outs = p2_commands(args.work, args.out, args.port, args.ferry)
            results[name] = measure_scenario(
                name, command_runners(cmds, out_dir, outs, SMALL_SIZE, args.port, None, keep_earlier=True), runs)
        elif name == "P3":
            results[name] = measure_p3(args, runs)
        elif name == "P4":
            small_url = small_urls(args.port)[0]
            results[name] = gateway.p4(args, small_url, runs, args.p4_seconds)
        elif name == "P5":
            results[name] = memory.p5(args)
        elif name == "P6":
            results[name] = gateway.p6(args, os.path.join(args.work, "www", "big.bin"), runs)
    remove_outputs(args.out, work_outputs(args))
    text = report(results, args)
    print("\n" + text, end="")
    with open(os.path.join(args.work, "results.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"\nwritten to {os.path.join(args.work, 'results.txt')}")
    return 1 if any(r["errors"] for r in results.values()) else 0


def measure_p3(args, runs):
    """ferryd (jobs over the API) next to curl and aria2c fetching the same 2,000 files (as in P2),
    always into bench/work: ferryd's jobs write their files under its data folder there."""
    cmds, out_dir, outs = p2_commands(args.work, work_outputs(args), args.port, args.ferry or "ferry")
    runners = command_runners({t: cmds[t] for t in ("curl", "aria2c")}, out_dir, outs, SMALL_SIZE,
                              args.port, None, keep_earlier=True)
    ferryd = gateway.Ferryd(args.ferryd, args.work, "P3", {"FERRY_WORKERS": str(gateway.P3_WORKERS)})
    ferryd.fresh()
    try:
        ferryd.start()
        plans = bool(os.environ.get("BENCH_P3_PLANS"))
        if os.environ.get("BENCH_P3_DB_STATS") or plans:
            ferryd.collect_database_stats(plans=plans)
        job_run = gateway.P3Ferryd(ferryd, small_urls(args.port), os.path.join(args.work, "www", "small"),
                                   SMALL_SIZE, args.per_host, args.p3_batch)
        ordered = {"ferryd": lambda warm_up: job_run(lambda: accepted_connections(args.port)), **runners}
        res = measure_scenario("P3", ordered, runs)
        res["ferryd_runs"] = job_run.details  # submit time and CPU split of every run, warm-up first
        job_run.pool.shutdown()
        # ferryd's own view (API latency by route, attempts), for whoever looks into a MISS.
        status, text = gateway.Api(ferryd.port, ferryd.admin_key).call("GET", "/metrics", raw=True)
        with open(os.path.join(args.work, "gateway", "P3-metrics.txt"), "wb") as f:
            f.write(text)
        if os.environ.get("BENCH_P3_DB_STATS") or plans:
            with open(os.path.join(args.work, "gateway", "P3-database.txt"), "w") as f:
                f.write(ferryd.database_stats())
        if plans:
            ferryd.database_plans(os.path.join(args.work, "gateway", "P3-plans.log"))
    except gateway.RunFailed as e:
        print(f"  P3: ERROR {e}", file=sys.stderr, flush=True)
        res = {"times": {t: [] for t in ("ferryd", "curl", "aria2c")},
               "conns": {t: [] for t in ("ferryd", "curl", "aria2c")}, "errors": {"ferryd": str(e)}}
    finally:
        ferryd.stop()
        # Its jobs' files, all runs' (ferryd's log stays beside, in gateway/P3.log).
        shutil.rmtree(ferryd.data_dir, ignore_errors=True)
    return res


def main():
    p = argparse.ArgumentParser()
    p.add_argument("action", choices=["prepare", "measure"])
    p.add_argument("--work", required=True)
    p.add_argument("--size-mb", type=int, default=1024)
    p.add_argument("--port", type=int)
    p.add_argument("--ferry")
    p.add_argument("--ferryd")
    p.add_argument("--minimal-route")
    p.add_argument("--nginx-dir", help="nginx's prefix (P6 reads p6-access.log there)")
    p.add_argument("--p6-rate", default="?", help="nginx limit_rate of P6's location, for the report")
    p.add_argument("--p4-seconds", type=int, default=10)
    p.add_argument("--per-host", type=int, default=PARALLEL,
                   help="P3: max_connections_per_host of the jobs' session (0: no session)")
    p.add_argument("--p3-batch", type=int, default=100,
                   help="P3: jobs per POST /v1/jobs/batch (0: one POST /v1/jobs per job)")
    p.add_argument("--out", help="where P1 and P2 write their outputs (default: WORK/out)")
    p.add_argument("--scenarios", default="P1,P2")
    p.add_argument("--runs", type=int, default=0, help="0: each scenario's default")
    args = p.parse_args()
    args.scenarios = [s.strip().upper() for s in args.scenarios.split(",") if s.strip()]
    args.out = os.path.abspath(args.out) if args.out else os.path.join(args.work, "out")
    if args.scenarios == ["ALL"]:
        args.scenarios = list(SCENARIOS)
    bad = [s for s in args.scenarios if s not in SCENARIOS]
    if bad or not args.scenarios:
        p.error(f"unknown scenario(s) {bad}; choose from {','.join(SCENARIOS)} or all")
    if args.action == "prepare":
        prepare(args.work, args.size_mb, args.scenarios)
        return 0
    return measure(args)


if __name__ == "__main__":
    sys.exit(main())
