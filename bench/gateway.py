"""The gateway scenarios of bench/run (P3, P4, P6): ferryd serving its HTTP API on loopback.

Standard library only; imported by bench.py, which owns the data, the report and nginx's port.
  P3  2,000 download jobs of 64 KiB submitted over the API, next to aria2c -j 50 and curl -Z
  P4  wrk on GET /v1/jobs/{id}, next to a minimal Hummingbird route (bench/MinimalRoute)
  P6  one 1 GiB job, ferryd killed with SIGKILL five times during it; bytes nginx sent / size

Each scenario starts its own ferryd on a fresh data directory under bench/work/gateway/ (its private
PostgreSQL cluster included) and stops it with SIGTERM at the end, which also stops the cluster.
"""

import concurrent.futures
import hashlib
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

P3_WORKERS = 50          # FERRY_WORKERS in P3: the parallelism curl and aria2c get (-Z 50, -j 50)
P3_SUBMITTERS = 32       # HTTP connections submitting jobs at once
P4_CONNECTIONS = 64      # wrk -c
P4_THREADS = 2           # wrk -t: one per core
P6_KILLS = 5
P6_LEASE_SECONDS = 3     # a killed ferryd's job is taken back after ~3 s instead of 30


class RunFailed(Exception):
    pass


# ---------------------------------------------------------------------------- ferryd

class Ferryd:
    """One ferryd serve process on its own data directory (and so its own PostgreSQL cluster)."""

    def __init__(self, binary, work, name, env):
        self.binary = binary
        self.data_dir = os.path.join(work, "gateway", name)
        self.log_path = os.path.join(work, "gateway", f"{name}.log")
        self.admin_key = "bench_admin_" + secrets.token_hex(16)
        self.env = dict(os.environ)
        self.env.update({
            "FERRY_PORT": "0",
            "FERRY_HOST": "127.0.0.1",
            "FERRY_DATA_DIR": self.data_dir,
            "FERRY_ADMIN_KEY": self.admin_key,
            "FERRY_ALLOW_PRIVATE_NETWORKS": "true",
            # No HTTP cache: every run fetches the same URLs, which a cache would serve without
            # a transfer; curl and aria2c keep none either.
            "FERRY_CACHE_MAX_BYTES_PER_TENANT": "0",
        })
        self.env.pop("FERRY_DATABASE_URL", None)  # always the private cluster under data_dir
        self.env.update(env)
        self.proc = None
        self.port = None
        self.starts = 0

    def fresh(self):
        """Removes what an earlier bench left, stopping its cluster first (through ferryd itself)."""
        if os.path.exists(os.path.join(self.data_dir, "postgres", "postmaster.pid")):
            self.start()
            self.stop()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        os.makedirs(self.data_dir)
        open(self.log_path, "w").close()

    def start(self, timeout=180):
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen([self.binary, "serve"], env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=log, text=True)
        log.close()
        self.starts += 1
        # ferryd prints "ferryd listening on http://HOST:PORT" once it accepts; read it in a thread
        # so that a ferryd hanging before that line cannot hang the bench.
        found = {}

        def read():
            for line in self.proc.stdout:
                m = re.search(r"ferryd listening on http://[^:]+:(\d+)", line)
                if m:
                    found["port"] = int(m.group(1))
                    break
            # Keep draining: a full pipe would block ferryd.
            for _ in self.proc.stdout:
                pass
        t = threading.Thread(target=read, daemon=True)
        t.start()
        deadline = time.monotonic() + timeout
        while "port" not in found:
            if self.proc.poll() is not None:
                raise RunFailed(f"ferryd exited with {self.proc.returncode} while starting; see {self.log_path}")
            if time.monotonic() > deadline:
                self.kill()
                raise RunFailed(f"ferryd did not say it listens within {timeout} s; see {self.log_path}")
            time.sleep(0.05)
        self.port = found["port"]
        return self

    def psql(self, sql):
        """Runs `sql` on the private cluster as ferryd's own user; returns psql's output."""
        return subprocess.run(["psql", "-X", "-h", os.path.join(self.data_dir, "socket"), "-U", "ferry", "-d", "ferry",
                               "-c", sql], check=True, capture_output=True, text=True).stdout

    def collect_database_stats(self, plans=False):
        """Makes the cluster count time per statement (pg_stat_statements, which needs a restart to
        load) and per PL/pgSQL function, for `database_stats`; with `plans`, also log the plan of
        every statement (nested ones too: triggers') that took 4 ms or more, with its actual rows and
        times (auto_explain; its timing slows every statement a little). Restarts ferryd."""
        libraries = "pg_stat_statements, auto_explain" if plans else "pg_stat_statements"
        self.psql(f"ALTER SYSTEM SET shared_preload_libraries = {libraries}")
        self.stop()
        self.start()
        self.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        self.psql("ALTER SYSTEM SET pg_stat_statements.track = 'all'")
        self.psql("ALTER SYSTEM SET track_functions = 'pl'")
        if plans:
            self.psql("ALTER SYSTEM SET auto_explain.log_min_duration = '4ms'")
            self.psql("ALTER SYSTEM SET auto_explain.log_nested_statements = on")
            self.psql("ALTER SYSTEM SET auto_explain.log_analyze = on")
        self.psql("SELECT pg_reload_conf()")

    def database_plans(self, path):
        """Copies the cluster's log, where auto_explain wrote the plans, to `path`."""
        shutil.copy(os.path.join(self.data_dir, "postgres", "server.log"), path)

    def database_stats(self):
        """What `collect_database_stats` counted since: the trigger functions' time, the rows each
        table's scans read, and the statements' calls and time. The times are wall time inside
        PostgreSQL, so they include waiting for a CPU; the rows read are not."""
        return "\n".join([
            self.psql("SELECT funcname, calls, round(total_time) AS total_ms, round(self_time) AS self_ms"
                      " FROM pg_stat_user_functions ORDER BY total_time DESC"),
            self.psql("SELECT relname, seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_tup_ins, n_tup_upd,"
                      " n_tup_hot_upd FROM pg_stat_user_tables WHERE seq_scan + coalesce(idx_scan, 0) > 0"
                      " ORDER BY seq_tup_read DESC"),
            self.psql("SELECT calls, round(total_exec_time) AS total_ms, rows, toplevel,"
                      " left(regexp_replace(query, '\\s+', ' ', 'g'), 120) AS query"
                      " FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 40"),
        ])

    def kill(self):
        """SIGKILL, as a crash would. The private cluster keeps running; the next start reuses it."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        """SIGTERM: workers hand their jobs back, the API closes, the cluster is stopped."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None


class Api:
    """JSON over keep-alive HTTP/1.1, one connection per thread."""

    def __init__(self, port, key):
        self.port = port
        self.key = key
        self.local = threading.local()

    def conn(self):
        c = getattr(self.local, "conn", None)
        if c is None:
            c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            self.local.conn = c
        return c

    def call(self, method, path, body=None, key=None, raw=False):
        headers = {"Authorization": f"Bearer {key or self.key}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):  # once more on a connection the server closed meanwhile
            c = self.conn()
            try:
                c.request(method, path, body=data, headers=headers)
                r = c.getresponse()
                payload = r.read()
                break
            except (http.client.HTTPException, ConnectionError) as e:
                c.close()
                self.local.conn = None
                if attempt == 2:
                    raise RunFailed(f"{method} {path}: {e}")
        if raw:
            return r.status, payload
        if r.status >= 300:
            raise RunFailed(f"{method} {path}: HTTP {r.status}: {payload[:300]!r}")
        return json.loads(payload) if payload else None

    def tenant(self, name):
        """A new tenant and its API key."""
        t = self.call("POST", "/v1/admin/tenants", {"name": name})
        return t["api_key"]

    def jobs_counts(self):
        """{state: count} from /metrics' ferry_jobs{state=...} (counts over the whole cluster)."""
        status, text = self.call("GET", "/metrics", raw=True)
        if status != 200:
            raise RunFailed(f"GET /metrics: HTTP {status}")
        counts = {m.group(1): int(m.group(2))
                  for m in re.finditer(r'^ferry_jobs\{state="(\w+)"\} (\d+)', text.decode(), re.M)}
        if "succeeded" not in counts:
            raise RunFailed("GET /metrics has no ferry_jobs{state=\"succeeded\"}")
        return counts

    def all_jobs(self, key, state=None):
        jobs, cursor = [], None
        while True:
            q = {"limit": "500"}
            if state:
                q["state"] = state
            if cursor:
                q["cursor"] = cursor
            page = self.call("GET", "/v1/jobs?" + urllib.parse.urlencode(q), key=key)
            jobs += page["jobs"]
            cursor = page.get("next_cursor")
            if not cursor:
                return jobs


def cpu_seconds(pid):
    """utime + stime of one process, from /proc (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def postgres_cpu_seconds(data_dir):
    """CPU of the private cluster: its postmaster and every child (backends, WAL writer, ...)."""
    return sum(cpu_seconds(pid) for pid in postgres_pids(data_dir))


def postgres_pids(data_dir):
    """The private cluster's postmaster and its children."""
    try:
        with open(os.path.join(data_dir, "postgres", "postmaster.pid")) as f:
            master = int(f.readline())
    except (OSError, ValueError):
        return []
    pids = [master]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == master:
                        pids.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return pids


# What BENCH_P3_PERF_STAT counts: CPU time, thread switches, and the system calls behind them.
P3_PERF_STAT_EVENTS = os.environ.get("BENCH_P3_PERF_STAT_EVENTS") or ",".join([
    "task-clock", "context-switches", "cpu-migrations", "raw_syscalls:sys_enter", "syscalls:sys_enter_futex",
    "syscalls:sys_enter_epoll_wait", "syscalls:sys_enter_write", "syscalls:sys_enter_read",
    "syscalls:sys_enter_sendto", "syscalls:sys_enter_recvfrom"])


class TimedProfile:
    """While one P3 run is timed: `perf record -g` of ferryd and its PostgreSQL when BENCH_P3_PERF
    names a file prefix (run N writes PREFIX.N), and `perf stat` counts (P3_PERF_STAT_EVENTS) of
    ferryd and of PostgreSQL when BENCH_P3_PERF_STAT does (PREFIX.N.ferryd, PREFIX.N.postgres). A
    profile of the whole bench would mostly show the untimed parts (checking the jobs, deleting them)
    and the other tools. PostgreSQL's backends are those alive when the run starts (ferryd's pool)."""

    def __init__(self, ferryd, run_no):
        postgres = ",".join(str(p) for p in postgres_pids(ferryd.data_dir))
        commands = []
        if prefix := os.environ.get("BENCH_P3_PERF"):
            commands.append(["perf", "record", "-q", "-g", "-F", "1999", "-p", f"{ferryd.proc.pid},{postgres}",
                             "-o", f"{prefix}.{run_no}"])
        if prefix := os.environ.get("BENCH_P3_PERF_STAT"):
            for name, pids in (("ferryd", str(ferryd.proc.pid)), ("postgres", postgres)):
                commands.append(["perf", "stat", "-e", P3_PERF_STAT_EVENTS, "-p", pids, "-o", f"{prefix}.{run_no}.{name}"])
        self.procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c in commands]
        if self.procs:
            time.sleep(0.5)  # perf attaches before the clock starts

    def stop(self):
        for proc in self.procs:
            proc.send_signal(signal.SIGINT)
            proc.wait()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


# ---------------------------------------------------------------------------- P3

class P3Ferryd:
    """One timed P3 run of ferryd: a fresh tenant, 2,000 jobs, wait until all succeeded."""

    def __init__(self, ferryd, urls, small_dir, size, per_host, batch):
        self.ferryd = ferryd
        self.urls = urls
        self.size = size
        self.per_host = per_host
        self.batch = batch
        self.run_no = 0
        self.api = None
        # The source files' digests, to check every job's result.sha256 (128 MiB, ~0.3 s).
        self.digests = {u: sha256_file(os.path.join(small_dir, u.rsplit("/", 1)[1])) for u in urls}
        self.pool = concurrent.futures.ThreadPoolExecutor(P3_SUBMITTERS)
        self.details = []

    def __call__(self, accepted_connections):
        if self.api is None:
            self.api = Api(self.ferryd.port, self.ferryd.admin_key)
        api = self.api
        self.run_no += 1
        key = api.tenant(f"p3-run-{self.run_no}-{secrets.token_hex(4)}")
        body_extra = {}
        if self.per_host:
            # The engine's default is 6 connections per host; curl and aria2c use 50 here.
            s = api.call("POST", "/v1/sessions",
                         {"configuration": {"max_connections_per_host": self.per_host}}, key=key)
            body_extra["session"] = s["id"]
        counts0 = api.jobs_counts()
        os.sync()
        before = accepted_connections()
        cpu0 = (cpu_seconds(self.ferryd.proc.pid), postgres_cpu_seconds(self.ferryd.data_dir), time.process_time())

        def job(url):
            return {"kind": "download", "request": {"url": url}, **body_extra}

        def submit(urls):
            """The jobs' ids: one POST /v1/jobs/batch, or (batch 0) one POST /v1/jobs per job."""
            if not self.batch:
                return [api.call("POST", "/v1/jobs", job(u), key=key)["id"] for u in urls]
            reply = api.call("POST", "/v1/jobs/batch", {"jobs": [job(u) for u in urls]}, key=key)
            return [j["id"] for j in reply["jobs"]]

        step = self.batch or 1
        profile = TimedProfile(self.ferryd, self.run_no)
        t0 = time.perf_counter()
        futures = [self.pool.submit(submit, self.urls[i:i + step]) for i in range(0, len(self.urls), step)]
        submitted = None
        while True:
            if submitted is None and all(f.done() for f in futures):
                submitted = time.perf_counter() - t0
                for f in futures:
                    f.result()  # raises RunFailed if a submission failed
            counts = api.jobs_counts()
            done = counts["succeeded"] - counts0["succeeded"]
            if done >= len(self.urls):
                break
            failed = counts.get("failed", 0) - counts0.get("failed", 0)
            if failed:
                raise RunFailed(f"{failed} jobs failed (see GET /v1/jobs?state=failed)")
            if time.perf_counter() - t0 > 600:
                raise RunFailed(f"only {done} of {len(self.urls)} jobs succeeded after 600 s")
            time.sleep(0.05)
        elapsed = time.perf_counter() - t0
        profile.stop()
        conns = accepted_connections() - before - 1
        cpu = (cpu_seconds(self.ferryd.proc.pid) - cpu0[0],
               postgres_cpu_seconds(self.ferryd.data_dir) - cpu0[1], time.process_time() - cpu0[2])
        ids = [i for f in futures for i in f.result()]
        self.verify(key, ids)
        self.details.append({"submitted_s": submitted, "elapsed_s": elapsed, "cpu_ferryd_s": cpu[0],
                             "cpu_postgres_s": cpu[1], "cpu_bench_client_s": cpu[2]})
        print(f"    ferryd: all {len(ids)} submitted after {submitted:.3f} s, all succeeded after "
              f"{elapsed:.3f} s; CPU s: ferryd {cpu[0]:.2f}, postgres {cpu[1]:.2f}, "
              f"this client {cpu[2]:.2f}", flush=True)
        # Not timed: delete the jobs, so every run starts from the same table (and /metrics counts
        # as many rows). ferryd keeps a deleted job's file as a spare for a later download, as a
        # server whose retention deletes old jobs does, so its next run creates no new files and
        # does not meet ext4's cost of reusing freed inodes (see bench.set_aside_earlier).
        list(self.pool.map(lambda i: api.call("DELETE", f"/v1/jobs/{i}", key=key), ids))
        return elapsed, conns, cpu[0] + cpu[1]

    def verify(self, key, ids):
        jobs = self.api.all_jobs(key)
        by_id = {j["id"]: j for j in jobs}
        if set(ids) - set(by_id):
            raise RunFailed(f"{len(set(ids) - set(by_id))} submitted jobs are not in the job list")
        bad = [j for j in jobs if j["state"] != "succeeded"]
        if bad:
            raise RunFailed(f"{len(bad)} jobs did not succeed (first: {bad[0]['id']} {bad[0]['state']})")
        wrong = [j for j in jobs if (j.get("result") or {}).get("size") != self.size]
        if wrong:
            raise RunFailed(f"{len(wrong)} jobs have the wrong size (first: {wrong[0]['id']}: "
                            f"{wrong[0].get('result')})")
        # Every job's SHA-256 against its source file (cheap: the digests were computed once).
        mismatched = [j for j in jobs if j["result"]["sha256"] != self.digests[j["request"]["url"]]]
        if mismatched:
            raise RunFailed(f"{len(mismatched)} jobs have the wrong SHA-256 (first: {mismatched[0]['id']})")
        # And a few contents fetched back through the API, byte for byte.
        for j in jobs[:: max(1, len(jobs) // 5)][:5]:
            status, payload = self.api.call("GET", f"/v1/jobs/{j['id']}/content", key=key, raw=True)
            if status != 200 or hashlib.sha256(payload).hexdigest() != self.digests[j["request"]["url"]]:
                raise RunFailed(f"content of job {j['id']} differs from its source (HTTP {status})")


# ---------------------------------------------------------------------------- P4

WRK_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def run_wrk(url, seconds, headers=()):
    cmd = ["wrk", f"-t{P4_THREADS}", f"-c{P4_CONNECTIONS}", f"-d{seconds}s", "--latency"]
    for h in headers:
        cmd += ["-H", h]
    cmd.append(url)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    out = proc.stdout
    if proc.returncode != 0:
        raise RunFailed(f"wrk exited with {proc.returncode}: {proc.stderr.strip()[:300]}")
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s|m)\s*$", out, re.M)
    total = re.search(r"(\d+) requests in", out)
    if not (m and p99 and total):
        raise RunFailed(f"cannot read wrk's output: {out[-400:]}")
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if non2xx:
        raise RunFailed(f"{non2xx.group(1)} of {total.group(1)} responses were not 2xx")
    sock = re.search(r"Socket errors: (.*)", out)
    if sock:
        raise RunFailed(f"socket errors: {sock.group(1)}")
    return float(m.group(1)), float(p99.group(1)) * WRK_UNITS[p99.group(2)], int(total.group(1))


def start_minimal_route(binary):
    proc = subprocess.Popen([binary, "0"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    m = re.search(r"listening on http://[^:]+:(\d+)", line)
    if not m:
        proc.kill()
        raise RunFailed(f"minimal-route did not start: {line!r}")
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    return proc, int(m.group(1))


def p4(args, small_url, runs, seconds):
    """Returns {"tools": {name: {"rps": [...], "p99_ms": [...]}}, "errors": {...}}."""
    ferryd = Ferryd(args.ferryd, args.work, "P4", {})
    ferryd.fresh()
    minimal = None
    res = {"rps": {"ferryd": [], "minimal": []}, "p99_ms": {"ferryd": [], "minimal": []},
           "requests": {"ferryd": [], "minimal": []}, "errors": {}}
    try:
        ferryd.start()
        api = Api(ferryd.port, ferryd.admin_key)
        key = api.tenant("p4")
        job = api.call("POST", "/v1/jobs", {"kind": "download", "request": {"url": small_url}}, key=key)
        deadline = time.monotonic() + 60
        while api.call("GET", f"/v1/jobs/{job['id']}", key=key)["state"] != "succeeded":
            if time.monotonic() > deadline:
                raise RunFailed("the P4 job did not succeed within 60 s")
            time.sleep(0.1)
        minimal, mport = start_minimal_route(args.minimal_route)
        targets = {
            "ferryd": (f"http://127.0.0.1:{ferryd.port}/v1/jobs/{job['id']}", [f"Authorization: Bearer {key}"]),
            "minimal": (f"http://127.0.0.1:{mport}/v1/ping", []),
        }
        # Check what each answers before loading it: the job view of that job, the fixed JSON.
        status, raw = api.call("GET", f"/v1/jobs/{job['id']}", key=key, raw=True)
        view = json.loads(raw)
        if status != 200 or view["id"] != job["id"] or view["state"] != "succeeded":
            raise RunFailed(f"GET /v1/jobs/{job['id']} answered {view}")
        c = http.client.HTTPConnection("127.0.0.1", mport, timeout=10)
        c.request("GET", "/v1/ping")
        r = c.getresponse()
        mraw = r.read()
        if r.status != 200 or "id" not in json.loads(mraw):
            raise RunFailed(f"minimal-route answered HTTP {r.status}")
        c.close()
        res["body_bytes"] = {"ferryd": len(raw), "minimal": len(mraw)}
        tools = ("ferryd", "minimal")
        for tool in tools:  # warm-up: connections, caches, PostgreSQL's plan cache
            print(f"  P4 warm-up  {tool}", flush=True)
            run_wrk(targets[tool][0], 3, targets[tool][1])
        for r_ in range(runs):
            order = tools[r_ % 2:] + tools[:r_ % 2]
            for tool in order:
                if tool in res["errors"]:
                    continue
                try:
                    rps, p99, n = run_wrk(targets[tool][0], seconds, targets[tool][1])
                except RunFailed as e:
                    res["errors"][tool] = f"run {r_ + 1}: {e}"
                    print(f"  P4 {tool}: ERROR {e}", file=sys.stderr, flush=True)
                    continue
                res["rps"][tool].append(rps)
                res["p99_ms"][tool].append(p99)
                res["requests"][tool].append(n)
                print(f"  P4 run {r_ + 1}/{runs}  {tool:<8} {rps:10.0f} req/s  p99 {p99:7.2f} ms  "
                      f"({n} requests)", flush=True)
    except RunFailed as e:
        res["errors"]["setup"] = str(e)
        print(f"  P4: ERROR {e}", file=sys.stderr, flush=True)
    finally:
        if minimal:
            minimal.terminate()
            minimal.wait()
        ferryd.stop()
    return res


# ---------------------------------------------------------------------------- P6

def p6(args, big_path, runs):
    res = {"runs": [], "errors": {}}
    size = os.path.getsize(big_path)
    print(f"  P6 hashing {big_path}", flush=True)
    digest = sha256_file(big_path)
    for r in range(runs):
        try:
            res["runs"].append(p6_once(args, big_path, size, digest, r + 1, runs))
        except RunFailed as e:
            res["errors"][f"run {r + 1}"] = str(e)
            print(f"  P6: ERROR {e}", file=sys.stderr, flush=True)
    res["size"] = size
    return res


def p6_once(args, big_path, size, digest, run_no, runs):
    ferryd = Ferryd(args.ferryd, args.work, "P6", {"FERRY_LEASE_SECONDS": str(P6_LEASE_SECONDS),
                                                   "FERRY_WORKERS": "4"})
    ferryd.fresh()
    log = os.path.join(args.nginx_dir, "p6-access.log")
    open(log, "w").close()  # nginx appends (O_APPEND): truncating starts the count afresh
    url = f"http://127.0.0.1:{args.port}/p6/{os.path.basename(big_path)}"
    kills = []
    try:
        ferryd.start()
        api = Api(ferryd.port, ferryd.admin_key)
        key = api.tenant("p6")
        t0 = time.monotonic()
        job = api.call("POST", "/v1/jobs", {"kind": "download", "request": {"url": url}}, key=key)
        path = f"/v1/jobs/{job['id']}"
        # Kill at 1/6, 2/6, ... 5/6 of the file, as far as the job's progress shows it (heartbeats
        # every second). The job is read through the running ferryd; after a kill, through the next.
        thresholds = [size * (k + 1) // (P6_KILLS + 1) for k in range(P6_KILLS)]
        view = None
        while True:
            try:
                view = api.call("GET", path, key=key)
            except RunFailed:
                time.sleep(0.1)  # ferryd restarting
                continue
            if view["state"] in ("succeeded", "failed", "cancelled"):
                break
            done = view["progress"]["bytes_done"]
            if len(kills) < P6_KILLS and done >= thresholds[len(kills)] and view["state"] == "running":
                ferryd.kill()
                kills.append({"at_s": round(time.monotonic() - t0, 2), "bytes_done": done})
                print(f"  P6 run {run_no}/{runs}  kill -9 #{len(kills)} at {kills[-1]['at_s']:6.2f} s, "
                      f"job progress {done / 2**20:7.1f} MiB", flush=True)
                ferryd.start()
                api = Api(ferryd.port, ferryd.admin_key)
            if time.monotonic() - t0 > 1800:
                raise RunFailed("the job did not finish within 30 minutes")
            time.sleep(0.1)
        elapsed = time.monotonic() - t0
        if view["state"] != "succeeded":
            raise RunFailed(f"the job ended {view['state']}: {view.get('error')}")
        if len(kills) < P6_KILLS:
            raise RunFailed(f"the job finished after only {len(kills)} kills (download too fast?)")
        result = view["result"]
        if result["size"] != size:
            raise RunFailed(f"result.size {result['size']} != {size}")
        if result["sha256"] != digest:
            raise RunFailed(f"result.sha256 {result['sha256']} != the file's {digest}")
        # Independently: the content as ferryd serves it, hashed here.
        h = hashlib.sha256()
        c = http.client.HTTPConnection("127.0.0.1", ferryd.port, timeout=120)
        c.request("GET", path + "/content", headers={"Authorization": f"Bearer {key}"})
        r = c.getresponse()
        while chunk := r.read(1 << 20):
            h.update(chunk)
        c.close()
        if r.status != 200 or h.hexdigest() != digest:
            raise RunFailed(f"GET {path}/content: HTTP {r.status}, SHA-256 {h.hexdigest()} != {digest}")
        attempts = view["attempt"]
    finally:
        ferryd.stop()
    # nginx writes a request's log line when it ends; a killed client's request ends when nginx
    # next writes to the dead connection. Wait until every attempt's line is there.
    deadline = time.monotonic() + 15
    while True:
        lines = [ln.split() for ln in open(log) if ln.strip()]
        if len(lines) >= attempts or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    requests = [{"sent": int(ln[0]), "status": int(ln[1]), "range": ln[2].strip('"')} for ln in lines]
    sent = sum(q["sent"] for q in requests)
    out = {"seconds": elapsed, "kills": kills, "attempts": attempts, "requests": requests,
           "sent": sent, "ratio": sent / size, "sha256_ok": True, "starts": ferryd.starts}
    print(f"  P6 run {run_no}/{runs}  succeeded after {elapsed:.1f} s, {attempts} attempts, "
          f"{len(requests)} requests, nginx sent {sent / 2**20:.1f} MiB = {sent / size:.4f} x size",
          flush=True)
    for q in requests:
        print(f"      request: {q['status']} range {q['range'] or '-':<24} sent {q['sent'] / 2**20:9.1f} MiB",
              flush=True)
    return out


def p6_requests_detail(run):
    """How much each restart fetched again: where the next request started vs where the last stopped."""
    lost = []
    end = 0
    for q in run["requests"]:
        m = re.match(r"bytes=(\d+)-", q["range"])
        start = int(m.group(1)) if m else 0
        if end:
            lost.append(end - start)
        end = start + q["sent"]
    return lost


def median(xs):
    return statistics.median(xs) if xs else None
