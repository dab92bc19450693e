"""Part 8: randomized two-device convergence (issue 23, item 4).

One account, two devices A and B (two splashd processes with their own directories), each reaching
the backend (Auth, PostgREST, Storage) through its own TCP proxy on 127.0.0.1 that the harness can
cut (every live connection is reset, both ways, and new ones are refused until it is restored).
Unsplash, NASA and the CDN are reached directly. Each history is a seeded sequence of 40-50 random
steps over a pool of 5 photos and both devices: like and unlike, set the username, edits.create (a
filter) and edits.delete (of an edit the harness believes live), cut and restore the device's
network, kill -9 and restart, a crash in the middle of a request (the proxy is cut while a
`sync.now` is in flight and the server's answers are held back 0.3 s, so the server may have applied
a batch whose answer never arrives; or kill -9 a few milliseconds after sending a like or unlike
while a sync is running), and `sync.now` with wait and a 1-3 s timeout (also pressed 2-5 times in a
row, and over a slow network: the proxy holds the server's answers back 2 or 4 s and the timeout is
1 s). Every step's answer is recorded. The seed fixes the choices (device, kind, photo, delays); whether a
like answers `changed` can depend on the daemons' timing (a pull), and later choices follow from it.

At the end of a history both networks are restored and the devices synced A, B, A, B, ... (`sync.now`
with wait) until two rounds in a row find both drained with nothing pending, and every live edit has
its rendering on both devices, within 60 s. Then, against the server (read with the service role):

- the liked set is the same on A, B and the server, and no (user, photo) has two rows;
- every photo ends as the rule below says;
- the username is the same on A, B and the server and is one the rule allows;
- the live edits are the same on A, B and the server, exactly those created and not removed (an edit
  whose create or delete was cut off by a kill may go either way), each device's file byte-equal to
  the Storage object, and no Storage object left for a removed edit;
- neither outbox holds a pending, in-flight or rejected op of the account;
- once settled, neither device says its account is "signed in (offline)" while its connectivity says
  "online";
- `PRAGMA integrity_check` is ok on both stores (also after every kill);
- every `sync.now` with wait answered within its `timeout_seconds` (+2 s);
- every step answered as a person would expect (READY=1 after each restart; a refusal only where it
  is meant: `offline` for an edit whose original is not here while offline, `not_found` for removing
  an edit the other device made and this one has not pulled yet).

The rule for "the last acknowledged action": the person's last word wins. Each like and unlike is
stamped with the moment it was made on the server's clock (each daemon estimates it from the Date of
the server's answers) and the device; the server (supabase/migrations' last-word trigger), and each
device when it pulls or reads the server's answer, keep the later stamp. So, per photo P, with the
steps numbered in the order the harness performed them:

- An action is an acknowledged like or unlike that changed something (`changed: true`), or, for a
  like/unlike cut off by a kill -9, one the store shows committed right after the kill (its own stamp,
  later than what the row held at the mark). An answer of `changed: false` is not an action.
- Let L be the last action on P (device X, state s). If there is none, P must end not liked.
- Let b be device Y's (the other one's) last action on P before L, with state s'. P must end in state
  s — whatever order their pushes arrived in, whether b was still queued or not — unless b and L were
  closer in real time than the two devices' clocks can tell apart: the harness reads each daemon's
  uncertainty about the server's clock (daemon.status clock.uncertainty_seconds) around every action,
  and when L's request began less than u(b) + u(L) after b's answer came, either s or s' is accepted
  (counted as "within clock precision"; the devices then still agree with each other and the server).

The devices' clocks are skewed through the test hook SPLASHD_TEST_CLOCK_SKEW_SECONDS: one ten minutes
ahead, the other ten minutes behind (lanes alternate which), so a device that stamped by its own wall
clock would make the wrong one win.

The same rule, with "set username" for like/unlike and one entity per account, gives the usernames
accepted (no rename: the sign-up name). Edits are create-once, delete-once: a removal acknowledged by
either device is final whatever the order.

Histories reuse the two daemons: each history signs both out and signs up (A) and in (B) to a fresh
account, so server and local state start empty. After a history that failed, both daemons are
restarted (in-memory backoff and connectivity start afresh; the old account's leftover ops stay
parked under that account). Seeds: each history has its own seed (drawn from the run's `--seed`);
every failure prints a BUG line with it and the step list. `CHAOS_CONVERGE_SEEDS=s1,s2` replays just
those histories; `--histories N` (or `CHAOS_CONVERGE_HISTORIES`) sets the count (short 12, none
started after 150 s; full 1000). `CHAOS_CONVERGE_JOBS` runs that many lanes side by side (short 1,
full 3): each lane is its own pair of devices against the one devstack, taking the next seed when its
history ends.
"""
import datetime
import errno
import hashlib
import os
import random
import select
import socket
import struct
import threading
import time
import urllib.parse
import uuid

from lib import PASSWORD, Daemon, Failure, Rpc, RpcError, fresh_dir, http, http_json, log, populate, sha256

POOL = 5
SETTLE_SECONDS = 60.0
SYNC_GRACE = 10.0  # how long past its timeout_seconds the harness waits for a sync.now answer
FILTERS = [[{"filter": "sepia", "params": [0.8]}], [{"filter": "mono", "params": []}],
           [{"filter": "sepia", "params": [0.4]}, {"filter": "vignette", "params": [1, 0.6]}]]
WEIGHTS = [("like", 34), ("sync", 9), ("net", 10), ("rename", 6), ("edit", 7), ("unedit", 5),
           ("kill", 5), ("cutsync", 5), ("killlike", 4), ("slowsync", 3), ("syncburst", 3)]


def store_time(text):
    """A date as the store keeps it (GRDB: 'YYYY-MM-DD HH:MM:SS.SSS', UTC) in seconds since the epoch."""
    return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()


# ---------------------------------------------------------------------------------------------------
# A cuttable TCP proxy: one accept thread, one thread per connection (select over both sockets).


class _Pair:
    def __init__(self, client, upstream):
        self.client, self.upstream = client, upstream
        self.lock = threading.Lock()
        self.closed = False

    def close(self, reset=False):
        with self.lock:
            if self.closed:
                return
            self.closed = True
        if reset:
            try:  # SO_LINGER 0: close() sends a RST, the daemon sees the connection die mid-request
                self.client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.upstream.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
        for s in (self.client, self.upstream):
            try:
                s.close()
            except OSError:
                pass


class CutProxy:
    """127.0.0.1:port → target. `cut()` resets every live connection both ways and closes the
    listening socket (new connections are refused); `restore()` listens again on the same port.
    `latency` (seconds) holds back every chunk the server sends, to widen mid-request windows."""

    def __init__(self, target_host, target_port):
        self.target = (target_host, target_port)
        self.lock = threading.Lock()
        self.pairs = set()
        self.listener = None
        self.port = 0
        self.latency = 0.0
        self.accepted = 0
        self.cuts = 0
        self.reset_connections = 0
        self.restore()

    @property
    def up(self):
        return self.listener is not None

    def url(self, scheme="http"):
        return f"{scheme}://127.0.0.1:{self.port}"

    def restore(self):
        with self.lock:
            if self.listener is not None:
                return
            sock = self._bind()
            self.listener = sock
        threading.Thread(target=self._accept, args=(sock,), daemon=True).start()

    def _bind(self):
        # The port is outside the ephemeral range: while the proxy is cut, a client's connect() to
        # 127.0.0.1:port could otherwise get that very port as its source and connect to itself (TCP
        # self-connect), hanging the daemon on its own request and taking the port from the proxy.
        low, _ = (int(x) for x in open("/proc/sys/net/ipv4/ip_local_port_range").read().split())
        for attempt in range(200):
            port = self.port or random.randrange(max(1024, low // 2), low)
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                sock.close()
                if self.port:
                    time.sleep(0.05)  # our own port: wait for whatever holds it
                    if attempt < 100:
                        continue
                    raise
                continue
            sock.listen(128)
            self.port = port
            return sock
        raise OSError("no free port for the proxy")

    def cut(self):
        with self.lock:
            listener, self.listener = self.listener, None
            pairs, self.pairs = self.pairs, set()
        if listener is not None:
            self.cuts += 1
            try:
                listener.close()
            except OSError:
                pass
        for pair in pairs:
            pair.close(reset=True)
        self.reset_connections += len(pairs)
        return len(pairs)

    def close(self):
        self.cut()

    def _accept(self, sock):
        while self.listener is sock:
            try:
                ready, _, _ = select.select([sock], [], [], 0.1)
            except (OSError, ValueError):
                return
            if not ready or self.listener is not sock:
                continue
            try:
                client, _ = sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        try:
            upstream = socket.create_connection(self.target, timeout=10)
            upstream.settimeout(30)
            client.settimeout(30)
        except OSError:
            client.close()
            return
        pair = _Pair(client, upstream)
        with self.lock:
            if self.listener is None:  # cut while this one was being accepted: it dies with the rest
                alive = False
            else:
                alive = True
                self.pairs.add(pair)
                self.accepted += 1
        if not alive:
            pair.close(reset=True)
            return
        try:
            while not pair.closed:
                ready, _, _ = select.select([client, upstream], [], [], 0.2)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        raise EOFError
                    if s is upstream:
                        if self.latency:
                            time.sleep(self.latency)
                        client.sendall(data)
                    else:
                        upstream.sendall(data)
        except (OSError, ValueError, EOFError):
            pass
        finally:
            with self.lock:
                self.pairs.discard(pair)
            pair.close()


# ---------------------------------------------------------------------------------------------------
# Devices


SKEW_SECONDS = 600


class Device:
    def __init__(self, name, base, devstack, serial=0, skew=0):
        self.name = name
        self.skew = skew
        target = urllib.parse.urlsplit(devstack.backend)
        self.proxy = CutProxy(target.hostname, target.port)
        env = devstack.daemon_env()
        env["SPLASHD_BACKEND_URL"] = self.proxy.url() + target.path.rstrip("/")
        # This device's wall clock is this far off; it must order its actions by the server's all the same.
        env["SPLASHD_TEST_CLOCK_SKEW_SECONDS"] = str(skew)
        self.daemon = Daemon(fresh_dir(base, f"converge-{name.lower()}{serial or ''}"), env=env)
        self.restored_at = time.monotonic()

    def call(self, method, params=None, timeout=60.0):
        return self.daemon.call(method, params, timeout=timeout)

    def start(self, timeout=60):
        try:
            self.log_mark = os.path.getsize(self.daemon.stderr_path)
        except OSError:
            self.log_mark = 0
        self.generation = getattr(self, "generation", 0) + 1
        deadline = time.monotonic() + 900
        while True:
            try:
                self.daemon.start(timeout=timeout)
                return
            except OSError as error:
                # The binary is being rebuilt (a developer's `swift build` on CHAOS_BIN): wait for it.
                if error.errno not in (errno.ETXTBSY, errno.ENOENT) or time.monotonic() > deadline:
                    raise
                self.daemon.close_files()
                log(f"{self.name}: cannot start splashd ({error.strerror}); waiting for the binary")
                time.sleep(5)

    def restart(self):
        self.daemon.stop()
        self.start()

    def crash_report(self):
        """What the log says about this run's end: Swift's fatal error and the crashed thread's first
        frames in splashd's own sources."""
        try:
            with open(self.daemon.stderr_path, "rb") as f:
                f.seek(getattr(self, "log_mark", 0))
                text = f.read().decode(errors="replace")
        except OSError:
            return "no log"
        lines = text.splitlines()
        fatal = [line.strip() for line in lines if "Fatal error" in line or "Program crashed" in line][:2]
        frames, in_crashed = [], False
        for line in lines:
            if line.startswith("Thread ") and "crashed" in line:
                in_crashed = True
            elif in_crashed and " in splashd at " in line and "/Sources/" in line:
                func = line.split(" in splashd at ")[0].split("0x")[-1].split(" ", 1)[-1].strip()
                where = line.split("/Sources/")[-1].strip()
                frames.append(f"{func[:70]} ({where})")
                if len(frames) == 4:
                    break
        if not fatal and not frames:
            return "log ends: " + " / ".join(l.strip()[:160] for l in lines[-3:])
        return "; ".join(fatal) + (" at " + " <- ".join(frames) if frames else "")

    def profile_name(self, uid):
        rows = self.sql("SELECT username FROM accounts WHERE id = ?", (uid,))
        return rows[0][0] if rows else None

    def sql(self, query, args=()):
        return self.daemon.sql(query, args)

    def outbox(self, uid):
        """{entity: {entity_id: state}} of the account's ops."""
        rows = self.sql("SELECT entity, entity_id, state FROM outbox WHERE account_id = ? ORDER BY seq", (uid,))
        result = {}
        for entity, entity_id, state in rows:
            result.setdefault(entity, {})[entity_id] = state
        return result

    def queued_likes(self, uid):
        return {eid for eid, state in self.outbox(uid).get("like", {}).items() if state in ("pending", "in_flight")}

    def device_id(self):
        return self.sql("SELECT id FROM device")[0][0]

    def like_mark(self, uid, pid):
        """(liked here?, the row's stamp, the time), read before a like/unlike whose answer may not come."""
        rows = self.sql("SELECT acted_ms FROM likes WHERE account_id = ? AND photo_id = ?", (uid, pid))
        return self.local_like(uid, pid), (rows[0][0] if rows and rows[0][0] is not None else -1), time.time()

    def committed(self, uid, pid, liked, mark):
        """Whether a like (liked=True) or unlike sent after `mark` was committed, from the store: the row
        holds this device's stamp, later than the one it held at the mark (an action stamps later than
        the row it changes; a pull writes another device's stamp), and the state asked for."""
        _, stamp, _ = mark
        rows = self.sql("SELECT deleted_at, acted_ms, acted_by FROM likes WHERE account_id = ? AND photo_id = ?", (uid, pid))
        if not rows:
            return False
        deleted_at, acted_ms, acted_by = rows[0]
        return acted_by == self.device_id() and acted_ms is not None and acted_ms > stamp and (deleted_at is None) == liked

    def clock_uncertainty(self):
        """How far this daemon's idea of the server's time may be off (seconds); 1 s when it says nothing."""
        try:
            clock = self.call("daemon.status", timeout=10).get("clock") or {}
        except (RpcError, Failure, OSError, ValueError, socket.timeout):
            return 1.0
        return float(clock.get("uncertainty_seconds", 1.0))

    def local_like(self, uid, pid):
        rows = self.sql("SELECT deleted_at FROM likes WHERE account_id = ? AND photo_id = ?", (uid, pid))
        return bool(rows) and rows[0][0] is None

    def edits(self):
        return {e["edit_id"]: e for e in self.call("edits.list")["edits"]}

    def liked(self):
        return self.daemon.liked()

    def username(self):
        return self.call("profile.get")["profile"]["username"]


def signed_out(device):
    try:
        device.call("auth.logout", timeout=30)
    except RpcError as error:
        if error.kind != "not_signed_in":
            raise


# ---------------------------------------------------------------------------------------------------
# The expected final state (the rule in the docstring)


def accepted_states(actions, default):
    """actions: [(step, device, state, key, timing)] in harness order, timing = (request sent, answer
    read, clock uncertainty). The final states the rule accepts, and, when the last two actions (on
    different devices, with different states) were closer than the devices' clocks can tell apart,
    (the gap between them, the two uncertainties); else None."""
    if not actions:
        return {default}, None
    step, device, state, key, (sent, _, u_last) = actions[-1]
    earlier = [a for a in actions if a[1] != device]
    if not earlier:
        return {state}, None
    _, _, b_state, _, (_, b_answered, u_b) = earlier[-1]
    gap = sent - b_answered
    if b_state == state or gap > u_b + u_last:
        return {state}, None
    return {state, b_state}, (gap, u_b, u_last)


def spans(numbers):
    """[1, 2, 3, 7, 9, 10] -> '1-3,7,9-10'."""
    out, start, prev = [], None, None
    for n in numbers + [None]:
        if start is not None and (n is None or n != prev + 1):
            out.append(f"{start}-{prev}" if prev != start else f"{start}")
            start = None
        if n is not None and start is None:
            start = n
        prev = n
    return ",".join(out) or "none"


# ---------------------------------------------------------------------------------------------------
# One history


class History:
    def __init__(self, seed, devices, devstack, pool, token):
        self.seed = seed
        self.rng = random.Random(seed)
        self.devices = devices
        self.devstack = devstack
        self.pool = pool
        self.label = {pid: f"p{i}" for i, pid in enumerate(pool)}
        self.token = token
        self.steps = []          # printable, one per step
        self.problems = {}       # check -> [text]
        self.like_actions = {pid: [] for pid in pool}  # pid -> [(step, device, liked, pid)]
        self.renames = []        # [(step, device, name, "profile")]
        self.edits = {}          # edit_id -> {"device", "photo", "step", "deleted": step or None}
        self.observed = []       # per step: {device: set of queued like photo ids (+ "profile")}
        self.intent = {d.name: {} for d in devices}
        self.counts = {"steps": 0, "kills": 0, "cuts": 0, "crashes": 0, "actions": 0, "noops": 0, "refused": 0,
                       "syncs": 0, "concurrent": 0, "flipped": 0}
        self.settle_seconds = None
        self.sync_max = 0.0
        self.k = -1  # the step under way (printed 1-based)
        self.kind_time = {}
        self.background = []  # syncs left running (cutsync)
        self.end_seconds = 0.0
        self.sent = None  # the action request under way: resolved from the store if splashd dies
        self.maybe_edit_photos = set()  # an edits.create cut off by a crash: an edit of it may exist
        self.maybe_edits = set()  # an edits.delete cut off by a crash: it may be gone
        self.uncertainty = {}  # device -> its last reported uncertainty about the server's clock
        self.close_calls = []  # (gap, u, u') of last actions closer than the clocks can tell apart

    def problem(self, check, text):
        self.problems.setdefault(check, []).append(text)

    def say(self, text):
        self.steps.append(f"{self.k + 1}:{text}")

    # --- set-up -------------------------------------------------------------------------------------

    def begin(self):
        a, b = self.devices
        for d in self.devices:
            d.proxy.latency = 0.0
            d.proxy.restore()
        for d in self.devices:
            signed_out(d)
        self.email = f"cv-{self.seed:x}-{self.token}-{uuid.uuid4().hex[:4]}@example.com"
        self.initial_name = f"c{self.seed:x}{uuid.uuid4().hex[:4]}"
        a.call("auth.signup", {"email": self.email, "password": PASSWORD, "username": self.initial_name})
        b.call("auth.login", {"email": self.email, "password": PASSWORD})
        self.uid = self.devstack.user_id(self.email)
        self.initial_name = self.devstack.service_get(f"profiles?select=username&id=eq.{self.uid}")[0]["username"]

    def observe(self):
        snapshot = {}
        for d in self.devices:
            try:
                box = d.outbox(self.uid)
                keys = {k for k, s in box.get("like", {}).items() if s in ("pending", "in_flight")}
                if any(s in ("pending", "in_flight") for s in box.get("profile", {}).values()):
                    keys.add("profile")
            except Exception:  # noqa: BLE001 - unreadable: treat everything as maybe queued
                keys = set(self.pool) | {"profile"}
            snapshot[d.name] = keys
        self.observed.append(snapshot)

    # --- steps ----------------------------------------------------------------------------------------

    def choose_kind(self):
        total = sum(w for _, w in WEIGHTS)
        x = self.rng.uniform(0, total)
        for kind, weight in WEIGHTS:
            x -= weight
            if x <= 0:
                return kind
        return WEIGHTS[0][0]

    def belief(self, pid):
        acts = self.like_actions[pid]
        return acts[-1][2] if acts else False

    def choose_like(self, d):
        """A photo and like/unlike: mostly the toggle of what was last done to it (anywhere, or here)."""
        pid = self.rng.choice(self.pool)
        x = self.rng.random()
        if x < 0.5:
            liked = not self.belief(pid)
        elif x < 0.85:
            liked = not self.intent[d.name].get(pid, False)
        else:
            liked = self.rng.random() < 0.5
        return pid, liked

    def record_like(self, k, d, pid, liked, result, how="ack", timing=None):
        name = ("like " if liked else "unlike ") + self.label[pid]
        if result is None:
            self.say(f"{d.name} {name} (no answer)")
            return
        if result.get("changed"):
            self.like_actions[pid].append((k, d.name, liked, pid, timing or (time.time(), time.time(), 1.0)))
            self.intent[d.name][pid] = liked
            self.counts["actions"] += 1
            self.say(f"{d.name} {name}{'' if result.get('queued') else ' (not queued)'}{'' if how == 'ack' else ' [' + how + ']'}")
        else:
            self.counts["noops"] += 1
            self.say(f"{d.name} {name} =unchanged")

    def like(self, k, d):
        pid, liked = self.choose_like(d)
        u = d.clock_uncertainty()
        self.uncertainty[d.name] = u
        self.sent = ("like", d, pid, liked, d.like_mark(self.uid, pid))
        t0 = time.time()
        result = d.call("photos.like" if liked else "photos.unlike", {"id": pid})
        t1 = time.time()
        self.sent = None
        self.record_like(k, d, pid, liked, result, timing=(t0, t1, max(u, d.clock_uncertainty())))

    def sync(self, k, d, timeout_seconds=None, note=""):
        t = timeout_seconds or self.rng.choice([1, 2, 3])
        t0 = time.monotonic()
        try:
            r = d.call("sync.now", {"wait": True, "timeout_seconds": t}, timeout=t + SYNC_GRACE)
            answer = f"drained={r.get('drained')} pending={r.get('pending')} in_flight={r.get('in_flight')} rejected={r.get('rejected')}"
        except RpcError as error:
            answer = f"error {error.kind}"
        except (socket.timeout, TimeoutError):
            answer = f"NO ANSWER within {t + SYNC_GRACE:.0f}s"
        took = time.monotonic() - t0
        self.counts["syncs"] += 1
        self.sync_max = max(self.sync_max, took - t)
        if took > t + 2.0:
            self.problem("sync", f"step {self.k + 1}: {d.name} sync.now wait timeout_seconds={t} {note + ' ' if note else ''}answered after {took:.1f}s")
        self.say(f"{d.name} sync({t}s){' ' + note if note else ''} {answer} {took:.1f}s")
        return answer

    def slowsync(self, k, d):
        """A like or unlike queued, then a sync (timeout 1 s) over a slow network: the proxy holds
        every chunk the server sends back 2 or 4 s. The answer must still come within the timeout."""
        self.like(k, d)
        latency = self.rng.choice([2.0, 4.0])
        up = d.proxy.up
        d.proxy.latency = latency
        try:
            self.sync(k, d, timeout_seconds=1, note=f"over a {latency:.0f}s-latency network{'' if up else ' (cut)'}")
        finally:
            d.proxy.latency = 0.0

    def syncburst(self, k, d):
        """A person pressing sync again and again (2-5 times, timeout 1 s), often while offline."""
        for _ in range(self.rng.randint(2, 5)):
            self.sync(k, d, timeout_seconds=1)

    def net(self, k, d):
        if d.proxy.up:
            n = d.proxy.cut()
            self.counts["cuts"] += 1
            self.say(f"{d.name} cut ({n} conn)")
        else:
            d.proxy.restore()
            d.restored_at = time.monotonic()
            self.say(f"{d.name} restore")

    def rename(self, k, d):
        name = f"{self.initial_name[:20]}_{k}"
        u = d.clock_uncertainty()
        self.sent = ("rename", d, name, time.time(), u)
        t0 = time.time()
        d.call("profile.set_username", {"username": name})
        t1 = time.time()
        self.sent = None
        self.renames.append((k, d.name, name, "profile", (t0, t1, max(u, d.clock_uncertainty()))))
        self.counts["actions"] += 1
        self.say(f"{d.name} rename {name}")

    def edit(self, k, d):
        pid = self.rng.choice(self.pool)
        filters = self.rng.choice(FILTERS)
        self.sent = ("edit", d, pid)
        try:
            result = d.call("edits.create", {"id": pid, "filters": filters}, timeout=120)
            self.sent = None
        except RpcError as error:
            self.sent = None
            self.counts["refused"] += 1
            self.say(f"{d.name} edit {self.label[pid]} refused {error.kind}")
            if error.kind != "offline":
                self.problem("steps", f"step {self.k + 1}: {d.name} edits.create of {self.label[pid]} refused: {error}")
            return
        eid = result["edit_id"]
        self.edits[eid] = {"device": d.name, "photo": pid, "step": k, "deleted": None}
        self.counts["actions"] += 1
        self.say(f"{d.name} edit {self.label[pid]} {filters[0]['filter']} -> {eid[:8]}")

    def unedit(self, k, d):
        live = [eid for eid, e in self.edits.items() if e["deleted"] is None]
        if not live:
            return self.like(k, d)
        eid = self.rng.choice(live)
        creator = self.edits[eid]["device"]
        self.sent = ("unedit", d, eid)
        try:
            result = d.call("edits.delete", {"edit_id": eid})
            self.sent = None
        except RpcError as error:
            self.sent = None
            self.counts["refused"] += 1
            self.say(f"{d.name} unedit {eid[:8]} refused {error.kind}")
            if not (error.kind == "not_found" and creator != d.name):
                self.problem("steps", f"step {self.k + 1}: {d.name} edits.delete of its own {eid} refused: {error}")
            return
        self.edits[eid]["deleted"] = k
        self.counts["actions"] += 1
        self.say(f"{d.name} unedit {eid[:8]}{'' if result.get('changed') else ' =unchanged'}")

    def kill(self, k, d, why="kill -9", between=None):
        d.generation += 1
        d.daemon.kill9()
        self.counts["kills"] += 1
        integrity = d.daemon.integrity()
        if integrity != ["ok"]:
            self.problem("integrity", f"step {self.k + 1}: {d.name} after kill -9: {integrity[:3]}")
        if between:
            between()
        try:
            d.start(timeout=60)
        except Failure as error:
            self.problem("crash", f"step {self.k + 1}: {d.name} no READY=1 after kill -9 (status {d.daemon.proc.returncode}): "
                                  f"{d.crash_report() if not d.daemon.running() else str(error)[:200]}"[:900])
            d.daemon.kill9()
            d.start(timeout=120)
        return f"{d.name} {why}, restart {d.daemon.ready_at - d.daemon.started_at:.1f}s"

    def died(self, d, when):
        """splashd exited by itself: the crash, with its evidence; the request it was answering (if
        any) is resolved from the store, as a kill's is; then it is started again."""
        code = d.daemon.proc.returncode
        self.counts["crashes_by_itself"] = self.counts.get("crashes_by_itself", 0) + 1
        self.problem("crash", f"step {self.k + 1}: {d.name} splashd died by itself {when} (status {code}): {d.crash_report()}"[:900])
        d.daemon.kill9()  # reaps it and closes its files
        sent, self.sent = self.sent, None
        if sent and sent[1] is d:
            what = sent[0]
            if what == "like":
                _, _, pid, liked, mark = sent
                if d.committed(self.uid, pid, liked, mark):
                    self.record_like(self.k, d, pid, liked, {"changed": True, "queued": True}, how="committed, no answer",
                                     timing=(mark[2], time.time(), self.uncertainty.get(d.name, 1.0)))
            elif what == "rename":
                _, _, name, t0, u = sent
                if d.profile_name(self.uid) == name:
                    self.renames.append((self.k, d.name, name, "profile", (t0, time.time(), u)))
                    self.say(f"{d.name} rename {name} [committed, no answer]")
            elif what == "edit":
                self.maybe_edit_photos.add(sent[2])
                self.say(f"{d.name} edit {self.label[sent[2]]} [no answer: may exist]")
            elif what == "unedit":
                self.maybe_edits.add(sent[2])
                self.say(f"{d.name} unedit {sent[2][:8]} [no answer: may be removed]")
        d.start(timeout=120)
        self.say(f"{d.name} died (status {code}), restarted")

    def background_sync(self, d, timeout_seconds, answers):
        record = {"device": d, "generation": d.generation, "timeout": timeout_seconds, "t0": time.monotonic(),
                  "took": None, "answers": answers, "step": self.k}

        def run():
            try:
                r = d.call("sync.now", {"wait": True, "timeout_seconds": timeout_seconds}, timeout=timeout_seconds + SYNC_GRACE)
                answers.append(f"drained={r.get('drained')} pending={r.get('pending')}")
            except RpcError as error:
                answers.append(f"error {error.kind}")
            except (socket.timeout, TimeoutError):
                answers.append(f"NO ANSWER within {timeout_seconds + SYNC_GRACE:.0f}s")
            except (Failure, OSError, ValueError) as error:
                answers.append(f"no answer ({type(error).__name__})")
            record["took"] = time.monotonic() - record["t0"]
        thread = threading.Thread(target=run, daemon=True)
        record["thread"] = thread
        thread.start()
        return record

    def join_background(self):
        """Waits for the syncs left running in the background; each answered within its timeout
        (+2 s) unless its daemon was killed meanwhile."""
        for record in self.background:
            record["thread"].join(max(0.0, record["t0"] + record["timeout"] + SYNC_GRACE + 2 - time.monotonic()))
            d, t = record["device"], record["timeout"]
            took = record["took"] if record["took"] is not None else time.monotonic() - record["t0"]
            answer = record["answers"][0] if record["answers"] else "no answer yet"
            killed = d.generation != record["generation"]
            self.steps[record["line"]] += f" -> {answer} after {took:.1f}s{' (killed meanwhile)' if killed else ''}"
            if not killed and took > t + 2.0:
                self.problem("sync", f"step {record['step'] + 1}: {d.name} sync.now wait timeout_seconds={t} "
                                     f"(cut mid-request) answered after {took:.1f}s ({answer})")
        self.background = []

    def cutsync(self, k, d):
        """A like or unlike queued, then a sync whose requests the proxy cuts in the middle."""
        if not d.proxy.up:
            d.proxy.restore()
            d.restored_at = time.monotonic()
            self.say(f"{d.name} restore")
        self.like(k, d)
        delay = self.rng.uniform(0.05, 0.6)
        d.proxy.latency = 0.3
        record = self.background_sync(d, 3, [])
        time.sleep(delay)
        n = d.proxy.cut()
        d.proxy.latency = 0.0
        # The sync is left to answer in the background while the history goes on (join_background).
        self.counts["cuts"] += 1
        self.counts["crashes"] += 1
        self.say(f"{d.name} sync(3s)+cut@{delay:.2f}s ({n} conn)")
        record["line"] = len(self.steps) - 1
        self.background.append(record)

    def killlike(self, k, d):
        """A like or unlike queued, a sync started, another like or unlike sent and kill -9 at once."""
        self.like(k, d)
        pid, liked = self.choose_like(d)
        u = d.clock_uncertainty()
        mark = d.like_mark(self.uid, pid)
        answers = []
        thread = self.background_sync(d, 3, answers)["thread"]
        time.sleep(self.rng.uniform(0, 0.1))
        conn = Rpc(d.daemon.socket_path, timeout=10)
        try:
            conn.next_id += 1
            conn.send_line(('{"jsonrpc":"2.0","id":%d,"method":"%s","params":{"id":"%s"}}'
                            % (conn.next_id, "photos.like" if liked else "photos.unlike", pid)).encode())
            time.sleep(self.rng.uniform(0, 0.03))
            seen = []  # the store right after the kill, before the restart (and any pull): it decides
            text = self.kill(k, d, "kill -9 mid-request", between=lambda: seen.append((d.committed(self.uid, pid, liked, mark), time.time())))
        finally:
            conn.close()
        thread.join(3 + SYNC_GRACE + 5)
        self.counts["crashes"] += 1
        self.say(f"{text} (sync -> {answers[0] if answers else 'no answer'})")
        if seen and seen[0][0]:
            flipped = mark[0] == liked  # a pull changed the state after the mark; the request changed it back
            self.counts["flipped"] += flipped
            self.record_like(k, d, pid, liked, {"changed": True, "queued": True},
                             how="committed, cut off" + (", after a pull had changed it" if flipped else ""),
                             timing=(mark[2], seen[0][1], u))
        else:
            self.say(f"{d.name} {'like' if liked else 'unlike'} {self.label[pid]} cut off, not committed (or no change)")

    def run_steps(self):
        n = self.rng.randint(40, 50)
        for k in range(n):
            self.k = k
            d = self.rng.choice(self.devices)
            kind = self.choose_kind()
            t0 = time.monotonic()
            try:
                # Each kind of step is the method of that name; kill returns the line to say.
                if kind == "kill":
                    self.say(self.kill(k, d))
                else:
                    getattr(self, kind)(k, d)
            except (RpcError, Failure, OSError, ValueError) as error:
                self.say(f"{d.name} {kind} failed: {error}"[:200])
                time.sleep(0.2)
                if d.daemon.running():
                    self.problem("steps", f"step {self.k + 1}: {d.name} {kind}: {error}"[:400])
                else:
                    self.died(d, f"during {kind}")
            self.sent = None
            self.kind_time[kind] = self.kind_time.get(kind, 0.0) + time.monotonic() - t0
            self.counts["steps"] += 1
            while len(self.observed) <= k:
                self.observe()

    # --- the end ----------------------------------------------------------------------------------------

    def settle(self):
        for d in self.devices:
            d.proxy.latency = 0.0
            if not d.proxy.up:
                d.proxy.restore()
                d.restored_at = time.monotonic()
        self.k = len(self.observed)
        self.join_background()
        self.say("both restore, settle")
        t0 = time.monotonic()
        deadline = t0 + SETTLE_SECONDS
        clean_rounds, last = 0, {}
        while time.monotonic() < deadline:
            round_clean = True
            for d in self.devices:
                left = max(1, int(deadline - time.monotonic()))
                t = min(10, left)
                s0 = time.monotonic()
                try:
                    r = d.call("sync.now", {"wait": True, "timeout_seconds": t}, timeout=t + SYNC_GRACE)
                except RpcError as error:
                    r = {"error": str(error)}
                except (socket.timeout, TimeoutError):
                    r = {"error": f"no answer within {t + SYNC_GRACE:.0f}s"}
                except (Failure, OSError, ValueError) as error:
                    r = {"error": str(error)}
                    time.sleep(0.2)
                    if not d.daemon.running():
                        self.died(d, "while settling")
                took = time.monotonic() - s0
                if took > t + 2.0:
                    self.problem("sync", f"settle: {d.name} sync.now wait timeout_seconds={t} answered after {took:.1f}s")
                last[d.name] = r
                if not (r.get("drained") and r.get("pending") == 0 and r.get("in_flight") == 0):
                    round_clean = False
            clean_rounds = clean_rounds + 1 if round_clean else 0
            if clean_rounds >= 2 and self.edits_downloaded():
                self.settle_seconds = time.monotonic() - t0
                self.check_agreement()
                return True
            time.sleep(0.1 if round_clean else 0.5)
        evidence = []
        for d in self.devices:
            try:
                status = d.call("daemon.status")
                rows = d.sql("SELECT entity, entity_id, op, state, attempts, next_attempt_at, last_error, account_id = ? "
                             "FROM outbox ORDER BY seq", (self.uid,))
                ops = [f"{e}:{self.label.get(i, i[:8])} {op} {st} attempts={n} next={nxt} err={str(err)[:70]}"
                       for e, i, op, st, n, nxt, err, mine in rows if mine]
                others = sum(1 for row in rows if not row[-1])
                evidence.append(f"{d.name}: last sync {last.get(d.name)}, connectivity {status.get('connectivity')}, "
                                f"outbox status {status.get('outbox')}, the account's ops {ops[:6]}, "
                                f"{len(d.proxy.pairs)} connections open through its proxy"
                                f"{f', and {others} ops of other accounts' if others else ''}")
            except Exception as error:  # noqa: BLE001
                evidence.append(f"{d.name}: {error}")
        self.problem("settle", f"not settled {SETTLE_SECONDS:.0f}s after both networks came back: " + "; ".join(evidence))
        return False

    def check_agreement(self):
        """Settled, each device's status must not say "signed in (offline)" beside "online"."""
        for d in self.devices:
            status = d.call("daemon.status")
            account, connectivity = status.get("account") or {}, status.get("connectivity") or {}
            if connectivity.get("state") == "online" and account.get("state") != "signed_in":
                self.problem("agree", f"{d.name}: account {account.get('state')} beside connectivity online "
                                      f"({connectivity.get('reason')}) after settling")

    def like_evidence(self, pid):
        """The rows behind a like that ended wrong: the server's (its timestamps say which write was
        last), each device's, and what each device still means to read again."""
        parts = []
        try:
            rows = self.devstack.service_get(f"likes?select=liked_at,updated_at,deleted_at,acted_at,acted_by&user_id=eq.{self.uid}"
                                             f"&photo_id=eq.{urllib.parse.quote(pid)}")
            parts.append(f"server row {rows}")
        except Failure as error:
            parts.append(f"server row unreadable: {error}")
        for d in self.devices:
            try:
                local = d.sql("SELECT liked_at, updated_at, deleted_at, acted_ms, acted_by FROM likes WHERE account_id = ? AND photo_id = ?",
                              (self.uid, pid))
                cursor = d.sql("SELECT updated_at, last_id FROM sync_cursors WHERE account_id = ? AND table_name = 'likes'",
                               (self.uid,))
                reread = d.sql("SELECT count(*) FROM pull_rereads WHERE account_id = ? AND entity_id = ?", (self.uid, pid))
                parts.append(f"{d.name} row {local}, likes cursor {cursor}, to read again {reread[0][0]}")
            except Exception as error:  # noqa: BLE001
                parts.append(f"{d.name}: {error}")
        return "; ".join(parts)

    def edits_downloaded(self):
        for d in self.devices:
            for e in d.edits().values():
                if not e.get("path") or not os.path.exists(e["path"]):
                    return False
        return True

    def check(self, settled_ok):
        a, b = self.devices
        server, duplicates = self.devstack.server_likes(self.email)
        server_liked = {pid for pid, on in server.items() if on}
        local = {d.name: d.liked() for d in self.devices}
        if duplicates:
            self.problem("duplicates", f"duplicate like rows on the server: {[self.label.get(p, p) for p in duplicates]}")

        def names(ids):
            return sorted(self.label.get(p, p) for p in ids)
        if not (local["A"] == local["B"] == server_liked):
            self.problem("likes", f"liked sets differ: A {names(local['A'])}, B {names(local['B'])}, server {names(server_liked)}")
        # the rule, per photo
        for pid in self.pool:
            ok, concurrent = accepted_states(self.like_actions[pid], False)
            if concurrent:
                self.counts["concurrent"] += 1
                self.close_calls.append(concurrent)
            actual = pid in server_liked
            if actual not in ok:
                acts = ", ".join(f"{step + 1}:{dev} {'like' if st else 'unlike'} at {t0:.3f}-{t1:.3f} ±{u * 1000:.0f}ms"
                                 for step, dev, st, _, (t0, t1, u) in self.like_actions[pid])
                queued = {dev: spans([k + 1 for k, snap in enumerate(self.observed) if pid in snap[dev]]) for dev in ("A", "B")}
                self.problem("rule", f"{self.label[pid]} ends {'liked' if actual else 'not liked'} on the server "
                                     f"(A {'liked' if pid in local['A'] else 'not liked'}, B {'liked' if pid in local['B'] else 'not liked'}), "
                                     f"the rule wants {'liked' if True in ok else 'not liked'}; actions [{acts}]; "
                                     f"a like op of it queued (pending or in flight) after steps: A {queued['A']}, B {queued['B']}; "
                                     f"{self.like_evidence(pid)}")
        # username
        ok_names, concurrent = accepted_states(self.renames, self.initial_name)
        if concurrent:
            self.counts["concurrent"] += 1
            self.close_calls.append(concurrent)
        server_name = self.devstack.service_get(f"profiles?select=username&id=eq.{self.uid}")[0]["username"]
        names_now = {"A": a.username(), "B": b.username(), "server": server_name}
        if len(set(names_now.values())) != 1 or server_name not in ok_names:
            self.problem("username", f"usernames {names_now}, the rule accepts {sorted(ok_names)}; renames "
                                     f"{[(s + 1, dev, n) for s, dev, n, _, _ in self.renames]}")
        # edits
        service = {"apikey": self.devstack.service, "Authorization": "Bearer " + self.devstack.service}
        rows = self.devstack.service_get(f"edits?user_id=eq.{self.uid}&select=id,photo_id,storage_path,deleted_at")
        ids = [r["id"] for r in rows]
        if len(ids) != len(set(ids)):
            self.problem("duplicates", "duplicate edit rows on the server")
        server_live = {r["id"]: r for r in rows if r["deleted_at"] is None}
        want = {eid for eid, e in self.edits.items() if e["deleted"] is None}
        lists = {d.name: d.edits() for d in self.devices}
        photo_of = {r["id"]: r.get("photo_id") for r in rows}
        for edits in lists.values():
            photo_of.update({eid: e.get("photo_id") for eid, e in edits.items()})
        maybe = set(self.maybe_edits) | {eid for eid, photo in photo_of.items()
                                         if eid not in self.edits and photo in self.maybe_edit_photos}
        wrong = []
        for who, have in (("A", set(lists["A"])), ("B", set(lists["B"])), ("server", set(server_live))):
            if (have ^ want) - maybe:
                wrong.append(f"{who} has {sorted(e[:8] for e in have - want)} extra, {sorted(e[:8] for e in want - have)} missing")
        for eid in set(server_live) & set(lists["A"]) & set(lists["B"]):
            status, _, data = http("GET", self.devstack.backend + f"/storage/v1/object/edits/{server_live[eid]['storage_path']}", None, service)
            digest = hashlib.sha256(data).hexdigest() if status == 200 else f"HTTP {status}"
            for d in self.devices:
                path = lists[d.name][eid].get("path")
                mine = sha256(path) if path and os.path.exists(path) else "no file"
                if mine != digest:
                    wrong.append(f"edit {eid[:8]} on {d.name}: {mine[:12]} vs Storage {digest[:12]}")
        status, listing = http_json("POST", self.devstack.backend + "/storage/v1/object/list/edits",
                                    {"prefix": f"{self.uid}/", "limit": 10000}, service)
        objects = {o["name"].rsplit(".", 1)[0] for o in listing} if isinstance(listing, list) else set()
        if objects - set(server_live) - maybe:
            wrong.append(f"Storage objects of removed edits left: {sorted(o[:8] for o in objects - set(server_live))}")
        if wrong:
            history = [f"{e['step'] + 1}:{e['device']} {eid[:8]}{' removed@' + str(e['deleted'] + 1) if e['deleted'] is not None else ''}"
                       for eid, e in self.edits.items()]
            self.problem("edits", "; ".join(wrong) + f"; edits made {history}")
        # outboxes
        for d in self.devices:
            rows = d.sql("SELECT entity, entity_id, op, state, attempts, last_error FROM outbox WHERE account_id = ?", (self.uid,))
            if rows:
                self.problem("outbox", f"{d.name}'s outbox still holds " + ", ".join(
                    f"{e}:{self.label.get(i, i[:8])} {op} {st} x{n} {str(err)[:60]}" for e, i, op, st, n, err in rows[:5]))
            integrity = d.daemon.integrity()
            if integrity != ["ok"]:
                self.problem("integrity", f"{d.name}: {integrity[:3]}")

    def run(self):
        self.end_seconds = 0.0
        self.begin()
        self.observed = []
        self.run_steps()
        t0 = time.monotonic()
        ok = self.settle()
        self.check(ok)
        self.end_seconds = time.monotonic() - t0
        return ok


CHECKS = [
    ("settle", "settles after the networks return: A, B, A, B synced until both drained twice in a row, within 60 s"),
    ("likes", "the same liked set on A, B and the server"),
    ("rule", "every photo ends as its last acknowledged like/unlike, whatever order the pushes arrived in (see the rule)"),
    ("username", "the same username on A, B and the server, the last acknowledged rename (same rule)"),
    ("edits", "the same live edits on A, B and the server, renderings byte-equal to the Storage objects"),
    ("duplicates", "no duplicate like or edit row on the server"),
    ("outbox", "nothing pending, in flight or rejected in either outbox"),
    ("integrity", "PRAGMA integrity_check ok on both stores (after every kill and at the end)"),
    ("sync", "every sync.now with wait answered within timeout_seconds + 2 s"),
    ("agree", "account and connectivity agree once settled (never signed in, offline beside online)"),
    ("crash", "splashd never dies by itself and sends READY=1 after every restart"),
    ("steps", "every step answered as expected (refusals only where meant)"),
]


def run(devstack, base, figures, trials, rng, short=False):
    replay = [int(s, 0) for s in os.environ.get("CHAOS_CONVERGE_SEEDS", "").replace(",", " ").split()]
    count = int(os.environ.get("CHAOS_CONVERGE_HISTORIES") or (12 if short else 1000))
    # Short mode starts no new history after this many seconds (a failing history can take 60 s+).
    explicit = replay or os.environ.get("CHAOS_CONVERGE_HISTORIES")
    budget = float(os.environ.get("CHAOS_CONVERGE_BUDGET") or (150 if short and not explicit else 0))
    # Lanes: pairs of devices running histories side by side against the one devstack (every history
    # has an account of its own). A history spends most of its time waiting on timeouts and slowed
    # answers, so lanes multiply the rate; each lane's histories still run one after another.
    lanes = max(1, int(os.environ.get("CHAOS_CONVERGE_JOBS") or (1 if short else 3)))
    seeds = replay or [rng.randrange(1 << 31) for _ in range(count)]
    token = uuid.uuid4().hex[:3]
    devstack.reset()
    tally = Tally(len(seeds))
    started = time.monotonic()
    pool = None
    lane_devices = []
    try:
        for lane in range(lanes):
            devices, pool = set_up(devstack, base, lane * 1000, pool)
            lane_devices.append(devices)
        log(f"pool {', '.join(f'p{i}={pid}' for i, pid in enumerate(pool))}; {len(seeds)} histories in {lanes} lane(s)")
        queue = list(enumerate(seeds))
        queue_lock = threading.Lock()

        def next_seed():
            with queue_lock:
                if not queue or (budget and time.monotonic() - started > budget):
                    return None
                return queue.pop(0)

        def lane_main(lane):
            serial = lane * 1000
            while (item := next_seed()) is not None:
                _, seed = item
                h = History(seed, lane_devices[lane], devstack, pool, token)
                t0 = time.monotonic()
                try:
                    h.run()
                except Exception as error:  # noqa: BLE001 - a history that breaks the harness is a failure with its seed
                    h.problem("steps", f"the history broke off: {type(error).__name__}: {error}"[:600])
                tally.add(h, time.monotonic() - t0, figures, started)
                if h.problems:
                    # A failed history may leave ops parked under its account, a backoff, a stuck
                    # daemon: the lane's next history gets two new devices, so failures do not cascade.
                    tear_down(lane_devices[lane])
                    serial += 1
                    lane_devices[lane], _ = set_up(devstack, base, serial, pool)

        threads = [threading.Thread(target=lane_main, args=(lane,), daemon=True) for lane in range(lanes)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if tally.n < len(seeds):
            figures.note(f"time budget of {budget:.0f}s used up: {tally.n} of {len(seeds)} histories run")
        tally.report(figures, started, [d for devices in lane_devices for d in devices], lanes)
    finally:
        for devices in lane_devices:
            tear_down(devices)


class Tally:
    """What the histories found, added up across lanes."""

    def __init__(self, planned):
        self.lock = threading.Lock()
        self.planned = planned
        self.n = 0
        self.failures = 0
        self.failed = {name: 0 for name, _ in CHECKS}
        self.totals, self.kind_time = {}, {}
        self.settle_times, self.per_history = [], []
        self.uncertainties, self.close_calls = [], []

    def add(self, h, seconds, figures, started):
        with self.lock:
            self.n += 1
            self.per_history.append(seconds)
            for key, value in h.counts.items():
                self.totals[key] = self.totals.get(key, 0) + value
            for key, value in h.kind_time.items():
                self.kind_time[key] = self.kind_time.get(key, 0.0) + value
            self.kind_time["settle and checks"] = self.kind_time.get("settle and checks", 0.0) + h.end_seconds
            self.uncertainties += [timing[2] for acts in h.like_actions.values() for *_, timing in acts]
            self.uncertainties += [timing[2] for *_, timing in h.renames]
            self.close_calls += h.close_calls
            if h.settle_seconds is not None:
                self.settle_times.append(h.settle_seconds)
            if h.problems:
                self.failures += 1
                for name in h.problems:
                    self.failed[name] = self.failed.get(name, 0) + 1
                text = " | ".join(f"{name}: " + " / ".join(texts[:3]) for name, texts in h.problems.items())
                figures.bug(f"converge history seed={h.seed} (replay: CHAOS_CONVERGE_SEEDS={h.seed} chaos/run --parts converge): "
                            f"{text} || photos {', '.join(f'{v}={k}' for k, v in h.label.items())} || steps: {' · '.join(h.steps)}")
            if self.n % 10 == 0 or self.n == self.planned:
                elapsed = time.monotonic() - started
                log(f"{self.n}/{self.planned} histories, {self.failures} failed, {elapsed:.0f}s ({elapsed / self.n:.1f}s per history)")

    def report(self, figures, started, devices, lanes):
        n, totals = self.n, self.totals
        for name, title in CHECKS:
            detail = ""
            if name == "settle" and self.settle_times:
                detail = (f"max {max(self.settle_times):.1f}s to settle, "
                          f"median {sorted(self.settle_times)[len(self.settle_times) // 2]:.1f}s")
            if name == "rule":
                u = sorted(self.uncertainties) or [0.0]
                detail = (f"{totals.get('actions', 0)} acknowledged actions, {totals.get('concurrent', 0)} photos/usernames whose "
                          f"last two actions were within clock precision; the devices' uncertainty about the server's clock "
                          f"around an action: median {u[len(u) // 2] * 1000:.1f} ms, 99th {u[min(len(u) - 1, len(u) * 99 // 100)] * 1000:.1f} ms, "
                          f"max {u[-1] * 1000:.1f} ms")
                if self.close_calls:
                    detail += "; close calls (gap, u, u') " + ", ".join(
                        f"({g * 1000:.0f}, {a * 1000:.0f}, {b * 1000:.0f} ms)" for g, a, b in self.close_calls[:5])
            figures.add(title, n, self.failed.get(name, 0), detail)
        figures.add("histories that held every check", n, self.failures,
                    f"{totals.get('steps', 0)} steps, {totals.get('kills', 0)} kills, {totals.get('cuts', 0)} cuts, "
                    f"{totals.get('crashes', 0)} mid-request crashes, {totals.get('syncs', 0)} syncs")
        figures.note(f"{n} histories in {time.monotonic() - started:.0f}s on {lanes} lane(s), "
                     f"{sum(self.per_history) / max(1, n):.1f}s per history (max {max(self.per_history, default=0):.1f}s); "
                     f"{totals.get('noops', 0)} likes/unlikes answered unchanged, "
                     f"{totals.get('refused', 0)} refused as meant; {totals.get('flipped', 0)} likes cut off by a kill were committed "
                     f"after a pull had changed the photo's state; proxies accepted "
                     f"{sum(d.proxy.accepted for d in devices)} connections and reset {sum(d.proxy.reset_connections for d in devices)} live ones; "
                     f"time by step kind: " + ", ".join(f"{k} {v:.0f}s" for k, v in sorted(self.kind_time.items(), key=lambda kv: -kv[1])))


def set_up(devstack, base, serial, pool=None):
    """Two devices signed in to a warm-up account; both stores know the pool's photos and hold each
    original (so edits work offline), and their outboxes are drained (nothing parked for later)."""
    sign = 1 if (serial // 1000) % 2 == 0 else -1  # lanes alternate which device runs ahead
    devices = [Device("A", base, devstack, serial, skew=sign * SKEW_SECONDS),
               Device("B", base, devstack, serial, skew=-sign * SKEW_SECONDS)]
    for d in devices:
        d.start()
    a, b = devices
    warm = a.daemon.signup()
    b.daemon.login(warm)
    found = populate(a, POOL)
    pool = pool or found[:POOL]
    populate(b, POOL)
    for d in devices:
        for pid in pool:
            d.call("photos.show", {"id": pid})
            d.call("edits.create", {"id": pid, "filters": FILTERS[0]}, timeout=120)
    for d in devices:
        d.daemon.sync_until_drained(timeout=120)
    return devices, pool


def tear_down(devices):
    for d in devices:
        d.proxy.restore()
        try:
            d.daemon.stop()
        except Exception:  # noqa: BLE001
            d.daemon.kill9()
        d.proxy.close()
