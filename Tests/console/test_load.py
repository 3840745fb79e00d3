"""The load check of issue 23, run with the rest of the browser tests: a tenant with 10,000 jobs, 200 of
them running (a ferryd of its own with 200 workers; the origin drips 64 KiB a second to each, so each
job's heartbeat sends a progress event every second), and the jobs page open.

What it asserts, measured in the browser from the sign-in on: the first page of 50 rows shows within
FIRST_PAGE_SECONDS; no task of the page's main thread (the Long Tasks API) takes LONG_TASK_MILLISECONDS
or more, and a 50 ms timer is never TIMER_LATENESS_MILLISECONDS late (that one also counts the time the
operating system gave other processes); with the running jobs on screen for FERRY_CONSOLE_LOAD_SECONDS
(5 unless set), their bars move with the events (half of the 50 rows, with up to a minute more on a busy
machine) while /v1/jobs is not read again; the Older button still answers within CLICK_SECONDS. The
bounds are several times what this 2-core machine measures (see the README), so a slower CI machine
passes and a page that chokes on the events does not. `Tests/console/run test_load.py -s` prints the
numbers."""

import os
import time
import uuid

from selenium.webdriver.common.by import By

from console_page import ConsolePage
from gateway import Client, Ferryd
from conftest import REPOSITORY

JOBS = 10000
RUNNING = 200
FIRST_PAGE_SECONDS = 15
LONG_TASK_MILLISECONDS = 500
TIMER_LATENESS_MILLISECONDS = 1000
CLICK_SECONDS = 10
OBSERVED_SECONDS = float(os.environ.get('FERRY_CONSOLE_LOAD_SECONDS', '5'))

# Installed before the sign-in: the worst lateness of a 50 ms timer, and the longest task.
PROBE = """
const probe = window.__load = {stall: 0, longest: 0, tasks: 0};
let last = performance.now();
probe.timer = setInterval(() => {
  const now = performance.now();
  probe.stall = Math.max(probe.stall, now - last - 50);
  last = now;
}, 50);
probe.observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    probe.tasks += 1;
    probe.longest = Math.max(probe.longest, entry.duration);
  }
});
probe.observer.observe({type: 'longtask'});
"""

# What the probe saw since it was last read, and a fresh start.
READ_PROBE = """
const probe = window.__load;
const seen = {stall: Math.round(probe.stall), longest: Math.round(probe.longest), tasks: probe.tasks};
Object.assign(probe, {stall: 0, longest: 0, tasks: 0});
return seen;
"""

# Each running row's bar: job id → bytes shown.
BARS = ("return Object.fromEntries([...document.querySelectorAll('tr[data-state=\"running\"]')]"
        ".map((row) => [row.dataset.job, Number(row.querySelector('progress').value)]))")

LIST_READS = ("return performance.getEntriesByType('resource')"
              ".filter((e) => new URL(e.name).pathname === '/v1/jobs').map((e) => [e.startTime, e.responseEnd])")

# What the page shows, for a wait that timed out: rows by state, the page number, the stream's status,
# any problem shown, and how many reads of /v1/jobs have finished.
SITUATION = """
const count = {};
for (const row of document.querySelectorAll('tr[data-job]')) count[row.dataset.state] = (count[row.dataset.state] ?? 0) + 1;
const text = (css) => document.querySelector(css)?.textContent ?? null;
const reads = performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname === '/v1/jobs').length;
return {rows: count, page: text('#page-number'), live: text('#live-status'),
        problem: document.getElementById('problem')?.hidden === false ? text('#problem') : null, list_reads: reads};
"""


def test_jobs_page_with_ten_thousand_jobs_and_two_hundred_running(driver, origin):
    server = Ferryd(os.environ.get('FERRYD', os.path.join(REPOSITORY, '.build', 'debug', 'ferryd')), REPOSITORY, workers=RUNNING)
    gate = uuid.uuid4().hex[:12]
    try:
        began = time.monotonic()
        admin = Client(server.url, server.admin_key)
        # A tenant may run 64 jobs at once unless it says otherwise.
        created = admin.ok('POST', '/v1/admin/tenants', {'name': 'load', 'max_running_jobs': RUNNING})
        tenant = Client(server.url, created['api_key'])
        # An engine session opens at most 6 connections to a host (at most 64 when configured): four
        # sessions of 50 let 200 jobs on the one loopback origin transfer at once.
        sessions = [tenant.ok('POST', '/v1/sessions', {'kind': 'default', 'configuration': {'max_connections_per_host': 50}})['id']
                    for _ in range(4)]
        # 10,000 jobs dripping until the gate opens: 200 workers take 200 of them, the rest stay queued.
        for start in range(0, JOBS, 1000):
            tenant.ok('POST', '/v1/jobs/batch', {'jobs': [
                {'kind': 'download', 'session': sessions[(start + i) % 4],
                 'request': {'url': f'{origin.url}/drip/{gate}/{64 * 1024 * 1024}?{start + i}'}} for i in range(1000)]})
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            running = tenant.ok('GET', '/v1/jobs?state=running&limit=500')['jobs']
            if len(running) == RUNNING:
                break
            time.sleep(1)
        assert len(running) == RUNNING
        assert tenant.ok('GET', '/v1/jobs?state=queued&limit=1')['jobs'], 'the other jobs wait, queued'
        scene = time.monotonic() - began

        page = ConsolePage(driver, server.url)

        def situation():
            return f'the page shows {driver.execute_script(SITUATION)}; ferryd said, last: {server.log_tail(600)!r}'
        page.reset()
        driver.execute_script(PROBE)
        page.visible('#api-key').send_keys(tenant.key)
        signed_in = driver.execute_script('return performance.now()')
        page.click('#sign-in-form button[type=submit]')
        page.wait(lambda d: len(page.all('tr[data-job]')) == 50, seconds=60, explain=situation)
        shown = (driver.execute_script('return performance.now()') - signed_in) / 1000
        first_reads = [(round(start - signed_in), round(end - start)) for start, end in driver.execute_script(LIST_READS)]
        phases = {'sign-in and first page': driver.execute_script(READ_PROBE)}

        # The running ones on screen, so their bars move with every progress event.
        page.driver.find_element(By.CSS_SELECTOR, '#state-filter option[value="running"]').click()
        page.wait(lambda d: len(page.all('tr[data-state="running"]')) == 50, explain=situation)
        observing = time.monotonic()
        reads = len(driver.execute_script(LIST_READS))
        phases['the running filter'] = driver.execute_script(READ_PROBE)
        first = driver.execute_script(BARS)
        time.sleep(OBSERVED_SECONDS)

        def moved():
            now = driver.execute_script(BARS)
            return sum(1 for job, value in now.items() if value > first.get(job, value))
        moved_in_time = moved()
        # On a machine busy with more than this check, a heartbeat may come late: the bars get a while more.
        page.wait(lambda d: moved() >= 25, seconds=60, explain=lambda: f'{moved()} bars moved; {situation()}')
        observed = time.monotonic() - observing
        assert len(driver.execute_script(LIST_READS)) == reads, 'the events moved the rows; the list was not read again'
        phases['progress streaming in'] = driver.execute_script(READ_PROBE)

        clicked = time.monotonic()
        page.click('#next-page')
        page.wait(lambda d: page.find('#page-number').text == 'page 2' and len(page.all('tr[data-state="running"]')) == 50,
                  seconds=CLICK_SECONDS * 3, explain=situation)
        answered = time.monotonic() - clicked
        phases['Older'] = driver.execute_script(READ_PROBE)
        driver.execute_script('clearInterval(window.__load.timer); window.__load.observer.disconnect()')
        print(f'\nload check: {JOBS} jobs, {RUNNING} running after {scene:.1f} s; first page of 50 rows shown {shown:.2f} s after '
              f'sign-in (its list read [ms after sign-in, ms taken]: {first_reads}); of the 50 running rows\' bars {moved_in_time} '
              f'moved in {OBSERVED_SECONDS:.0f} s, 25 in {observed:.1f} s; Older answered in {answered:.2f} s; main thread, worst timer '
              f'lateness / long tasks / longest task in ms: ' + '; '.join(f'{name} {p["stall"]} / {p["tasks"]} / {p["longest"]}' for name, p in phases.items()))
        page.screenshot('jobs-load')
        assert shown < FIRST_PAGE_SECONDS, f'the first page took {shown:.2f} s'
        for name, probe in phases.items():
            assert probe['longest'] < LONG_TASK_MILLISECONDS and probe['stall'] < TIMER_LATENESS_MILLISECONDS, (name, probe)
        assert answered < CLICK_SECONDS, f'Older took {answered:.2f} s'
    finally:
        server.stop()
        origin.gates.open(gate)
