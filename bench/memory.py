"""P5 of bench/run: ferryd's memory under 1,000 slow downloads next to aria2c, and under one huge one.

Standard library only; imported by bench.py, which owns nginx's port and the report.
  slow  1,000 downloads at once from 16 loopback hosts (127.0.0.1 to 127.0.0.16, 63 or 62 each),
        each throttled by nginx to 20 KB/s: ferryd (FERRY_WORKERS=1000, its default HTTP cache on)
        and then aria2c -j 1000 on the same URLs, each process's RSS sampled every second for
        P5_SECONDS, then stopped. The file is long enough that no download ends in that time.
  huge  one download job of a 10 GiB sparse file at full speed, ferryd's RSS sampled every
        second until the job succeeded.

RSS is VmRSS of the one process (ferryd or aria2c), read from /proc; ferryd's PostgreSQL is apart.
"""

import os
import shutil
import subprocess
import time

import gateway

P5_HOSTS = 16
P5_DOWNLOADS = 1000
P5_SECONDS = 120
P5_RATE = "20k"             # nginx limit_rate of /p5/, per connection
P5_FILE = "p5.bin"          # long enough for P5_SECONDS at P5_RATE: 4 MiB > 120 s x 20 KB/s
P5_FILE_MB = 4
HUGE_FILE = "p5-huge.bin"   # sparse: no disk blocks, nginx reads zeros
HUGE_GIB = 10
MAX_CONNECTIONS_PER_HOST = 64   # the API's maximum; 16 hosts x 64 >= 1,000


def hosts():
    return [f"127.0.0.{n}" for n in range(1, P5_HOSTS + 1)]


def prepare(www):
    """The slow file (random bytes, so no layer can compress it) and the sparse huge one."""
    path = os.path.join(www, P5_FILE)
    if not os.path.exists(path) or os.path.getsize(path) != P5_FILE_MB << 20:
        with open(path, "wb") as f:
            f.write(os.urandom(P5_FILE_MB << 20))
    huge = os.path.join(www, HUGE_FILE)
    if not os.path.exists(huge) or os.path.getsize(huge) != HUGE_GIB << 30:
        with open(huge, "wb") as f:
            f.truncate(HUGE_GIB << 30)


def slow_urls(port):
    """1,000 distinct URLs (the query makes each its own cache key) spread over the 16 hosts."""
    return [f"http://{hosts()[i % P5_HOSTS]}:{port}/p5/{P5_FILE}?n={i}" for i in range(P5_DOWNLOADS)]


def rss_mib(pid):
    """VmRSS of `pid` in MiB with its anonymous and file-backed parts (RssAnon, RssFile: the
    binary's and libraries' pages), or None when it is gone."""
    fields = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name in ("VmRSS", "RssAnon", "RssFile"):
                    fields[name] = int(rest.split()[0]) / 1024
    except OSError:
        return None
    if "VmRSS" not in fields:
        return None
    return fields["VmRSS"], fields.get("RssAnon", 0.0), fields.get("RssFile", 0.0)


def sample(pid, seconds, until=None):
    """RSS every second for `seconds` (or until `until()` is true): a list of MiB, and the
    (anonymous, file-backed) parts of each sample."""
    samples, parts = [], []
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        value = rss_mib(pid)
        if value is None:
            raise gateway.RunFailed(f"process {pid} exited while sampled")
        samples.append(value[0])
        parts.append(value[1:])
        if until and until():
            break
        time.sleep(max(0.0, start + len(samples) - time.monotonic()))
    return samples, parts


def summary(sampled):
    """start, peak (and its anonymous and file-backed parts), end, and growth over the last minute
    (end against the sample 60 s before it)."""
    samples, parts = sampled
    minute_ago = samples[-61] if len(samples) > 60 else samples[0]
    peak = max(range(len(samples)), key=samples.__getitem__)
    return {"start": samples[0], "peak": samples[peak], "peak_anon": parts[peak][0], "peak_file": parts[peak][1],
            "end": samples[-1], "last_minute_growth": (samples[-1] - minute_ago) / minute_ago, "samples": samples}


def p5(args):
    res = {"errors": {}}
    ferryd = gateway.Ferryd(args.ferryd, args.work, "P5", {"FERRY_WORKERS": str(P5_DOWNLOADS)})
    # The default HTTP cache, as a user has it: nginx's ETag and Last-Modified make every body
    # cacheable, which is what held bodies in memory.
    ferryd.env.pop("FERRY_CACHE_MAX_BYTES_PER_TENANT", None)
    urls = slow_urls(args.port)
    try:
        ferryd.fresh()
        ferryd.start()
        res["ferryd"] = slow_ferryd(ferryd, urls)
        res["huge"] = huge_ferryd(ferryd, args.port)
    except gateway.RunFailed as e:
        res["errors"]["ferryd"] = str(e)
    finally:
        ferryd.stop()
        shutil.rmtree(ferryd.data_dir, ignore_errors=True)
    try:
        res["aria2c"] = slow_aria2c(args.work, urls)
    except gateway.RunFailed as e:
        res["errors"]["aria2c"] = str(e)
    return res


def slow_ferryd(ferryd, urls):
    api = gateway.Api(ferryd.port, ferryd.admin_key)
    # A tenant runs at most 64 jobs at once by default: let this one run all of them.
    key = api.call("POST", "/v1/admin/tenants", {"name": "p5", "max_running_jobs": P5_DOWNLOADS})["api_key"]
    session = api.call("POST", "/v1/sessions",
                       {"configuration": {"max_connections_per_host": MAX_CONNECTIONS_PER_HOST}}, key=key)
    print(f"  P5 ferryd: {len(urls)} slow downloads, RSS every second for {P5_SECONDS} s", flush=True)
    ids = []
    for i in range(0, len(urls), 100):
        reply = api.call("POST", "/v1/jobs/batch", {"jobs": [
            {"kind": "download", "request": {"url": u}, "session": session["id"]} for u in urls[i:i + 100]]}, key=key)
        ids += [j["id"] for j in reply["jobs"]]
    samples = sample(ferryd.proc.pid, P5_SECONDS)
    running = api.jobs_counts().get("running", 0)
    failed = api.jobs_counts().get("failed", 0)
    if failed:
        raise gateway.RunFailed(f"{failed} P5 jobs failed")
    for i in ids:
        api.call("POST", f"/v1/jobs/{i}/cancel", key=key)
    out = summary(samples)
    out["running_at_end"] = running
    return out


def huge_ferryd(ferryd, port):
    api = gateway.Api(ferryd.port, ferryd.admin_key)
    key = api.tenant("p5-huge")
    print(f"  P5 ferryd: one {HUGE_GIB} GiB download, RSS every second", flush=True)
    # Let the cancelled slow jobs' attempts end first, so the start is the idle process's RSS.
    time.sleep(5)
    job = api.call("POST", "/v1/jobs", {"kind": "download", "request": {
        "url": f"http://127.0.0.1:{port}/{HUGE_FILE}"}}, key=key)
    state = {}

    def done():
        state.update(api.call("GET", f"/v1/jobs/{job['id']}", key=key))
        return state["state"] in ("succeeded", "failed", "cancelled")
    samples = sample(ferryd.proc.pid, 1800, until=done)
    if state.get("state") != "succeeded":
        raise gateway.RunFailed(f"the {HUGE_GIB} GiB job ended {state.get('state')}: {state.get('error')}")
    if (state.get("result") or {}).get("size") != HUGE_GIB << 30:
        raise gateway.RunFailed(f"the {HUGE_GIB} GiB job has the wrong size: {state.get('result')}")
    api.call("DELETE", f"/v1/jobs/{job['id']}", key=key)
    out = summary(samples)
    out["seconds"] = len(samples[0])
    return out


def slow_aria2c(work, urls):
    out_dir = os.path.join(work, "out-p5")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    url_file = os.path.join(work, "p5-urls.txt")
    with open(url_file, "w") as f:
        # aria2c names files after the URL's path, the same for all: give each its own name.
        f.write("".join(f"{u}\n  out=f{i}\n" for i, u in enumerate(urls)))
    print(f"  P5 aria2c: {len(urls)} slow downloads, RSS every second for {P5_SECONDS} s", flush=True)
    proc = subprocess.Popen(
        ["aria2c", "-q", "-j", str(len(urls)), "-i", url_file, "-d", out_dir, "--file-allocation=none",
         "--auto-save-interval=0", "--max-connection-per-server=1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        return summary(sample(proc.pid, P5_SECONDS))
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(out_dir, ignore_errors=True)


def report(res):
    lines = [f"P5 {P5_DOWNLOADS} downloads at once from {P5_HOSTS} loopback hosts, {P5_RATE}B/s each, "
             f"RSS of the process sampled every second for {P5_SECONDS} s",
             f"{'process':<30} {'start MiB':>9} {'peak MiB':>9} {'end MiB':>8} {'last-minute growth':>19}"
             f" {'peak: anonymous + file-backed MiB':>34}"]
    for tool in ("ferryd", "aria2c"):
        if tool in res:
            r = res[tool]
            running = f"   ({r['running_at_end']} jobs running at the end)" if "running_at_end" in r else ""
            lines.append(f"{tool:<30} {r['start']:9.1f} {r['peak']:9.1f} {r['end']:8.1f} "
                         f"{r['last_minute_growth'] * 100:18.1f}% {r['peak_anon']:20.1f} + {r['peak_file']:5.1f}{running}")
    if "huge" in res:
        r = res["huge"]
        lines.append(f"{f'ferryd, one {HUGE_GIB} GiB job':<30} {r['start']:9.1f} {r['peak']:9.1f} {r['end']:8.1f}"
                     f"   ({r['seconds']} s)")
    for what, why in res["errors"].items():
        lines.append(f"{what:<30} ERROR  {why}")
    lines.append("")
    return lines


def ratio_lines(res, ratio_line):
    lines = []
    f, a = res.get("ferryd"), res.get("aria2c")
    lines.append(ratio_line("P5 ferryd/aria2c peak RSS", f and f["peak"], a and a["peak"], 1.0))
    # Context for the target above: the file-backed part is mostly the pages of each program's own
    # binary (ferryd's is a 180 MB static one), which the kernel can drop and read back at will.
    lines.append(ratio_line("P5 ferryd/aria2c peak anon RSS", f and f["peak_anon"], a and a["peak_anon"], None))
    growth = f["last_minute_growth"] if f else None
    lines.append(f"{'P5 ferryd last-minute growth':<30} "
                 + (f"{growth * 100:6.1f}%   {'< 5 %':<9} {'PASS' if growth < 0.05 else 'MISS'}"
                    if growth is not None else f"{'n/a':>7}   {'< 5 %':<9} ERROR"))
    h = res.get("huge")
    rise = h["peak"] - h["start"] if h else None
    lines.append(f"{f'P5 {HUGE_GIB} GiB job RSS rise MiB':<30} "
                 + (f"{rise:7.1f}   {'<= 20':<9} {'PASS' if rise <= 20 else 'MISS'}"
                    if rise is not None else f"{'n/a':>7}   {'<= 20':<9} ERROR"))
    return lines
