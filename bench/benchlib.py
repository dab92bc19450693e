"""Shared parts of the benchmark: processes, the daemon, its control socket, devstack, seeding, statistics."""
import json
import os
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
RELEASE = os.path.join(ROOT, ".build-release", "release")
SPLASHD = os.path.join(RELEASE, "splashd")
SPLASHCTL = os.path.join(RELEASE, "splashctl")
DEVSTACK = os.path.join(ROOT, "devstack", "devstack")
WORK = os.environ.get("BENCH_WORK", "/tmp/splashd-bench")


def log(*parts):
    print("[bench]", *parts, file=sys.stderr, flush=True)


def sh(cmd, check=True, **kw):
    """Runs a command (list or shell string) and returns its CompletedProcess with text output."""
    shell = isinstance(cmd, str)
    r = subprocess.run(cmd, shell=shell, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"{cmd!r} exited {r.returncode}: {r.stderr.strip()[-2000:]}")
    return r


def timed(cmd, **kw):
    """Wall time of one command in seconds."""
    t0 = time.perf_counter()
    sh(cmd, **kw)
    return time.perf_counter() - t0


# ---------------------------------------------------------------- statistics

def pct(values, p):
    v = sorted(values)
    if not v:
        return None
    k = (len(v) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def summary(samples, unit):
    s = [float(x) for x in samples]
    return {"unit": unit, "samples": s, "median": statistics.median(s), "min": min(s), "max": max(s), "n": len(s)}


# ---------------------------------------------------------------- devstack

class Devstack:
    def __init__(self, state_dir, photos=2000, host=None, netns=None):
        self.state_dir, self.photos, self.host, self.netns = state_dir, photos, host, netns
        self.env = {}

    def _run(self, command):
        env = dict(os.environ, DEVSTACK_STATE_DIR=self.state_dir, DEVSTACK_PHOTOS=str(self.photos))
        if self.host:
            env["DEVSTACK_HOST"] = self.host
        cmd = [DEVSTACK, command]
        if self.netns:
            cmd = ["ip", "netns", "exec", self.netns] + cmd
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            r = subprocess.run(cmd, env=env, stdout=out, stderr=err, timeout=600)
            out.seek(0), err.seek(0)
            text, etext = out.read(), err.read()
        if r.returncode != 0:
            raise RuntimeError(f"devstack {command} failed: {etext[-3000:]}")
        return text

    def up(self):
        out = self._run("up")
        self.env = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        return self

    def down(self):
        try:
            self._run("down")
        except Exception as e:  # noqa: BLE001 - cleanup reports and carries on
            log("devstack down:", e)

    @property
    def url(self):
        return self.env["DEVSTACK_URL"]

    def daemon_env(self):
        keys = ["SPLASHD_BACKEND_URL", "SPLASHD_ANON_KEY", "SPLASHD_UNSPLASH_API_URL", "SPLASHD_UNSPLASH_ACCESS_KEY",
                "SPLASHD_NASA_API_URL"]
        return {k: self.env[k] for k in keys if k in self.env}

    def http(self, method, path, body=None, headers=None, base=None, timeout=60):
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        req = urllib.request.Request((base or self.url) + path, data=data, method=method)
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        if data is not None and "Content-Type" not in (headers or {}):
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
        return json.loads(raw) if raw else None

    def service_headers(self):
        key = self.env["DEVSTACK_SERVICE_ROLE_KEY"]
        return {"apikey": key, "Authorization": "Bearer " + key}

    def password_token(self, email, password):
        r = self.http("POST", "/auth/v1/token?grant_type=password", {"email": email, "password": password},
                      {"apikey": self.env["SPLASHD_ANON_KEY"]}, base=self.env["SPLASHD_BACKEND_URL"])
        return r["access_token"], r["user"]["id"]

    def server_like_count(self, user_id):
        req = urllib.request.Request(self.env["SPLASHD_BACKEND_URL"] + f"/rest/v1/likes?select=id&user_id=eq.{user_id}&limit=1",
                                     headers=dict(self.service_headers(), Prefer="count=exact"))
        with urllib.request.urlopen(req, timeout=30) as r:
            rng = r.headers.get("Content-Range", "*/0")
        return int(rng.split("/")[-1])

    def unsplash_ids(self, count):
        """The first `count` photo ids of the seeded catalogue (pages of 30)."""
        ids, page = [], 1
        key = self.env["SPLASHD_UNSPLASH_ACCESS_KEY"]
        while len(ids) < count:
            got = self.http("GET", f"/photos?per_page=30&page={page}&order_by=oldest",
                            headers={"Authorization": "Client-ID " + key}, base=self.env["SPLASHD_UNSPLASH_API_URL"])
            if not got:
                break
            ids += [p["id"] for p in got]
            page += 1
        return ids[:count]


# ---------------------------------------------------------------- control socket client

class RPC:
    """One persistent connection to the control socket; requests are sequential (as the protocol says)."""

    def __init__(self, path, timeout=60):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        self.next_id = 1
        self.events = []

    def _line(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("control socket closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def send_raw(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        return rid

    def read_response(self, rid):
        while True:
            m = self._line()
            if m.get("method") == "event":
                self.events.append((time.perf_counter(), m["params"]))
                continue
            if m.get("id") != rid:
                continue
            if "error" in m:
                raise RPCError(m["error"])
            return m["result"]

    def call(self, method, params=None):
        return self.read_response(self.send_raw(method, params))

    def next_event(self, timeout):
        """The next event notification: (perf_counter time it was read, params), or None at the timeout."""
        if self.events:
            return self.events.pop(0)
        self.sock.settimeout(timeout)
        try:
            m = self._line()
        except socket.timeout:
            return None
        finally:
            self.sock.settimeout(60)
        if m.get("method") == "event":
            return time.perf_counter(), m["params"]
        return None

    def close(self):
        self.sock.close()


class RPCError(Exception):
    def __init__(self, err):
        super().__init__(f"{err.get('message')} ({err.get('data', {}).get('kind')})")
        self.err = err


# ---------------------------------------------------------------- the daemon

class Daemon:
    """splashd (release build) in its own directories, with a notify socket so READY=1 can be timed."""

    def __init__(self, directory, env=None, launcher=None, watchdog_usec=None):
        self.dir = directory
        self.socket = os.path.join(directory, "run", "control.sock")
        self.db = os.path.join(directory, "state", "splashd.sqlite")
        self.stderr_path = os.path.join(directory, "stderr.log")
        self.env = env or {}
        self.launcher = launcher or []
        self.watchdog_usec = watchdog_usec
        self.proc = None
        self.pid = None
        os.makedirs(directory, exist_ok=True)

    def flags(self):
        return ["--state-dir", self.dir + "/state", "--data-dir", self.dir + "/data", "--cache-dir", self.dir + "/cache",
                "--socket", self.socket, "--log-target", "stderr"]

    def start(self, wait_ready=True, timeout=60):
        """Starts the daemon; returns seconds from spawn to READY=1 (None when not waited for)."""
        notify_path = os.path.join(self.dir, "notify.sock")
        if os.path.exists(notify_path):
            os.unlink(notify_path)
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": self.dir, "LANG": "C.UTF-8", "NOTIFY_SOCKET": notify_path}
        if self.watchdog_usec:
            env["WATCHDOG_USEC"] = str(self.watchdog_usec)
        env.update(self.env)
        err = open(self.stderr_path, "ab")
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(self.launcher + [SPLASHD] + self.flags(), env=env, stdout=subprocess.DEVNULL, stderr=err,
                                     stdin=subprocess.DEVNULL)
        err.close()
        self.pid = self.proc.pid
        self.notify = notify
        ready = None
        if wait_ready:
            notify.settimeout(timeout)
            deadline = time.time() + timeout
            while ready is None:
                try:
                    msg = notify.recv(4096).decode()
                except socket.timeout:
                    raise RuntimeError("no READY=1 from splashd:\n" + self.stderr_tail())
                if "READY=1" in msg.split("\n"):
                    ready = time.perf_counter() - t0
                if time.time() > deadline:
                    raise RuntimeError("no READY=1")
        # Read every later datagram, as systemd does: a full notify socket blocks the daemon's sendmsg.
        self.notify_counts = {"WATCHDOG=1": 0, "STATUS": 0}
        notify.settimeout(None)

        def reader(sock=notify, counts=self.notify_counts):
            while True:
                try:
                    msg = sock.recv(65536).decode(errors="replace")
                except OSError:
                    return
                for line in msg.split("\n"):
                    if line == "WATCHDOG=1":
                        counts["WATCHDOG=1"] += 1
                    elif line.startswith("STATUS="):
                        counts["STATUS"] += 1
        threading.Thread(target=reader, daemon=True).start()
        return ready

    def stderr_tail(self, n=4000):
        try:
            with open(self.stderr_path, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""

    def rpc(self):
        deadline = time.time() + 30
        while True:
            try:
                return RPC(self.socket)
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.02)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        try:
            self.notify.shutdown(socket.SHUT_RDWR)
        except Exception:  # noqa: BLE001
            pass
        try:
            self.notify.close()
        except Exception:  # noqa: BLE001
            pass

    def wait_state(self, rpc, state, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = rpc.call("daemon.status")
            if st["connectivity"]["state"] == state:
                return st
            time.sleep(0.05)
        raise RuntimeError(f"daemon never {state}: {rpc.call('daemon.status')['connectivity']}")

    def wait_drained(self, rpc, timeout=120):
        deadline = time.time() + timeout
        while time.time() < deadline:
            o = rpc.call("daemon.status")["outbox"]
            if o["pending"] == 0 and o["in_flight"] == 0:
                return
            time.sleep(0.05)
        raise RuntimeError(f"outbox not drained: {o}")


def signup(rpc, tag):
    email = f"bench-{tag}@example.com"
    password = "correct horse battery"
    username = ("b_" + tag.replace("-", "_"))[:32]
    res = rpc.call("auth.signup", {"email": email, "password": password, "username": username})
    return email, password, res["account"]["user_id"]


def fresh_tag():
    return uuid.uuid4().hex[:8]


# ---------------------------------------------------------------- seeding the store

COLORS = ["black_and_white", "black", "white", "yellow", "orange", "red", "purple", "magenta", "green", "teal", "blue"]
HEX = {"black_and_white": "#808080", "black": "#101010", "white": "#F0F0F0", "yellow": "#E0D040", "orange": "#E08030",
       "red": "#C02020", "purple": "#702090", "magenta": "#C020A0", "green": "#309040", "teal": "#208080", "blue": "#2C5A8C"}
WORDS = ("lake mountain forest city night sky river ocean beach desert snow winter summer autumn spring street car "
         "bridge tower flower garden dog cat bird horse portrait smile coffee book window door road train plane boat "
         "sunset sunrise cloud rain storm light shadow stone wall field grass tree leaf fire ice star moon planet").split()


def now_text(offset_s=0.0):
    """Dates as GRDB writes them: 'YYYY-MM-DD HH:MM:SS.SSS' in UTC."""
    t = time.time() - offset_s
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + ".%03d" % int((t % 1) * 1000)


def seed_photos(db_path, count, prefix, account_id=None, liked_every=0, url_for=None, colors=True, outbox=False):
    """Writes `count` photos straight into the daemon's SQLite store in one transaction (the daemon may run:
    WAL). Every `liked_every`-th photo gets a likes row for `account_id`; with `outbox`, each like also gets
    its outbox op, shaped as LikeActions writes it. Returns the photo ids."""
    import random
    rng = random.Random(prefix)
    con = sqlite3.connect(db_path, timeout=60)
    con.execute("PRAGMA busy_timeout = 60000")
    ids = []
    with con:
        for n in range(count):
            rid = f"{prefix}{n}"
            pid = "unsplash:" + rid
            bucket = COLORS[n % len(COLORS)] if colors else "blue"
            words = rng.sample(WORDS, 6)
            url = url_for(n) if url_for else "https://images.example/t.jpg"
            urls = json.dumps({"thumb": url, "small": url, "regular": url, "full": url, "raw": url})
            fetched = now_text(n * 0.5)
            con.execute(
                "INSERT INTO photos (id, source, remote_id, title, description, alt_description, tags, author_name, "
                "author_username, width, height, color, color_bucket, urls, created_at, fetched_at) "
                "VALUES (?, 'unsplash', ?, ?, ?, ?, ?, ?, ?, 4000, 3000, ?, ?, ?, ?, ?)",
                (pid, rid, f"{words[0].title()} {words[1]} {n}", f"A {words[2]} by the {words[3]}", f"{words[4]} photo",
                 " ".join(words), f"Author {n % 997}", f"author{n % 997}", HEX[bucket], bucket, urls, fetched, fetched))
            ids.append(pid)
            if liked_every and account_id is not None and n % liked_every == 0:
                liked = now_text(n * 0.25)
                con.execute("INSERT INTO likes (account_id, photo_id, liked_at, updated_at) VALUES (?, ?, ?, ?)",
                            (account_id, pid, liked, liked))
                if outbox:
                    iso = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
                    payload = json.dumps({"photoId": pid, "likedAt": iso, "wasNew": True, "photo": {
                        "title": f"{words[0].title()} {words[1]} {n}", "authorName": f"Author {n % 997}", "color": HEX[bucket],
                        "width": 4000, "height": 3000, "urls": urls}}, sort_keys=True, separators=(",", ":"))
                    con.execute("INSERT INTO outbox (op_id, account_id, entity, entity_id, op, payload, state, attempts, "
                                "created_at, updated_at) VALUES (?, ?, 'like', ?, 'like', ?, 'pending', 0, ?, ?)",
                                (str(uuid.uuid4()).upper(), account_id, pid, payload, liked, liked))
    con.close()
    return ids


# ---------------------------------------------------------------- /proc

def proc_stat(pid):
    """(utime+stime seconds, RSS bytes, peak RSS bytes, voluntary + involuntary context switches over all threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    rss = hwm = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) * 1024
    switches = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        switches += int(line.split()[1])
        except OSError:
            pass
    return cpu, rss, hwm, switches


def threads(pid):
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                sw = sum(int(l.split()[1]) for l in f if l.startswith(("voluntary_ctxt", "nonvoluntary_ctxt")))
            out[tid] = (name, sw)
        except OSError:
            pass
    return out


def have(cmd):
    return shutil.which(cmd) is not None


def add_library_files(daemon, photo_ids, sample):
    """Gives liked photos their library file (a hard link to one real JPEG) and photo_files row, so the image
    queue has nothing to fetch for them and does not compete with what a scenario measures."""
    size = os.path.getsize(sample)
    lib = os.path.join(daemon.dir, "data", "library", "unsplash")
    os.makedirs(lib, exist_ok=True)
    con = sqlite3.connect(daemon.db, timeout=60)
    now = now_text()
    with con:
        for pid in photo_ids:
            rid = pid.split(":", 1)[1]
            rel = f"library/unsplash/{rid}.regular.jpg"
            if not os.path.exists(os.path.join(daemon.dir, "data", rel)):
                os.link(sample, os.path.join(daemon.dir, "data", rel))
            con.execute("INSERT OR REPLACE INTO photo_files (photo_id, variant, path, in_library, bytes, checksum, created_at, "
                        "last_access_at) VALUES (?, 'regular', ?, 1, ?, NULL, ?, ?)", (pid, rel, size, now, now))
    con.close()


def sample_jpeg(ctx):
    path = os.path.join(ctx.work, "sample.jpg")
    if not os.path.exists(path):
        catalogue = ctx.devstack.unsplash_ids(1)[0]
        urllib.request.urlretrieve(ctx.devstack.url + f"/cdn/unsplash/photo-{catalogue}?w=200", path)
    return path
