"""A real ferryd for the browser tests: `ferryd serve` on a port the system picks, with its own private
PostgreSQL cluster under a throwaway data directory, allowed to reach the loopback origin; and a small
JSON client of its API to set the scene faster than a browser would."""

import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request


class Ferryd:
    def __init__(self, binary, repository, workers=4):
        self.data_directory = tempfile.mkdtemp(prefix='ferry-console-')
        self.admin_key = 'ferry_console_admin_' + secrets.token_hex(16)
        environment = dict(os.environ)
        environment.pop('FERRY_DATABASE_URL', None)
        environment.update({
            'FERRY_ADMIN_KEY': self.admin_key,
            'FERRY_RETRY_BASE_MS': '200',
            'FERRY_LEASE_SECONDS': '10',
        })
        self.log_path = os.path.join(self.data_directory, 'ferryd.log')
        self.log = open(self.log_path, 'w')
        self.process = subprocess.Popen(
            [binary, 'serve', '--port', '0', '--host', '127.0.0.1', '--workers', str(workers),
             '--allow-private-networks', 'true', '--data-dir', self.data_directory],
            cwd=repository, env=environment, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.url = self._wait_for_listening(deadline=time.monotonic() + 180)
        # Keep reading stdout so ferryd never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _wait_for_listening(self, deadline):
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f'ferryd exited ({self.process.wait()}) before it listened; see {self.log_path}:\n{self.log_tail()}')
            if match := re.search(r'ferryd listening on (http://\S+)', line):
                return match.group(1)
        raise RuntimeError(f'ferryd did not listen within 180 s; see {self.log_path}')

    def _drain(self):
        for _ in self.process.stdout:
            pass

    def log_tail(self, characters=4000):
        with open(self.log_path) as log:
            return log.read()[-characters:]

    def stop(self):
        """SIGTERM: ferryd stops its transfers and its private PostgreSQL, then exits."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.data_directory, ignore_errors=True)


class Client:
    """The API with one key; answers (status, parsed JSON or None)."""

    def __init__(self, base, key):
        self.base = base
        self.key = key

    def send(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header('Authorization', f'Bearer {self.key}')
        if data is not None:
            request.add_header('Content-Type', 'application/json')
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read()
                return response.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, (json.loads(text) if text else None)

    def ok(self, method, path, body=None):
        status, document = self.send(method, path, body)
        assert 200 <= status < 300, f'{method} {path}: {status} {document}'
        return document

    def submit(self, url, **fields):
        return self.ok('POST', '/v1/jobs', {'kind': 'download', 'request': {'url': url}, **fields})

    def wait_for_state(self, job, states, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            current = self.ok('GET', f'/v1/jobs/{job}')
            if current['state'] in states:
                return current
            time.sleep(0.2)
        raise AssertionError(f'job {job} never reached {states}: {current}')
