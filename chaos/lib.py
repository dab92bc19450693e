"""Shared pieces of the chaos suite: the release binaries, measurements and figures. devstack, the
control socket's JSON-RPC and splashd as a child process come from python/splashtest, which the
benchmark and the system tests use too.

Everything here drives the release binaries (`.build-chaos/release/splashd`, `splashctl`) as a user
would: a process with its own directories, a notify socket it reports READY=1 on, the control
socket, and devstack on loopback.
"""
import hashlib
import os
import random
import shutil
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import splashtest  # noqa: E402
from splashtest import Failure, Rpc, RpcError, http, http_json, rss_kb, wait_until  # noqa: E402,F401
from splashtest.devstack import PASSWORD  # noqa: E402,F401

BIN = os.environ.get("CHAOS_BIN", os.path.join(ROOT, ".build-chaos", "release"))
SPLASHD = os.path.join(BIN, "splashd")
SPLASHCTL = os.path.join(BIN, "splashctl")


def log(*parts):
    print("  " + " ".join(str(p) for p in parts), flush=True)


class Devstack(splashtest.Devstack):
    """A devstack instance of the chaos run's own (its own state directory and ports). With
    CHAOS_KEEP set, the server's and Postgres's logs outlive it."""

    def __init__(self, photos=500):
        super().__init__(photos=photos, prefix="splashd-chaos-devstack-")

    def down(self):
        if os.environ.get("CHAOS_KEEP"):
            kept = self.state_dir + ".logs"
            try:
                self.keep_logs(kept)
                print(f"chaos: CHAOS_KEEP is set: the devstack's logs stay in {kept}", flush=True)
            except OSError as error:
                print(f"chaos: cannot keep the devstack's logs: {error}", flush=True)
        super().down()


class Daemon(splashtest.Daemon):
    """The chaos run's release splashd; CHAOS_LOG_LEVEL (e.g. debug) shows a replayed failure's every retry."""

    def __init__(self, directory, **options):
        super().__init__(directory, splashd=SPLASHD, log_level=os.environ.get("CHAOS_LOG_LEVEL"), **options)


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
