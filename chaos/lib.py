"""Shared pieces of the chaos suite: devstack, a real splashd child, a JSON-RPC client, measurements.

Everything here drives the release binaries (`.build-chaos/release/splashd`, `splashctl`) as a user
would: a process with its own directories, a notify socket it reports READY=1 on, the control
socket, and devstack on loopback.
"""
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("CHAOS_BIN", os.path.join(ROOT, ".build-chaos", "release"))
SPLASHD = os.path.join(BIN, "splashd")
SPLASHCTL = os.path.join(BIN, "splashctl")
PASSWORD = "chaos-pw-" + uuid.uuid4().hex[:12]


class Failure(Exception):
    pass


def log(*parts):
    print("  " + " ".join(str(p) for p in parts), flush=True)


def wait_until(what, predicate, timeout=30.0, interval=0.05):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except Exception as error:  # noqa: BLE001 - the predicate may fail while things settle
            last = error
        time.sleep(interval)
    raise Failure(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


# ---------------------------------------------------------------------------------------------------
# HTTP


def http(method, url, body=None, headers=None, timeout=30.0):
    """(status, headers, bytes) for any answer, never raising for an HTTP status."""
    data = None
    hdrs = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, (bytes, bytearray)) else json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    request = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def http_json(method, url, body=None, headers=None, timeout=30.0):
    status, _, data = http(method, url, body, headers, timeout)
    try:
        return status, json.loads(data) if data else None
    except ValueError:
        return status, data


# ---------------------------------------------------------------------------------------------------
# devstack


class Devstack:
    """A devstack instance of the chaos run's own (its own state directory and port)."""

    def __init__(self, photos=500):
        self.state_dir = tempfile.mkdtemp(prefix="splashd-chaos-devstack-")
        os.rmdir(self.state_dir)  # devstack creates it
        self.photos = photos
        self.env = {}

    def up(self):
        env = dict(os.environ, DEVSTACK_STATE_DIR=self.state_dir, DEVSTACK_PHOTOS=str(self.photos))
        env.pop("DEVSTACK_PORT", None)
        out = subprocess.run([os.path.join(ROOT, "devstack", "devstack"), "up"], env=env, capture_output=True,
                             text=True, timeout=600)
        if out.returncode != 0:
            raise Failure(f"devstack up failed: {out.stderr[-2000:]}")
        for line in out.stdout.splitlines():
            if "=" in line:
                key, value = line.split("=", 1)
                self.env[key] = value
        return self

    def down(self):
        env = dict(os.environ, DEVSTACK_STATE_DIR=self.state_dir)
        if os.environ.get("CHAOS_KEEP"):  # the server's and Postgres's logs outlive the instance
            kept = self.state_dir + ".logs"
            os.makedirs(kept, exist_ok=True)
            try:
                with open(os.path.join(self.state_dir, "pgdata.path")) as f:
                    pgdata = f.read().strip()
                for path in (os.path.join(self.state_dir, "server.log"), os.path.join(pgdata, "postgres.log")):
                    if os.path.exists(path):
                        shutil.copy(path, kept)
                print(f"chaos: CHAOS_KEEP is set: the devstack's logs stay in {kept}", flush=True)
            except OSError as error:
                print(f"chaos: cannot keep the devstack's logs: {error}", flush=True)
        subprocess.run([os.path.join(ROOT, "devstack", "devstack"), "down"], env=env, capture_output=True, timeout=120)

    @property
    def url(self):
        return self.env["DEVSTACK_URL"]

    @property
    def backend(self):
        return self.env["SPLASHD_BACKEND_URL"]

    @property
    def anon(self):
        return self.env["SPLASHD_ANON_KEY"]

    @property
    def service(self):
        return self.env["DEVSTACK_SERVICE_ROLE_KEY"]

    def daemon_env(self, unsplash=True):
        env = {"SPLASHD_BACKEND_URL": self.backend, "SPLASHD_ANON_KEY": self.anon}
        if unsplash:
            env["SPLASHD_UNSPLASH_API_URL"] = self.env["SPLASHD_UNSPLASH_API_URL"]
            env["SPLASHD_UNSPLASH_ACCESS_KEY"] = self.env["SPLASHD_UNSPLASH_ACCESS_KEY"]
            env["SPLASHD_NASA_API_URL"] = self.env["SPLASHD_NASA_API_URL"]
        return env

    def control(self, method, path, body=None):
        status, data = http_json(method, self.url + path, body)
        if status >= 300:
            raise Failure(f"devstack {method} {path}: HTTP {status} {data!r}")
        return data

    def reset(self, database=False):
        return self.control("POST", "/_devstack/reset", {"database": True} if database else None)

    def faults(self, rules):
        return self.control("POST", "/_devstack/faults", rules)

    def clear_faults(self):
        return self.control("DELETE", "/_devstack/faults")

    def knobs(self, values):
        return self.control("POST", "/_devstack/knobs", values)

    def counters(self):
        return self.control("GET", "/_devstack/counters")

    def revoke(self, email, mode="delete"):
        return self.control("POST", "/_devstack/revoke_sessions", {"email": email, "mode": mode})

    def service_get(self, path_and_query):
        status, data = http_json("GET", self.backend + "/rest/v1/" + path_and_query,
                                 headers={"apikey": self.service, "Authorization": "Bearer " + self.service})
        if status != 200:
            raise Failure(f"service read {path_and_query}: HTTP {status} {data!r}")
        return data

    def user_id(self, email):
        rows = self.service_get("profiles?select=id&email=eq." + urllib.request.quote(email))
        return rows[0]["id"] if rows else None

    def server_likes(self, email):
        """{photo_id: active?} of the account, and the list of duplicate photo ids (should be empty)."""
        uid = self.user_id(email)
        rows = self.service_get(f"likes?select=photo_id,deleted_at&user_id=eq.{uid}")
        result, duplicates = {}, []
        for row in rows:
            if row["photo_id"] in result:
                duplicates.append(row["photo_id"])
            result[row["photo_id"]] = row["deleted_at"] is None
        return result, duplicates

    def unsplash_photos(self, count, page=1):
        key = self.env["SPLASHD_UNSPLASH_ACCESS_KEY"]
        status, data = http_json("GET", self.env["SPLASHD_UNSPLASH_API_URL"] +
                                 f"/photos?per_page={count}&page={page}&order_by=oldest",
                                 headers={"Authorization": "Client-ID " + key})
        if status != 200:
            raise Failure(f"unsplash photos: HTTP {status}")
        return data

    # Auth as a plain client (for RLS checks).
    def signup(self, email, password=PASSWORD, username=None):
        body = {"email": email, "password": password, "data": {"username": username or "u" + uuid.uuid4().hex[:10]}}
        status, data = http_json("POST", self.backend + "/auth/v1/signup", body, headers={"apikey": self.anon})
        if status != 200:
            raise Failure(f"signup {email}: HTTP {status} {data!r}")
        return data


# ---------------------------------------------------------------------------------------------------
# JSON-RPC over the control socket


class Rpc:
    def __init__(self, path, timeout=60.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buffer = b""
        self.next_id = 0

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send_line(self, data: bytes):
        self.sock.sendall(data + b"\n")

    def read_line(self, timeout=None):
        if timeout is not None:
            self.sock.settimeout(timeout)
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                if self.buffer:
                    line, self.buffer = self.buffer, b""
                    return line
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def call_raw(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send_line(json.dumps(message).encode())
        while True:
            line = self.read_line()
            if line is None:
                raise Failure(f"{method}: connection closed")
            answer = json.loads(line)
            if answer.get("method") == "event":
                continue
            return answer

    def call(self, method, params=None):
        answer = self.call_raw(method, params)
        if "error" in answer:
            raise RpcError(method, answer["error"])
        return answer["result"]


class RpcError(Exception):
    def __init__(self, method, error):
        super().__init__(f"{method}: {error.get('code')} {error.get('message')} {error.get('data')}")
        self.error = error
        self.kind = (error.get("data") or {}).get("kind")


# ---------------------------------------------------------------------------------------------------
# splashd as a child process


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class RssSampler:
    """Samples a process's RSS every `interval` seconds in a thread; `.max_kb` is the peak seen."""

    def __init__(self, pid, interval=0.05):
        self.pid, self.interval, self.max_kb = pid, interval, 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopping.is_set():
            value = rss_kb(self.pid)
            if value:
                self.max_kb = max(self.max_kb, value)
            self.stopping.wait(self.interval)

    def stop(self):
        self.stopping.set()
        self.thread.join()
        return self.max_kb


class Daemon:
    """A real splashd in `directory` (state, data, cache, run/control.sock, stderr.log, notify socket)."""

    def __init__(self, directory, env=None, config=None, data_dir=None, extra_args=None):
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        self.socket_path = os.path.join(directory, "run", "control.sock")
        self.stderr_path = os.path.join(directory, "stderr.log")
        self.data_dir = data_dir or os.path.join(directory, "data")
        self.env = dict(env or {})
        self.args = list(extra_args or [])
        if config is not None:
            path = os.path.join(directory, "config.toml")
            with open(path, "w") as f:
                f.write(config)
            self.args += ["--config", path]
        self.proc = None
        self.notify = None
        self.ready_at = None

    @property
    def db_path(self):
        return os.path.join(self.directory, "state", "splashd.sqlite")

    @property
    def library(self):
        return os.path.join(self.data_dir, "library")

    @property
    def cache_dir(self):
        return os.path.join(self.directory, "cache")

    def log_size(self):
        """Where the log ends now: `log_since` of it is what a later run wrote."""
        try:
            return os.path.getsize(self.stderr_path)
        except OSError:
            return 0

    def log_since(self, offset):
        try:
            with open(self.stderr_path, "rb") as f:
                f.seek(offset)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def start(self, wait_ready=True, timeout=60.0):
        notify_path = os.path.join(self.directory, "notify.sock")
        if os.path.exists(notify_path):
            os.unlink(notify_path)
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(notify_path)
        self.messages = []
        self.ready = threading.Event()
        self.ready_at = None
        threading.Thread(target=self.read_notifications, args=(self.notify, self.ready), daemon=True).start()
        env = {"PATH": "/usr/bin:/bin", "HOME": self.directory, "LANG": "C.UTF-8", "NOTIFY_SOCKET": notify_path}
        if os.environ.get("CHAOS_LOG_LEVEL"):  # e.g. debug, to see a replayed failure's every retry
            env["SPLASHD_LOG_LEVEL"] = os.environ["CHAOS_LOG_LEVEL"]
        env.update(self.env)
        flags = ["--state-dir", os.path.join(self.directory, "state"), "--data-dir", self.data_dir,
                 "--cache-dir", self.cache_dir, "--socket", self.socket_path,
                 "--log-target", "stderr"]
        self.stderr = open(self.stderr_path, "ab")
        self.started_at = time.monotonic()
        self.proc = subprocess.Popen([SPLASHD] + flags + self.args, env=env, stdin=subprocess.DEVNULL,
                                     stdout=self.stderr, stderr=self.stderr)
        if wait_ready:
            self.wait_ready(timeout)
        return self

    def read_notifications(self, sock, ready):
        # Read the notify socket for as long as the daemon lives, as systemd does: a notify socket
        # nobody reads fills up, and sd_notify() then blocks the daemon.
        while True:
            try:
                message = sock.recv(65536).decode(errors="replace")
            except OSError:
                return
            if not message:
                return
            self.messages.append((time.monotonic(), message))
            if "READY=1" in message.split("\n") and not ready.is_set():
                self.ready_at = time.monotonic()
                ready.set()

    def wait_ready(self, timeout=60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ready.wait(0.2):
                return self.ready_at - self.started_at
            if self.proc.poll() is not None:
                raise Failure(f"splashd exited {self.proc.returncode} before READY=1: {self.tail()}")
        raise Failure(f"splashd sent no READY=1 within {timeout}s: {self.tail()}")

    def tail(self, n=2000):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode(errors="replace")[-n:]
        except OSError:
            return ""

    def log_text(self):
        with open(self.stderr_path, "rb") as f:
            return f.read().decode(errors="replace")

    def rpc(self, timeout=60.0):
        return Rpc(self.socket_path, timeout)

    def call(self, method, params=None, timeout=60.0):
        conn = self.rpc(timeout)
        try:
            return conn.call(method, params)
        finally:
            conn.close()

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        if self.proc:
            self.proc.wait(timeout=30)
        self.close_files()

    def stop(self, timeout=20.0):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.close_files()
        return self.proc.returncode if self.proc else None

    def close_files(self):
        if self.notify:
            try:
                self.notify.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for f in (self.notify, getattr(self, "stderr", None)):
            try:
                f and f.close()
            except OSError:
                pass

    def integrity(self):
        """PRAGMA integrity_check of the store, read-only (a WAL left by a kill is recovered by SQLite)."""
        conn = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=30)
        try:
            return [row[0] for row in conn.execute("PRAGMA integrity_check")]
        finally:
            conn.close()

    def sql(self, query, args=()):
        conn = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=30)
        try:
            return conn.execute(query, args).fetchall()
        finally:
            conn.close()

    def library_files(self):
        files = []
        for base, _, names in os.walk(self.library):
            for name in names:
                files.append(os.path.join(base, name))
        return sorted(files)

    def signup(self, email=None):
        email = email or f"chaos-{uuid.uuid4().hex[:10]}@example.com"
        self.call("auth.signup", {"email": email, "password": PASSWORD, "username": "c" + uuid.uuid4().hex[:12]})
        self.email = email
        return email

    def login(self, email):
        self.call("auth.login", {"email": email, "password": PASSWORD})
        self.email = email

    def liked(self):
        ids, offset = set(), 0
        while True:
            page = self.call("photos.list", {"liked": True, "limit": 1000, "offset": offset})
            ids.update(p["id"] for p in page["photos"])
            offset += len(page["photos"])
            if offset >= page["total"] or not page["photos"]:
                return ids

    def sync_until_drained(self, timeout=120.0):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = self.call("sync.now", {"wait": True, "timeout_seconds": 10}, timeout=30)
                if last.get("drained"):
                    return last
            except RpcError as error:
                last = error
            time.sleep(0.2)
        raise Failure(f"the outbox did not drain within {timeout}s: {last}")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class Cdn:
    """What devstack serves for each photo's library rendition, fetched once and remembered."""

    def __init__(self):
        self.hashes = {}

    def expected(self, url):
        if url not in self.hashes:
            status, _, data = http("GET", url, timeout=120)
            if status != 200:
                raise Failure(f"GET {url}: HTTP {status}")
            self.hashes[url] = (len(data), hashlib.sha256(data).hexdigest())
        return self.hashes[url]


def populate(daemon, count, queries=("mountain lake forest city night sky", "ocean beach desert snow flower",
                                      "cat dog street bridge sunset")):
    """Puts at least `count` Unsplash photos into the daemon's store through photos.search; their ids."""
    ids = []
    for query in queries:
        page = 1
        while len(ids) < count and page <= 20:
            result = daemon.call("photos.search", {"query": query, "per_page": 30, "page": page})
            for photo in result["photos"]:
                if photo["id"] not in ids:
                    ids.append(photo["id"])
            if page >= result.get("total_pages", 1):
                break
            page += 1
        if len(ids) >= count:
            break
    return ids


class Figures:
    """What a part measured: printed as it goes and collected for docs/reliability.md."""

    def __init__(self, name):
        self.name = name
        self.rows = []  # (check, trials, failures, detail)
        self.bugs = []
        self.notes = []

    def add(self, check, trials, failures, detail=""):
        self.rows.append((check, trials, failures, detail))
        mark = "ok  " if failures == 0 else "FAIL"
        print(f"  [{mark}] {check}: {trials} trials, {failures} failures{(' · ' + detail) if detail else ''}", flush=True)

    def bug(self, text):
        self.bugs.append(text)
        print(f"  BUG: {text}", flush=True)

    def note(self, text):
        self.notes.append(text)
        print(f"  note: {text}", flush=True)

    @property
    def failures(self):
        return sum(r[2] for r in self.rows)


def fresh_dir(base, name):
    path = os.path.join(base, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def rnd():
    return random.Random(int(os.environ.get("CHAOS_SEED", "0")) or None)
