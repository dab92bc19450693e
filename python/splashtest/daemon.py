"""splashd as a child process in a directory of its own: state, data, cache, run/control.sock,
stderr.log, and a notify socket it reports READY=1 on (read for as long as it lives, as systemd does)."""
import os
import signal
import socket
import sqlite3
import subprocess
import threading
import time
import uuid

from .devstack import PASSWORD
from .errors import Failure
from .rpc import Rpc, RpcError


def rss_kb(pid):
    """A process's resident set size in KiB (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Daemon:
    """A real splashd (`splashd`: the binary) in `directory`. `env` is added to a minimal environment;
    `config` is written as its config file; `launcher` runs it under another command (`ip netns
    exec NS`); `watchdog_usec` plays systemd's WatchdogSec=; `log_level` sets SPLASHD_LOG_LEVEL."""

    def __init__(self, directory, splashd, env=None, config=None, data_dir=None, extra_args=None, launcher=None,
                 watchdog_usec=None, log_level=None):
        self.directory = directory
        self.splashd = splashd
        os.makedirs(directory, exist_ok=True)
        self.socket_path = os.path.join(directory, "run", "control.sock")
        self.stderr_path = os.path.join(directory, "stderr.log")
        self.data_dir = data_dir or os.path.join(directory, "data")
        self.env = dict(env or {})
        if log_level:
            self.env.setdefault("SPLASHD_LOG_LEVEL", log_level)
        if watchdog_usec:
            self.env["WATCHDOG_USEC"] = str(watchdog_usec)
        self.launcher = list(launcher or [])
        self.args = list(extra_args or [])
        if config is not None:
            path = os.path.join(directory, "config.toml")
            with open(path, "w") as f:
                f.write(config)
            self.args += ["--config", path]
        self.proc = None
        self.notify = None
        self.messages = []
        self.ready_at = None
        self.started_at = None
        self.email = None

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    @property
    def db_path(self):
        return os.path.join(self.directory, "state", "splashd.sqlite")

    @property
    def library(self):
        return os.path.join(self.data_dir, "library")

    @property
    def cache_dir(self):
        return os.path.join(self.directory, "cache")

    @property
    def ready_seconds(self):
        """From spawn to READY=1 in the last start (None before READY=1)."""
        return None if self.ready_at is None else self.ready_at - self.started_at

    @property
    def notify_counts(self):
        """WATCHDOG=1 pings and STATUS= lines received since the last start."""
        lines = [line for _, message in list(self.messages) for line in message.split("\n")]
        return {"WATCHDOG=1": lines.count("WATCHDOG=1"), "STATUS": sum(1 for line in lines if line.startswith("STATUS="))}

    # --- the log

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

    def tail(self, n=2000):
        return self.log_text()[-n:]

    def log_text(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    # --- the process

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
        # SPLASHD_WEB_PORT=0: each daemon's web gallery on a port of its own, as harnesses run several at once.
        env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": self.directory, "LANG": "C.UTF-8", "NOTIFY_SOCKET": notify_path,
               "SPLASHD_WEB_PORT": "0"}
        env.update(self.env)
        flags = ["--state-dir", os.path.join(self.directory, "state"), "--data-dir", self.data_dir,
                 "--cache-dir", self.cache_dir, "--socket", self.socket_path, "--log-target", "stderr"]
        self.stderr = open(self.stderr_path, "ab")
        self.started_at = time.monotonic()
        self.proc = subprocess.Popen(self.launcher + [self.splashd] + flags + self.args, env=env, stdin=subprocess.DEVNULL,
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
        """Seconds from spawn to READY=1; Failure if it exits first or sends none within `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ready.wait(0.2):
                return self.ready_at - self.started_at
            if self.proc.poll() is not None:
                raise Failure(f"splashd exited {self.proc.returncode} before READY=1: {self.tail()}")
        raise Failure(f"splashd sent no READY=1 within {timeout}s: {self.tail()}")

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        if self.proc:
            self.proc.wait(timeout=30)
        self.close_files()

    def stop(self, timeout=20.0):
        """SIGTERM, SIGKILL after `timeout` s; the exit status."""
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

    # --- the control socket

    def rpc(self, timeout=60.0, keep_events=False, connect_within=0.0):
        """A connection; with `connect_within`, retries that long while the socket is not there yet."""
        deadline = time.monotonic() + connect_within
        while True:
            try:
                return Rpc(self.socket_path, timeout, keep_events=keep_events)
            except OSError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.02)

    def call(self, method, params=None, timeout=60.0):
        """One request on a connection of its own."""
        conn = self.rpc(timeout)
        try:
            return conn.call(method, params)
        finally:
            conn.close()

    def wait_state(self, rpc, state, timeout=30):
        """Reads daemon.status on `rpc` until connectivity is `state`; that status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = rpc.call("daemon.status")
            if status["connectivity"]["state"] == state:
                return status
            time.sleep(0.05)
        raise Failure(f"daemon never {state}: {rpc.call('daemon.status')['connectivity']}")

    def wait_drained(self, rpc, timeout=120):
        """Reads daemon.status on `rpc` until nothing is pending or in flight."""
        deadline = time.monotonic() + timeout
        outbox = None
        while time.monotonic() < deadline:
            outbox = rpc.call("daemon.status")["outbox"]
            if outbox["pending"] == 0 and outbox["in_flight"] == 0:
                return
            time.sleep(0.05)
        raise Failure(f"outbox not drained: {outbox}")

    # --- the store, read-only (a WAL left by a kill is recovered by SQLite)

    def integrity(self):
        """PRAGMA integrity_check of the store."""
        return [row[0] for row in self.sql("PRAGMA integrity_check")]

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

    # --- the account and the library, through the socket

    def signup(self, email=None):
        email = email or f"splashtest-{uuid.uuid4().hex[:10]}@example.com"
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
