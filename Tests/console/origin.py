"""A loopback origin for the console's browser tests, in this process so a test can hold a transfer
midway: /gated/<name>/<size> sends the first half of its bytes, then waits until the test opens the
gate <name>; a paused or cancelled transfer is therefore always caught running, on any machine speed.

Routes:
  /bytes/<size>                 <size> bytes, at once
  /gated/<name>/<size>          half, then the rest once gate <name> opens (Range and a strong ETag, so
                                a paused job continues where it stopped)
  /drip/<name>/<size>           16 KiB every quarter second until gate <name> opens, then nothing more
  /redirect/<path...>           302 to /<path...>
  /basic/<user>/<sha256 of password>/<size>   401 with a Basic challenge unless those credentials come
  POST /hook                    a webhook receiver: 204, the delivery kept in .deliveries
  POST /gone                    a receiver that is gone: 410, which fails a delivery at once

The same routes are served over TLS at .tls_url with a self-signed certificate no one trusts, for the
server trust decision.
"""

import base64
import hashlib
import os
import re
import ssl
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


# One period of the pattern: byte i is (i * 7 + 3) % 251, which repeats every 251 bytes.
PERIOD = bytes((i * 7 + 3) % 251 for i in range(251))


def pattern(offset, count):
    """Bytes that differ by position, so a misplaced range would change the digest. Cut from repeated
    periods, not made byte by byte: the load check's 200 drips call this 800 times a second, and a
    Python loop over each byte (2 ms for 16 KiB) held this process's GIL, so Selenium's own calls in it
    waited behind the origin's threads."""
    start = offset % len(PERIOD)
    return (PERIOD * ((start + count) // len(PERIOD) + 1))[start:start + count]


class Gates:
    def __init__(self):
        self._lock = threading.Lock()
        self._gates = {}

    def get(self, name):
        with self._lock:
            return self._gates.setdefault(name, threading.Event())

    def open(self, name):
        self.get(name).set()


class Origin:
    def __init__(self):
        self.gates = Gates()
        self.requests = []
        self.deliveries = []
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *arguments):
                pass

            def do_GET(self):
                origin.requests.append((self.path, self.headers.get('Range')))
                # A query only tells jobs apart (the filter test): the route is the path.
                path = self.path.split('?', 1)[0]
                if match := re.fullmatch(r'/bytes/(\d+)', path):
                    return self.send_bytes(int(match.group(1)), gate=None)
                if match := re.fullmatch(r'/gated/([\w-]+)/(\d+)', path):
                    return self.send_bytes(int(match.group(2)), gate=match.group(1))
                if match := re.fullmatch(r'/drip/([\w-]+)/(\d+)', path):
                    return self.send_bytes(int(match.group(2)), gate=match.group(1), drip=True)
                if match := re.fullmatch(r'/basic/(\w+)/([0-9a-f]{64})/(\d+)', path):
                    user, password = base64.b64decode(self.headers.get('Authorization', 'Basic ')[6:] or b'').decode().partition(':')[::2]
                    if user == match.group(1) and hashlib.sha256(password.encode()).hexdigest() == match.group(2):
                        return self.send_bytes(int(match.group(3)), gate=None)
                    self.send_response(401)
                    self.send_header('WWW-Authenticate', 'Basic realm="console"')
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return None
                if match := re.fullmatch(r'/redirect(/.*)', self.path):
                    self.send_response(302)
                    self.send_header('Location', match.group(1))
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return None
                self.send_response(404)
                self.send_header('Content-Length', '0')
                self.end_headers()
                return None

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get('Content-Length', '0')))
                origin.deliveries.append((self.path, dict(self.headers), body))
                self.send_response({'/hook': 204, '/gone': 410}.get(self.path.split('?', 1)[0], 404))
                self.send_header('Content-Length', '0')
                self.end_headers()

            def send_bytes(self, size, gate, drip=False):
                etag = f'"pattern-{size}"'
                start = 0
                ranged = self.headers.get('Range')
                if ranged and self.headers.get('If-Range', etag) == etag:
                    if match := re.fullmatch(r'bytes=(\d+)-', ranged.strip()):
                        start = min(int(match.group(1)), size)
                if start > 0:
                    self.send_response(206)
                    self.send_header('Content-Range', f'bytes {start}-{size - 1}/{size}')
                else:
                    self.send_response(200)
                self.send_header('Content-Type', 'application/octet-stream')
                self.send_header('Content-Length', str(size - start))
                self.send_header('ETag', etag)
                self.send_header('Accept-Ranges', 'bytes')
                self.end_headers()
                half = size // 2
                try:
                    if drip:
                        # Never the rest at full speed: an open gate ends the body short, so a load
                        # check's hundreds of transfers never write gigabytes on their way out.
                        step = 16 * 1024
                        while start < size and not origin.gates.get(gate).wait(timeout=0.25):
                            self.write(start, min(size, start + step))
                            start = min(size, start + step)
                        self.close_connection = True
                        return
                    if gate is not None and start < half:
                        self.write(start, half)
                        start = half
                    if gate is not None:
                        # A transfer paused or cancelled meanwhile has gone; writing then fails and ends here.
                        origin.gates.get(gate).wait(timeout=120)
                    self.write(start, size)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def write(self, start, end):
                step = 64 * 1024
                for offset in range(start, end, step):
                    self.wfile.write(pattern(offset, min(step, end - offset)))
                self.wfile.flush()

        self.server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.server.daemon_threads = True
        self.url = f'http://127.0.0.1:{self.server.server_address[1]}'
        self.tls_server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.tls_server.daemon_threads = True
        self.tls_server.socket = self._self_signed_context().wrap_socket(self.tls_server.socket, server_side=True)
        self.tls_url = f'https://127.0.0.1:{self.tls_server.server_address[1]}'
        for server in (self.server, self.tls_server):
            threading.Thread(target=server.serve_forever, daemon=True).start()

    @staticmethod
    def _self_signed_context():
        with tempfile.TemporaryDirectory() as folder:
            key, certificate = os.path.join(folder, 'key.pem'), os.path.join(folder, 'certificate.pem')
            subprocess.run(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
                            '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', certificate],
                           check=True, capture_output=True)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certificate, key)
            return context

    def close(self):
        for name in list(self.gates._gates):
            self.gates.open(name)
        for server in (self.server, self.tls_server):
            server.shutdown()
            server.server_close()
