"""Shared parts of the benchmark: processes, the release daemon, seeding, statistics. devstack, the control
socket's JSON-RPC and splashd as a child process come from python/splashtest."""
import hashlib
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import splashtest  # noqa: E402
from splashtest import Devstack, Rpc, RpcError  # noqa: E402,F401
BENCH = os.path.join(ROOT, "bench")
RELEASE = os.path.join(ROOT, ".build-release", "release")
SPLASHD = os.path.join(RELEASE, "splashd")
SPLASHCTL = os.path.join(RELEASE, "splashctl")
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


# ---------------------------------------------------------------- devstack, the control socket, the daemon
# (python/splashtest, shared with the chaos suite and the system tests)

class Daemon(splashtest.Daemon):
    """The release splashd the benchmark measures; its connections keep the events they read."""

    def __init__(self, directory, **options):
        super().__init__(directory, splashd=SPLASHD, **options)

    def rpc(self, timeout=60.0):
        return super().rpc(timeout, keep_events=True, connect_within=30.0)


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


def now_text(offset_s=0.0, iso=False):
    """Dates as GRDB writes them: 'YYYY-MM-DD HH:MM:SS.SSS' in UTC; with `iso`, also the same instant as an
    outbox payload holds it ('YYYY-MM-DDTHH:MM:SS.SSSZ'), as a pair."""
    t = time.time() - offset_s
    millis = ".%03d" % int((t % 1) * 1000)
    grdb = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + millis
    return (grdb, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + millis + "Z") if iso else grdb


def seed_photos(db_path, count, prefix, account_id=None, liked_every=0, url_for=None, colors=True, outbox=False,
                unliked_tail=0, before_commit=None):
    """Writes `count` photos straight into the daemon's SQLite store in one transaction (the daemon may run:
    WAL). Every `liked_every`-th photo gets a likes row for `account_id` (but the last `unliked_tail`); with
    `outbox`, each like also gets its outbox op, shaped as LikeActions writes it. `before_commit` is called
    just before the commit that makes them visible to the daemon. Returns the photo ids."""
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
            if liked_every and account_id is not None and n % liked_every == 0 and n < count - unliked_tail:
                # The op's like time is the row's, as LikeActions writes them: the server's row then matches the
                # store's, and the pull that reads the push back finds nothing to change (with the op's time a
                # few seconds off, it rewrote all 10,000 likes: 2.5–3 s of a push scenario's daemon).
                liked, iso = now_text(n * 0.25, iso=True)
                con.execute("INSERT INTO likes (account_id, photo_id, liked_at, updated_at) VALUES (?, ?, ?, ?)",
                            (account_id, pid, liked, liked))
                if outbox:
                    payload = json.dumps({"photoId": pid, "likedAt": iso, "wasNew": True, "photo": {
                        "title": f"{words[0].title()} {words[1]} {n}", "authorName": f"Author {n % 997}", "color": HEX[bucket],
                        "width": 4000, "height": 3000, "urls": urls}}, sort_keys=True, separators=(",", ":"))
                    con.execute("INSERT INTO outbox (op_id, account_id, entity, entity_id, op, payload, state, attempts, "
                                "created_at, updated_at) VALUES (?, ?, 'like', ?, 'like', ?, 'pending', 0, ?, ?)",
                                (str(uuid.uuid4()).upper(), account_id, pid, payload, liked, liked))
        if before_commit:
            before_commit()
    con.close()
    return ids


# ---------------------------------------------------------------- /proc

class TaskClock:
    """A process's CPU time over a window, precisely: `perf stat -e task-clock -p PID` counting, one figure per
    interval. Every thread is counted, those it starts within the window and those that end in it too (perf's
    counters are inherited by new threads and folded back when they exit), in nanoseconds; /proc/PID/stat's
    utime and stime are in 10 ms ticks, each rounded down, so a 300 s window read there is off by up to 20 ms
    (seen: 60 ms there for an idle daemon that perf counted at 40)."""

    def __init__(self, pid, seconds, parts):
        self.interval_ms = int(seconds * 1000 / parts)
        self.parts = parts
        self.proc = subprocess.Popen(["perf", "stat", "-x", ",", "-I", str(self.interval_ms), "-e", "task-clock", "-p", str(pid),
                                      "--", "sleep", str(seconds + 0.5)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def parts_ms(self):
        """Milliseconds on a CPU in each of the window's parts (waits for perf to end)."""
        _, err = self.proc.communicate(timeout=120)
        values = []
        for line in err.splitlines():
            fields = line.split(",")
            if len(fields) >= 4 and fields[3].startswith("task-clock"):
                values.append(float(fields[1]) if fields[1] not in ("", "<not counted>") else 0.0)
        if len(values) < self.parts:
            raise RuntimeError(f"perf stat gave {len(values)} of {self.parts} intervals: {err[-500:]}")
        return values[:self.parts]


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


def process_age(pid):
    """Seconds since the process started."""
    with open(f"/proc/{pid}/stat") as f:
        started = int(f.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
    with open("/proc/uptime") as f:
        return float(f.read().split()[0]) - started


def wait_quiet(pid, window=1.0, most=0.01, limit=180.0):
    """Waits until the process used at most `most` CPU seconds over a whole `window` (its background work
    done: the perceptual hashes and screen renditions of the files a repetition brought in), at most
    `limit` seconds; returns how long it waited."""
    started = time.time()
    while time.time() - started < limit:
        before = proc_stat(pid)[0]
        time.sleep(window)
        if proc_stat(pid)[0] - before <= most:
            break
    return time.time() - started


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


def perceptual_hash_for(key):
    """A stand-in 64-bit perceptual hash (as SQLite's signed integer), fixed per key and spread like real
    ones: seeded files all share one sample image, and equal hashes would make each a duplicate of all."""
    digest = hashlib.sha256(str(key).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def add_library_files(daemon, photo_ids, sample):
    """Gives liked photos their library file (a hard link to one real JPEG) and photo_files row, so the image
    queue has nothing to fetch for them and does not compete with what a scenario measures."""
    size = os.path.getsize(sample)
    with open(sample, "rb") as f:
        checksum = hashlib.sha256(f.read()).hexdigest()  # as the daemon records a download's
    lib = os.path.join(daemon.directory, "data", "library", "unsplash")
    os.makedirs(lib, exist_ok=True)
    con = sqlite3.connect(daemon.db_path, timeout=60)
    now = now_text()
    with con:
        for pid in photo_ids:
            rid = pid.split(":", 1)[1]
            rel = f"library/unsplash/{rid}.regular.jpg"
            if not os.path.exists(os.path.join(daemon.directory, "data", rel)):
                os.link(sample, os.path.join(daemon.directory, "data", rel))
            con.execute("INSERT INTO photo_files (photo_id, variant, path, in_library, bytes, checksum, created_at, "
                        "last_access_at) VALUES (?, 'regular', ?, 1, ?, ?, ?, ?) "
                        "ON CONFLICT (photo_id, variant) DO UPDATE SET path = excluded.path, bytes = excluded.bytes, "
                        "checksum = excluded.checksum", (pid, rel, size, checksum, now, now))
            # a downloaded photo's perceptual hash, as the daemon leaves it (one it lacks, it takes at start)
            con.execute("UPDATE photos SET phash = ? WHERE id = ?", (perceptual_hash_for(pid), pid))
    con.close()


def sample_jpeg(ctx):
    path = os.path.join(ctx.work, "sample.jpg")
    if not os.path.exists(path):
        catalogue = ctx.devstack.unsplash_ids(1)[0]
        urllib.request.urlretrieve(ctx.devstack.url + f"/cdn/unsplash/photo-{catalogue}?w=200", path)
    return path
