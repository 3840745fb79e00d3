#!/usr/bin/env python3
"""Helper for bench/run: makes the test data and times ferry, curl and aria2c against nginx.

Standard library only. `bench/run` starts and stops nginx; this file does the rest:
  bench.py prepare --work DIR --size-mb N --scenarios P1,P2
  bench.py measure --work DIR --port P --ferry BIN --scenarios P1,P2 --runs N --size-mb N

We time with our own loop instead of hyperfine so that the tools can alternate run by run
(a slow drift of the machine then hits every tool alike) and so that every run is checked.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request

SMALL_COUNT = 2000
SMALL_SIZE = 64 * 1024
PARALLEL = 50
TOOLS = ("ferry", "curl", "aria2c")
TARGETS = {"P1": 1.05, "P2": 1.20}  # ferry/curl, from the issue
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
    if "P1" in scenarios:
        prepare_big(www, size_mb)
    if "P2" in scenarios:
        prepare_small(small)


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

def p1_commands(work, port, ferry):
    """One big file to disk. Output under bench/work/out, on the same disk as the source."""
    url = f"http://127.0.0.1:{port}/big.bin"
    out_dir = os.path.join(work, "out")
    out = os.path.join(out_dir, "big.bin")
    cmds = {
        "ferry": [ferry, "get", url, "-o", out, "-s"],
        # -f: fail on HTTP errors like ferry does (exit status), costs nothing.
        "curl": ["curl", "-s", "-f", "-o", out, url],
        "aria2c": ["aria2c", "-q", "-x1", "-s1", "--allow-overwrite=true", *ARIA2_STREAMING,
                   "-d", out_dir, "-o", "big.bin", url],
    }
    return cmds, out_dir, [out]


def p2_commands(work, port, ferry):
    """2,000 small files, 50 at once, each saved under its last path component."""
    out_dir = os.path.join(work, "out", "small")
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


def run_once(cmd, out_dir, outs, size, port, source=None):
    """Clean output, flush the disk, time one command, then check what it wrote."""
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    os.sync()  # earlier runs' dirty pages must not be written back during this one
    before = accepted_connections(port)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - t0
    conns = accepted_connections(port) - before - 1
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise RunFailed(f"exit status {proc.returncode}: {' | '.join(tail) or '(no stderr)'}")
    verify(outs, size, source)
    return elapsed, conns


def measure_scenario(name, cmds, out_dir, outs, size, runs, port, source):
    times = {t: [] for t in TOOLS}
    conns = {t: [] for t in TOOLS}
    errors = {}
    # Warm-up: one run each, with a byte-for-byte check for the big file. Fills the page cache
    # with the source files and shows a broken tool before we spend time on it.
    for tool in TOOLS:
        try:
            print(f"  {name} warm-up  {tool}", flush=True)
            run_once(cmds[tool], out_dir, outs, size, port, source)
        except RunFailed as e:
            errors[tool] = str(e)
            print(f"  {name} {tool}: ERROR {e}", file=sys.stderr, flush=True)
    for r in range(runs):
        # Rotate the order every round so no tool always runs first or last.
        order = TOOLS[r % len(TOOLS):] + TOOLS[:r % len(TOOLS)]
        for tool in order:
            if tool in errors:
                continue
            try:
                t, c = run_once(cmds[tool], out_dir, outs, size, port)
            except RunFailed as e:
                errors[tool] = f"run {r + 1}: {e}"
                print(f"  {name} {tool}: ERROR {errors[tool]}", file=sys.stderr, flush=True)
                continue
            times[tool].append(t)
            conns[tool].append(c)
            print(f"  {name} run {r + 1}/{runs}  {tool:<6} {t:8.3f} s  {c:5d} connections",
                  flush=True)
    shutil.rmtree(out_dir, ignore_errors=True)
    return {"times": times, "conns": conns, "errors": errors,
            "bytes": size * len(outs)}


# ---------------------------------------------------------------------------- report

def version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return "?"


def report(results, args):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Ferry loopback benchmark, {now}, {platform.node()}, {os.cpu_count()} CPUs, "
        f"kernel {platform.release()}",
        f"median of {args.runs} runs per tool after 1 warm-up, tools alternating, page cache warm",
        # A busy machine (a build in the background) makes every ratio noisy: say so up front.
        f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"ferry : {args.ferry}",
        f"curl  : {version(['curl', '--version'])}",
        f"aria2 : {version(['aria2c', '--version'])}",
        f"nginx : {version(['nginx', '-v'])} on 127.0.0.1:{args.port}",
        "",
        f"{'scenario':<30} {'tool':<7} {'median s':>9} {'min s':>8} {'max s':>8} "
        f"{'MiB/s':>8} {'conns':>6}",
    ]
    labels = {"P1": f"P1 1 x {args.size_mb} MiB to disk",
              "P2": f"P2 {SMALL_COUNT} x {SMALL_SIZE // 1024} KiB, {PARALLEL} at once"}
    medians = {}
    for name, res in results.items():
        label = labels[name]
        for tool in TOOLS:
            ts = res["times"][tool]
            if tool in res["errors"] or not ts:
                why = res["errors"].get(tool, "no runs")
                lines.append(f"{label:<30} {tool:<7} {'ERROR':>9}  {why}")
            else:
                med = statistics.median(ts)
                medians[(name, tool)] = med
                mibs = res["bytes"] / med / 2**20
                lines.append(f"{label:<30} {tool:<7} {med:9.3f} {min(ts):8.3f} {max(ts):8.3f} "
                             f"{mibs:8.1f} {statistics.median(res['conns'][tool]):6.0f}")
            label = ""
        lines.append("")
    lines.append(f"{'ratio of medians':<30} {'ratio':>7}   {'target':<9} result")
    for name in results:
        for other in ("curl", "aria2c"):
            key = f"{name} ferry/{other}"
            f, o = medians.get((name, "ferry")), medians.get((name, other))
            target = TARGETS[name] if other == "curl" else None
            tgt = f"<= {target:.2f}" if target else "-"
            if f is None or o is None:
                lines.append(f"{key:<30} {'n/a':>7}   {tgt:<9} {'ERROR' if target else '-'}")
                continue
            ratio = f / o
            verdict = ("PASS" if ratio <= target else "MISS") if target else "(no target)"
            lines.append(f"{key:<30} {ratio:7.3f}   {tgt:<9} {verdict}")
    return "\n".join(lines) + "\n"


def measure(args):
    results = {}
    for name in args.scenarios:
        if name == "P1":
            cmds, out_dir, outs = p1_commands(args.work, args.port, args.ferry)
            size = args.size_mb * 2**20
            source = os.path.join(args.work, "www", "big.bin")
        else:
            cmds, out_dir, outs = p2_commands(args.work, args.port, args.ferry)
            size = SMALL_SIZE
            source = None
        print(f"bench: {name}", flush=True)
        results[name] = measure_scenario(name, cmds, out_dir, outs, size, args.runs,
                                         args.port, source)
    text = report(results, args)
    print("\n" + text, end="")
    with open(os.path.join(args.work, "results.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"\nwritten to {os.path.join(args.work, 'results.txt')}")
    return 1 if any(r["errors"] for r in results.values()) else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("action", choices=["prepare", "measure"])
    p.add_argument("--work", required=True)
    p.add_argument("--size-mb", type=int, default=1024)
    p.add_argument("--port", type=int)
    p.add_argument("--ferry")
    p.add_argument("--scenarios", default="P1,P2")
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    args.scenarios = [s.strip().upper() for s in args.scenarios.split(",") if s.strip()]
    bad = [s for s in args.scenarios if s not in TARGETS]
    if bad or not args.scenarios:
        p.error(f"unknown scenario(s) {bad}; choose from P1,P2")
    if args.action == "prepare":
        prepare(args.work, args.size_mb, args.scenarios)
        return 0
    return measure(args)


if __name__ == "__main__":
    sys.exit(main())
