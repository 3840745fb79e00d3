"""The operator console (issue 23) in a real headless Chromium against a real ferryd, its private
PostgreSQL and a loopback origin. Every wait is a deadline, never a measured time."""

import hashlib
import os
import re
import tempfile
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from gateway import Client
from origin import pattern

MiB = 1024 * 1024


def gate():
    return uuid.uuid4().hex[:12]


def test_console_is_served_with_a_strict_policy(ferryd):
    with urllib.request.urlopen(f'{ferryd.url}/console') as response:
        policy = response.headers['Content-Security-Policy']
        assert "default-src 'self'" in policy and "script-src 'self'" in policy and "'unsafe-inline'" not in policy
        assert response.headers['Content-Type'] == 'text/html; charset=utf-8'
        assert b'<script' in response.read()
    with urllib.request.urlopen(f'{ferryd.url}/console/app.js') as response:
        assert response.headers['Content-Type'] == 'text/javascript; charset=utf-8'


def test_sign_in_shows_a_bad_key_problem_and_sign_out_forgets_the_key(console, tenant):
    field = console.visible('#api-key')
    field.send_keys('ferry_not_a_key')
    field.send_keys(Keys.ENTER)  # the keyboard alone
    assert 'invalid_api_key' in console.problem_text()
    console.sign_in(tenant.key)
    assert tenant.key in console.storage()
    assert tenant.key not in console.driver.current_url
    assert console.driver.get_cookies() == []
    console.sign_out()
    assert tenant.key not in console.storage()
    console.driver.refresh()
    console.visible('#sign-in')


def test_a_submitted_job_shows_its_progress_until_done(console, tenant, origin):
    """LC-02: state and progress, live from the event stream, to done; then the content and delete."""
    name = gate()
    console.sign_in(tenant.key)
    console.go('#/submit')
    console.visible('#submit-url').send_keys(f'{origin.url}/gated/{name}/{4 * MiB}')
    console.visible('#submit-headers').send_keys('Authorization: Bearer s3cret-console-token\nX-Trace: console')
    console.click('#submit-job')
    console.wait_for_job_page_state('running')
    # As the API shows it: the secret header redacted, the other one as sent.
    headers = console.find('#request-headers').text
    assert 'authorization: <redacted>' in headers and 'x-trace: console' in headers
    assert 's3cret-console-token' not in console.driver.page_source
    # Half the bytes arrived and the gate holds the rest: the bar stands between empty and full.
    console.wait(lambda d: 0 < float(d.find_element(By.ID, 'job-progress').get_attribute('value') or 0)
                 < float(d.find_element(By.ID, 'job-progress').get_attribute('max')))
    job = console.driver.current_url.rsplit('/', 1)[-1]
    console.go('#/jobs')
    console.wait_for_row_state(job, 'running')
    console.wait(lambda d: 0 < float(console.find(f'tr[data-job="{job}"] progress').get_attribute('value') or 0))
    console.screenshot('jobs')
    origin.gates.open(name)
    console.wait_for_row_state(job, 'succeeded')
    bar = console.find(f'tr[data-job="{job}"] progress')
    assert bar.get_attribute('value') == bar.get_attribute('max') == str(4 * MiB)
    console.click(f'tr[data-job="{job}"] td.url a')
    console.wait_for_job_page_state('succeeded')
    assert console.find('#result-sha256').text == hashlib.sha256(pattern(0, 4 * MiB)).hexdigest()
    console.find('#attempts-table')
    console.screenshot('job')

    # The content comes through the API with the bearer header and is saved as a file.
    with tempfile.TemporaryDirectory() as downloads:
        console.driver.execute_cdp_cmd('Browser.setDownloadBehavior', {'behavior': 'allow', 'downloadPath': downloads})
        console.click('#job-download')
        saved = os.path.join(downloads, str(4 * MiB))
        console.wait(lambda d: os.path.exists(saved) and os.path.getsize(saved) == 4 * MiB)
        with open(saved, 'rb') as file:
            assert file.read() == pattern(0, 4 * MiB)
    console.driver.execute_script('window.confirm = () => true')
    console.click('#job-delete')
    console.wait(lambda d: d.current_url.endswith('#/jobs'))
    assert tenant.send('GET', f'/v1/jobs/{job}')[0] == 404


def test_field_errors_show_beside_their_fields(console, tenant):
    console.sign_in(tenant.key)
    console.go('#/submit')
    console.visible('#submit-url').send_keys('gopher://example.org/')
    console.visible('#submit-sha256').send_keys('not-a-digest')
    console.click('#submit-job')
    assert 'invalid_request' in console.problem_text()
    assert console.visible('#submit-url-error').text.startswith('request.url')
    assert console.visible('#submit-sha256-error').text.startswith('checksum.sha256')
    assert console.find('#submit-url').get_attribute('aria-invalid') == 'true'
    console.screenshot('submit-errors')


def open_running_job(console, tenant, origin):
    """A job held midway by its gate, its page open; returns the job's id, the gate's name and the URL."""
    name = gate()
    url = f'{origin.url}/gated/{name}/{2 * MiB}'
    job = tenant.submit(url)['id']
    tenant.wait_for_state(job, {'running'})
    console.sign_in(tenant.key)
    console.go(f'#/jobs/{job}')
    console.wait_for_job_page_state('running')
    return job, name, url


def test_pause_and_resume_a_running_job(console, tenant, origin):
    """DL-07, DL-12: pause keeps resume data; resumed, the next attempt continues with a Range."""
    _, name, url = open_running_job(console, tenant, origin)
    console.click('#job-pause')
    console.wait_for_job_page_state('paused')
    console.click('#job-resume')
    console.wait(lambda d: d.find_element(By.ID, 'job-state').text in ('queued', 'running'))
    origin.gates.open(name)
    console.wait_for_job_page_state('succeeded')
    ranges = [r for path, r in origin.requests if origin.url + path == url]
    assert ranges[0] is None and any(r for r in ranges[1:]), f'the resumed attempt continued with a Range: {ranges}'


def test_answer_a_redirect_decision(console, tenant, origin):
    """RD-01, RD-02: the redirect waits for a person (answered later, as AU-21 allows for challenges), who follows it."""
    console.sign_in(tenant.key)
    console.go('#/submit')
    console.visible('#submit-url').send_keys(f'{origin.url}/redirect/bytes/1000')
    console.click('#submit-ask-redirect')
    console.click('#submit-job')
    console.wait_for_job_page_state('waiting_for_decision')
    assert console.visible('#decision-target').text == f'{origin.url}/bytes/1000'
    console.screenshot('decision')
    Select(console.find('#decision-disposition')).select_by_value('follow')
    console.click('#decision-submit')
    console.wait_for_job_page_state('succeeded')


def test_answer_a_response_decision(console, tenant, origin):
    """LC-05, LC-08: the response head waits for a person, who reads its status and headers and allows it."""
    console.sign_in(tenant.key)
    console.go('#/submit')
    console.visible('#submit-url').send_keys(f'{origin.url}/bytes/1234')
    console.click('#submit-ask-response')
    console.click('#submit-job')
    console.wait_for_job_page_state('waiting_for_decision')
    assert console.visible('#decision-target').text == f'{origin.url}/bytes/1234'
    assert 'content-length: 1234' in console.visible('#decision-headers').text.lower()
    options = [o.get_attribute('value') for o in Select(console.find('#decision-disposition')).options]
    assert options == ['allow', 'cancel'], 'a download cannot become one'
    Select(console.find('#decision-disposition')).select_by_value('allow')
    console.click('#decision-submit')
    console.wait_for_job_page_state('succeeded')


def test_answer_a_credential_decision(console, tenant, origin):
    """AU-04, AU-12, AU-21: a Basic challenge waits; answered with a username and password, the job succeeds."""
    password = 'lovelace-' + gate()
    digest = hashlib.sha256(password.encode()).hexdigest()
    job = tenant.submit(f'{origin.url}/basic/ada/{digest}/500', decisions={'auth_challenge': 'ask'})['id']
    console.sign_in(tenant.key)
    console.go(f'#/jobs/{job}')
    console.wait_for_job_page_state('waiting_for_decision')
    Select(console.find('#decision-disposition')).select_by_value('use_credential')
    console.visible('#decision-username').send_keys('ada')
    console.visible('#decision-password').send_keys(password)
    console.click('#decision-submit')
    console.wait_for_job_page_state('succeeded')
    # The password went to the API once; the page keeps it nowhere.
    assert password not in console.driver.page_source
    assert password not in console.storage()


def test_answer_a_server_trust_decision(console, tenant, origin):
    """TLS-01, TLS-03, TLS-07: a self-signed server's chain and pins shown; trusted by a person, the job succeeds."""
    job = tenant.submit(f'{origin.tls_url}/bytes/700', decisions={'server_trust': 'ask'})['id']
    console.sign_in(tenant.key)
    console.go(f'#/jobs/{job}')
    console.wait_for_job_page_state('waiting_for_decision')
    form = console.visible('#decision-form')
    assert '127.0.0.1' in form.text
    assert 'sha256//' in form.text, 'the certificate\'s pin is shown'
    console.find('#decision-form details pre')
    Select(console.find('#decision-disposition')).select_by_value('trust')
    console.click('#decision-submit')
    console.wait_for_job_page_state('succeeded')


def test_cancel_a_running_job(console, tenant, origin):
    """LC-02, LC-15: a running job cancelled from its page ends cancelled."""
    _, name, _ = open_running_job(console, tenant, origin)
    console.click('#job-cancel')
    console.wait_for_job_page_state('cancelled')
    origin.gates.open(name)


def test_filter_by_state_and_text(console, tenant, origin):
    done = tenant.submit(f'{origin.url}/bytes/100?filter-one')['id']
    other = tenant.submit(f'{origin.url}/bytes/200?filter-two')['id']
    tenant.wait_for_state(done, {'succeeded', 'failed'})
    tenant.wait_for_state(other, {'succeeded', 'failed'})
    console.sign_in(tenant.key)
    console.find(f'tr[data-job="{done}"]')
    console.find(f'tr[data-job="{other}"]')
    console.visible('#text-filter').send_keys('FILTER-TWO')
    console.click('#apply-filter')
    console.wait(lambda d: not console.all(f'tr[data-job="{done}"]'))
    assert console.all(f'tr[data-job="{other}"]')
    console.find('#text-filter').clear()
    Select(console.find('#state-filter')).select_by_value('running')
    console.wait(lambda d: not console.all(f'tr[data-job="{other}"]'))
    console.visible('#no-jobs')


def test_bulk_cancel(console, tenant, origin):
    names = [gate() for _ in range(3)]
    jobs = [tenant.submit(f'{origin.url}/gated/{name}/{MiB}')['id'] for name in names]
    kept = tenant.submit(f'{origin.url}/gated/kept-{names[0]}/{MiB}')['id']
    console.sign_in(tenant.key)
    for job in jobs:
        console.click(f'tr[data-job="{job}"] input.select')
    assert console.find('#selection').text == '3 selected'
    console.click('#bulk-cancel')
    for job in jobs:
        console.wait_for_row_state(job, 'cancelled')
    assert console.job_state(kept) != 'cancelled'
    tenant.ok('POST', f'/v1/jobs/{kept}/cancel')
    for name in names + [f'kept-{names[0]}']:
        origin.gates.open(name)


def test_another_tenant_sees_none_of_the_first_tenants_jobs(console, tenant, admin, ferryd, origin):
    job = tenant.submit(f'{origin.url}/bytes/10')['id']
    other = admin.ok('POST', '/v1/admin/tenants', {'name': f'other-{gate()}'})
    console.sign_in(other['api_key'])
    console.visible('#no-jobs')
    assert console.all('tr[data-job]') == []
    console.go(f'#/jobs/{job}')
    assert 'not_found' in console.problem_text()


def test_admin_overview_tenants_keys_and_every_tenants_jobs(console, tenant, admin, origin):
    job = tenant.submit(f'{origin.url}/bytes/{MiB}')['id']
    tenant.wait_for_state(job, {'succeeded'})
    name = gate()
    running = tenant.submit(f'{origin.url}/gated/{name}/{MiB}')['id']
    tenant.wait_for_state(running, {'running'})
    console.sign_in(admin.key)
    count = console.find('#jobs-by-state [data-state="succeeded"] .value')
    console.wait(lambda d: int(count.text) >= 1)
    console.find('#throughput-chart rect.bar')
    assert console.find('#bytes-last-hour').text != '0 B'
    console.screenshot('overview')
    console.go('#/admin/tenants')
    row = console.find(f'tr[data-tenant="{tenant.id}"]')
    assert '1 / default' in row.text, 'one running job, under the server\'s default limit'
    # A new key for the tenant, shown once, that works; then revoked, it no longer does.
    row.find_element(By.CSS_SELECTOR, 'summary').click()
    console.find(f'tr[data-tenant="{tenant.id}"] li[data-key]')
    console.screenshot('tenants')  # before a key is shown: no key, even a throwaway one, goes into docs/
    console.click(f'tr[data-tenant="{tenant.id}"] details button.quiet')
    key = console.visible('#new-key-value').text
    assert Client(admin.base, key).send('GET', '/v1/jobs')[0] == 200
    console.driver.execute_script('window.confirm = () => true')
    newest = max(admin.ok('GET', f'/v1/admin/tenants/{tenant.id}/keys')['keys'], key=lambda k: k['created_at'])['id']
    console.click(f'li[data-key="{newest}"] button.danger')
    console.wait(lambda d: Client(admin.base, key).send('GET', '/v1/jobs')[0] == 401)
    assert tenant.send('GET', '/v1/jobs')[0] == 200, 'the first key still works'

    console.go('#/admin/jobs')
    console.find(f'tr[data-job="{job}"]')
    console.click(f'tr[data-job="{running}"] td.url a')
    console.wait_for_job_page_state('running')
    console.click('#job-cancel')
    console.wait_for_job_page_state('cancelled')
    origin.gates.open(name)


def test_phone_width_and_dark_mode(console, tenant, origin):
    tenant.submit(f'{origin.url}/bytes/1000')
    console.driver.set_window_size(390, 844)
    console.driver.execute_cdp_cmd('Emulation.setEmulatedMedia', {'features': [{'name': 'prefers-color-scheme', 'value': 'dark'}]})
    console.sign_in(tenant.key)
    console.find('tr[data-job]')
    background = console.driver.execute_script('return getComputedStyle(document.body).backgroundColor')
    assert background == 'rgb(15, 20, 26)', background
    # Nothing wider than the screen but the table, which scrolls inside its own box.
    assert console.driver.execute_script('return document.documentElement.scrollWidth <= window.innerWidth')
    console.screenshot('jobs-phone-dark')


def test_keyboard_alone_reaches_a_job(console, tenant, origin):
    job = tenant.submit(f'{origin.url}/bytes/10?keyboard')['id']
    field = console.visible('#api-key')
    field.send_keys(tenant.key, Keys.ENTER)
    console.find(f'tr[data-job="{job}"]')
    link = f'#/jobs/{job}'
    for _ in range(60):
        ActionChains(console.driver).send_keys(Keys.TAB).perform()
        if console.driver.execute_script('return document.activeElement.getAttribute("href")') == link:
            break
    else:
        raise AssertionError('Tab never reached the job\'s link')
    assert console.driver.execute_script('return getComputedStyle(document.activeElement).outlineStyle') != 'none'
    ActionChains(console.driver).send_keys(Keys.ENTER).perform()
    console.find('#job-state')
    assert console.driver.current_url.endswith(link)


def test_sessions_blobs_credentials_and_webhooks(console, tenant, origin):
    console.sign_in(tenant.key)
    console.go('#/sessions')
    console.visible('#session-headers').send_keys('X-Console: yes')
    console.click('#session-form button[type=submit]')
    console.wait(lambda d: 'x-console: yes' in console.find('#sessions-table').text.lower())

    console.go('#/blobs')
    with tempfile.NamedTemporaryFile('wb', suffix='.bin', delete=False) as upload:
        upload.write(b'console blob' * 100)
    try:
        console.find('#blob-file').send_keys(upload.name)
        console.click('#blob-form button[type=submit]')
        console.wait(lambda d: '1.2 KiB' in console.find('#blobs-table').text)
    finally:
        os.unlink(upload.name)

    tenant.ok('POST', '/v1/credentials', {'protection_space': {'scheme': 'https', 'host': 'files.example.org', 'port': 443,
                                                               'realm': 'vault', 'method': 'basic'},
                                          'username': 'ada', 'password': 'never-shown'})
    console.go('#/credentials')
    row = console.find('#credentials-table tbody tr')
    assert 'files.example.org' in row.text and 'never-shown' not in console.driver.page_source

    console.go('#/webhooks')
    console.visible('#endpoint-url').send_keys(f'{origin.url}/hook')
    console.click('#endpoint-form button[type=submit]')
    assert console.visible('#endpoint-secret .secret').text.startswith('whsec_')
    job = tenant.submit(f'{origin.url}/bytes/10?hooked')['id']
    tenant.wait_for_state(job, {'succeeded'})
    console.wait(lambda d: any(path == '/hook' for path, _, _ in origin.deliveries), seconds=60)
    console.go('#/sessions')
    console.go('#/webhooks')
    console.find('#deliveries-table tbody tr button')
    delivered = len(origin.deliveries)
    console.click('#deliveries-table tbody tr button')
    console.wait(lambda d: 'queued again' in console.find('#notice').text)
    console.wait(lambda d: len(origin.deliveries) > delivered)


def later(seconds):
    """An RFC 3339 time `seconds` from now: a job with this not_before stays queued (BG-18)."""
    return (datetime.now(timezone.utc) + timedelta(seconds=seconds)).strftime('%Y-%m-%dT%H:%M:%SZ')


def test_cursor_paging_through_the_jobs_table(console, tenant, origin):
    """BG-18: 120 jobs held queued by a not_before a day ahead, read in pages of 50 with Older and Newer."""
    marker = gate()
    tenant.ok('POST', '/v1/jobs/batch', {'jobs': [
        {'kind': 'download', 'not_before': later(86400), 'request': {'url': f'{origin.url}/bytes/10?{marker}-{i}'}}
        for i in range(120)]})
    submitted = {job['id'] for job in tenant.ok('GET', '/v1/jobs?limit=500')['jobs']}
    assert len(submitted) == 120
    console.sign_in(tenant.key)
    console.wait(lambda d: len(console.row_ids()) == 50)
    assert console.find('#page-number').text == 'page 1'
    assert not console.find('#previous-page').is_enabled() and console.find('#next-page').is_enabled()
    pages = [console.row_ids()]
    for number, size in ((2, 50), (3, 20)):
        shown = set(pages[-1])
        console.click('#next-page')
        console.wait(lambda d: console.find('#page-number').text == f'page {number}'
                     and len(console.row_ids()) == size and not shown & set(console.row_ids()))
        pages.append(console.row_ids())
    assert not console.find('#next-page').is_enabled(), 'the last page has no older one'
    # Newest first, every job once: the three pages together are the 120 jobs.
    assert set(pages[0]) | set(pages[1]) | set(pages[2]) == submitted
    created = {job['id']: job['created_at'] for job in tenant.ok('GET', '/v1/jobs?limit=500')['jobs']}
    assert min(created[i] for i in pages[0]) >= max(created[i] for i in pages[1]) >= min(created[i] for i in pages[1]) >= max(created[i] for i in pages[2])
    # Back again: the same rows in the same order.
    for number in (2, 1):
        console.click('#previous-page')
        console.wait(lambda d: console.find('#page-number').text == f'page {number}' and console.row_ids() == pages[number - 1])
    assert not console.find('#previous-page').is_enabled()
    # No queued job of this test is left for later ones (the overview's oldest queued job).
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda job: tenant.ok('POST', f'/v1/jobs/{job}/cancel'), submitted))


def test_bulk_pause_and_resume(console, tenant, origin):
    """LC-02, DL-07, DL-12: selected running jobs paused together, then resumed together; each ends complete."""
    names = [gate() for _ in range(3)]
    jobs = [tenant.submit(f'{origin.url}/gated/{name}/{MiB}')['id'] for name in names]
    kept_gate = gate()
    kept = tenant.submit(f'{origin.url}/gated/{kept_gate}/{MiB}')['id']
    for job in jobs + [kept]:
        tenant.wait_for_state(job, {'running'})
    console.sign_in(tenant.key)
    for job in jobs + [kept]:
        console.wait_for_row_state(job, 'running')
    for job in jobs:
        console.click(f'tr[data-job="{job}"] input.select')
    assert console.find('#selection').text == '3 selected'
    console.click('#bulk-pause')
    for job in jobs:
        console.wait_for_row_state(job, 'paused')
    assert console.job_state(kept) == 'running'
    assert console.find('#selection').text == '' and console.find('#bulk-resume').get_attribute('disabled') is not None
    for job in jobs:
        assert tenant.ok('GET', f'/v1/jobs/{job}')['state'] == 'paused'
        console.click(f'tr[data-job="{job}"] input.select')
    console.click('#bulk-resume')
    for job in jobs:
        console.wait(lambda d: console.job_state(job) in ('queued', 'running', 'succeeded'))
    for name in names + [kept_gate]:
        origin.gates.open(name)
    for job in jobs + [kept]:
        console.wait_for_row_state(job, 'succeeded')
        assert tenant.ok('GET', f'/v1/jobs/{job}')['result']['sha256'] == hashlib.sha256(pattern(0, MiB)).hexdigest()


def test_a_running_row_shows_bytes_rate_eta_age_and_attempts_from_the_event_stream(console, tenant, origin):
    """LC-02, LC-12: the row of a running job moves with the tenant's event stream; the list is read once."""
    name = gate()
    job = tenant.submit(f'{origin.url}/drip/{name}/{64 * MiB}')['id']
    try:
        tenant.wait_for_state(job, {'running'})
        console.sign_in(tenant.key)
        console.wait_for_row_state(job, 'running')
        row = f'tr[data-job="{job}"]'

        def cells():
            return console.driver.execute_script("""
                const row = document.querySelector(arguments[0]);
                const text = (css) => row.querySelector(css).textContent;
                return {value: Number(row.querySelector('progress').value), bytes: text('.progress-text'), rate: text('td.rate'),
                        eta: text('td.eta'), age: text('td.age'), attempts: text('td.attempts')};""", row)

        console.wait(lambda d: cells()['rate'] != '' and cells()['eta'] != '' and cells()['value'] > 0)
        seen = cells()
        assert re.fullmatch(r'[\d.]+ (B|KiB|MiB) of 64 MiB', seen['bytes']), seen
        assert re.fullmatch(r'[\d.]+ (B|KiB|MiB)/s', seen['rate']), seen
        assert re.fullmatch(r'\d+:\d\d(:\d\d)?', seen['eta']), seen
        assert re.fullmatch(r'\d+ (s|min)', seen['age']), seen
        assert seen['attempts'] == '1/3', seen
        # The list was read once, when the stream opened; the bar then moved three times more with no
        # other read of /v1/jobs (neither the list nor the job): the events moved it, not polling.
        def job_reads():
            return console.driver.execute_script(
                "return performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname.startsWith('/v1/jobs')).length")
        reads = job_reads()
        assert reads == 1, reads
        values = {seen['value']}
        console.wait(lambda d: values.add(cells()['value']) or len(values) >= 4)
        assert job_reads() == reads
        assert cells()['bytes'] != seen['bytes']
    finally:
        origin.gates.open(name)
        tenant.send('POST', f'/v1/jobs/{job}/cancel')


def test_a_running_job_page_keeps_its_details_while_progress_moves(console, tenant, origin):
    """LC-02, LC-12: progress events move the job page's bar but leave its request as it is, so a
    person's selection in it, or a screen reader's place, survives."""
    name = gate()
    job = tenant.ok('POST', '/v1/jobs', {'kind': 'download', 'request': {
        'url': f'{origin.url}/drip/{name}/{64 * MiB}', 'headers': {'X-Trace': 'kept'}}})['id']
    try:
        tenant.wait_for_state(job, {'running'})
        console.sign_in(tenant.key)
        console.go(f'#/jobs/{job}')
        console.wait_for_job_page_state('running')
        request = console.find('#request-headers')
        assert 'x-trace: kept' in request.text

        def shown():
            # One script reads the bar: each progress event makes the summary, bar included, again,
            # so an element found in one call may be gone by the next (a stale element reference).
            return float(console.driver.execute_script(
                "return document.getElementById('job-progress')?.getAttribute('value') || 0"))
        values = {shown()}
        console.wait(lambda d: values.add(shown()) or len(values) >= 3)
        # The same element as before the bar moved: it was not made again (a stale one raises here).
        assert 'x-trace: kept' in request.text
    finally:
        origin.gates.open(name)
        tenant.send('POST', f'/v1/jobs/{job}/cancel')


def test_a_finished_job_page_shows_response_result_attempts_and_events(console, tenant, origin):
    """LC-18, LC-07, DL-03: the response head, the result's size and cache status, the attempt with its
    timing and the event timeline of a job that succeeded."""
    job = tenant.submit(f'{origin.url}/bytes/5000?finished')['id']
    done = tenant.wait_for_state(job, {'succeeded'})
    console.sign_in(tenant.key)
    console.go(f'#/jobs/{job}')
    console.wait_for_job_page_state('succeeded')
    assert console.fact('Response', 'Status') == '200'
    headers = console.find('#response-headers').text.lower()
    assert 'etag: "pattern-5000"' in headers and 'content-length: 5000' in headers, headers
    assert console.fact('Result', 'Size') == '4.9 KiB (5000 bytes)'
    assert done['result']['cache'] in ('miss', 'hit', 'revalidated', 'stale')
    assert console.fact('Result', 'Cache') == done['result']['cache']
    cells = [cell.text for cell in console.find('#attempts-table tbody tr').find_elements(By.TAG_NAME, 'td')]
    number, started, took, outcome, status, error, size = cells
    assert (number, outcome, status, error, size) == ('1', 'succeeded', '200', '', '4.9 KiB'), cells
    assert started and re.fullmatch(r'\d+:\d\d', took), cells
    console.wait(lambda d: 'job.succeeded' in console.find('#job-timeline').text)
    timeline = [item.text for item in console.all('#job-timeline li')]
    assert any('job.running' in item for item in timeline), timeline
    assert [i for i, item in enumerate(timeline) if 'job.running' in item][0] < [i for i, item in enumerate(timeline) if 'job.succeeded' in item][0]


def test_a_failed_job_page_shows_its_error_code(console, tenant, origin):
    """ER-01, ER-10, DL-03: an origin's 404 is a response, not a transfer error; the job fails with
    http_error and the attempt keeps the status."""
    job = tenant.submit(f'{origin.url}/missing/{gate()}', retry={'max_attempts': 1})['id']
    failed = tenant.wait_for_state(job, {'failed'})
    assert failed['error']['code'] == 'http_error'
    console.sign_in(tenant.key)
    console.go(f'#/jobs/{job}')
    console.wait_for_job_page_state('failed')
    assert console.find('#error-code').text == 'http_error'
    assert '404' in console.fact('Error', 'Message')
    assert console.fact('Response', 'Status') == '404'
    cells = [cell.text for cell in console.find('#attempts-table tbody tr').find_elements(By.TAG_NAME, 'td')]
    assert cells[3:6] == ['failed', '404', 'http_error'], cells
    console.wait(lambda d: 'job.failed http_error' in console.find('#job-timeline').text)
    assert console.all('#job-download') == []


def test_submit_form_session_priority_and_callback_reach_the_job(console, tenant, origin):
    """SES-06, SES-09: a job submitted in a session, with a priority and a callback, is created with them;
    the callback is delivered to its URL when the job ends."""
    session = tenant.ok('POST', '/v1/sessions', {'kind': 'default'})['id']
    marker = gate()
    callback = f'{origin.url}/hook?{marker}'
    console.sign_in(tenant.key)
    console.go('#/submit')
    console.find(f'#submit-session option[value="{session}"]')
    Select(console.find('#submit-session')).select_by_value(session)
    console.visible('#submit-priority').send_keys('7')
    console.visible('#submit-callback').send_keys(callback)
    console.visible('#submit-url').send_keys(f'{origin.url}/bytes/300?{marker}')
    console.click('#submit-job')
    console.wait_for_job_page_state('succeeded')
    job = console.driver.current_url.rsplit('/', 1)[-1]
    created = tenant.ok('GET', f'/v1/jobs/{job}')
    assert (created['session'], created['priority']) == (session, 7)
    assert console.fact('', 'Priority') == '7' and console.fact('', 'Session') == session
    console.wait(lambda d: any(path == f'/hook?{marker}' for path, _, _ in origin.deliveries))
    deliveries = tenant.ok('GET', f'/v1/webhooks/deliveries?job={job}')['deliveries']
    assert [(d['url'], d.get('endpoint')) for d in deliveries] == [(callback, None)], deliveries


def test_admin_overview_shows_the_oldest_queued_job_and_webhook_failures(console, tenant, admin, origin):
    failed_before = admin.ok('GET', '/v1/admin/overview')['webhook_deliveries']['failed']
    # A callback whose receiver answers 410 Gone fails at once, without retries.
    tenant.submit(f'{origin.url}/bytes/10?gone', callback={'url': f'{origin.url}/gone'})
    console.wait(lambda d: admin.ok('GET', '/v1/admin/overview')['webhook_deliveries']['failed'] == failed_before + 1)
    queued = tenant.submit(f'{origin.url}/bytes/10?held', not_before=later(86400))['id']
    # The oldest of every tenant's queued jobs, read from the job list (not from the overview). Its
    # times are written to the millisecond: jobs submitted together may share the oldest one.
    listed = admin.ok('GET', '/v1/admin/jobs?state=queued&limit=500')
    assert listed.get('next_cursor') is None
    assert queued in {job['id'] for job in listed['jobs']}
    first = min(job['created_at'] for job in listed['jobs'])
    oldest = {job['id'] for job in listed['jobs'] if job['created_at'] == first}
    console.sign_in(admin.key)
    link = console.find('#oldest-queued a')
    shown = link.text
    assert shown in oldest, (shown, oldest)
    assert link.get_attribute('href').endswith(f'#/admin/jobs/{shown}')
    assert re.fullmatch(r'\d+ (s|min|h) old ' + shown, console.find('#oldest-queued').text)
    assert re.fullmatch(rf'{failed_before + 1} \([1-9]\d* in the last hour\)', console.find('#webhook-failures').text)
    link.click()
    console.wait_for_job_page_state('queued')
