"""Part 9: power cuts. Device A's state, data and cache directories live on powerfs (chaos/powerfs), which
keeps what a disk would hold; a cut drops everything not made durable (with a seed, each unsynced block
kept, dropped or garbled, each changed directory's old or new entries) and the file system is mounted anew
from what survived, as after a reboot. A SIGKILL alone leaves the page cache: this is what it does not.

Random cuts land while likes and unlikes are pushed, the live channel pulls, and library files download
(the CDN slowed); aimed cuts kill the daemon at a named crash point (SPLASHD_TEST_CRASH_AT) and then cut.
After each restart: PRAGMA integrity_check, READY=1, every like and unlike the daemon acknowledged before
the cut, every edit it acknowledged, the outbox drains, the server's likes are the local ones, and every
file a row names is whole (its SHA-256 the row's) once settled, with nothing staged or partial left.
"""
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from http.client import HTTPConnection, HTTPException

from lib import PASSWORD, ROOT, Daemon, Failure, RpcError, fresh_dir, http, log, populate, sha256, wait_until

PYTHON = os.path.join(ROOT, "devstack", ".venv", "bin", "python")
POWERFS = os.path.join(ROOT, "chaos", "powerfs", "powerfs.py")
# The points a power cut is aimed at, each reached by one action (see `act`).
POINTS = ("download.renamed", "image.moved", "edit.staged", "edit.recorded", "edit.uploaded", "edit.removed_in_flight",
          "import.copied", "guest.batch_adopted", "pictures.linking")
# Storage's answer to an edit's upload held back this long: its removal lands while it is in flight.
UPLOAD_DELAY_MS = 4000
FILTERS = [[{"filter": "sepia", "params": [0.8]}], [{"filter": "mono", "params": []}]]
STORE = "splashd.sqlite"
WAL = STORE + "-wal"
# The cuts powerfs makes at one operation of the store's files (see `cut_where_held`).
FROZEN = ("store.migrating", "wal.checkpoint", "wal.commit_torn")
# The store's newest migration, and how the part takes it back to run it again under a cut: a new
# migration adds its own undo here (and the part fails until it does).
NEWEST_MIGRATION = "v10 full text as a person types"
UNDO_NEWEST_MIGRATION = """
    DROP TABLE photos_fts;
    CREATE VIRTUAL TABLE photos_fts USING fts5(
        title, description, alt_description, tags, author_name,
        content='photos', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
    INSERT INTO photos_fts (photos_fts) VALUES ('rebuild');
    DELETE FROM grdb_migrations WHERE identifier = 'v10 full text as a person types';
"""


class PowerDisk:
    """powerfs at ROOT/mnt over ROOT/backing, its model in ROOT/model; `cut` drops what was not durable and
    mounts again over what survived."""

    def __init__(self, root):
        self.backing, self.point, self.model = (os.path.join(root, name) for name in ("backing", "mnt", "model"))
        for path in (self.backing, self.point, self.model):
            os.makedirs(path, exist_ok=True)
        self.process = None
        # What the cuts hit, summed over powerfs's reports; the store's WAL on its own.
        self.hits = {"files_rolled_back": 0, "bytes_dropped": 0, "blocks_garbled": 0, "dirs_rolled_back": 0,
                     "WAL blocks garbled": 0, "WAL bytes dropped": 0}

    def up(self):
        self.process = subprocess.Popen([PYTHON, POWERFS, "mount", self.backing, self.point, "--state", self.model],
                                        stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.model, "log"), "a"))
        deadline = time.monotonic() + 20
        while not os.path.ismount(self.point):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise Failure(f"powerfs did not mount: {open(os.path.join(self.model, 'log')).read()[-800:]}")
            time.sleep(0.02)

    def cut(self, seed, garble_tail=None):
        argv = [PYTHON, POWERFS, "cut", "--state", self.model] + ([] if seed is None else ["--seed", str(seed)]) + (
            ["--garble-tail", garble_tail] if garble_tail else [])
        report = json.loads(subprocess.run(argv, check=True, capture_output=True, text=True, timeout=120).stdout)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            # Unmounted lazily, powerfs ends once nothing holds the mount: say who still does.
            raise Failure(f"powerfs did not end after the cut: {self.holders()}; its log: "
                          f"{open(os.path.join(self.model, 'log')).read()[-800:]}") from None
        self.count(report)
        self.up()
        return report

    def holders(self):
        """The processes with a file, a mapping or their working directory under the mount point, and
        powerfs's own state and kernel wait channel."""
        held = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                links = [os.readlink(f"/proc/{pid}/cwd")] + [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
                links += [line.split()[-1] for line in open(f"/proc/{pid}/maps") if len(line.split()) >= 6]
                if any(link.startswith(self.point) for link in links):
                    held.append(f"{pid} {open(f'/proc/{pid}/cmdline').read().replace(chr(0), ' ')[:120]}")
            except OSError:
                continue
        own = self.process.pid
        try:
            state = open(f"/proc/{own}/stat").read().split()[2] + " " + open(f"/proc/{own}/wchan").read()
        except OSError as error:
            state = str(error)
        return f"held by {held or 'nobody'}; powerfs {own} in state {state}"

    def arm(self, file, op, nth):
        """The next cut comes at exactly the `nth` `op` (write or fsync) of a file called `file`: powerfs
        holds it, and every operation after it, until the cut."""
        subprocess.run([PYTHON, POWERFS, "arm", "--state", self.model, "--file", file, "--op", op, "--nth", str(nth)],
                       check=True, capture_output=True, timeout=30)

    def frozen(self):
        return json.loads(subprocess.run([PYTHON, POWERFS, "frozen", "--state", self.model],
                                         check=True, capture_output=True, text=True, timeout=30).stdout)["frozen"]

    def count(self, report):
        for key in report.keys() & self.hits.keys():
            self.hits[key] += report[key]
        for path, hit in report.get("files", {}).items():
            if path.endswith(WAL):
                self.hits["WAL blocks garbled"] += hit["blocks_garbled"]
                self.hits["WAL bytes dropped"] += hit["bytes_dropped"]

    def down(self):
        if self.process and self.process.poll() is None:
            subprocess.run(["fusermount3", "-u", "-z", self.point], check=False)
            self.process.wait(timeout=30)


def available():
    if os.geteuid() != 0 or not os.path.exists("/dev/fuse"):
        return "needs root and /dev/fuse"
    if not os.path.exists(PYTHON):
        return "devstack's virtual environment (mfusepy) is not installed"
    if subprocess.run(["which", "fusermount3"], capture_output=True).returncode != 0:
        return "fusermount3 is missing (make setup installs fuse3)"
    return None


def on_disk(base, disk):
    """Device A with its state, data and cache directories on `disk`."""
    directory = fresh_dir(base, "power-a")
    for name in ("state", "data", "cache"):
        os.makedirs(os.path.join(disk.point, name), exist_ok=True)
        os.symlink(os.path.join(disk.point, name), os.path.join(directory, name))
    # As an installer would leave them: there for good.
    descriptor = os.open(disk.point, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return directory


def run(devstack, base, figures, trials, rng, short=False):
    why_not = available()
    if why_not:
        figures.add(f"power cuts (not measured: {why_not})", 0, 0)
        return
    devstack.reset()
    disk = PowerDisk(fresh_dir(base, "powerfs"))
    disk.up()
    try:
        cuts(devstack, base, disk, figures, rng, random_cuts=40 if short else 860, per_point=2 if short else 20)
    finally:
        disk.down()


def gallery_get(daemon, path):
    """GET `path` from the daemon's web gallery as a browser let in by `splashctl open` would: the one-time
    address's token exchanged for the cookie, then the request with it. (status, body)."""
    opened = urllib.parse.urlsplit(daemon.call("web.open", {})["url"])
    connection = HTTPConnection("127.0.0.1", opened.port, timeout=120)
    try:
        host = {"Host": f"127.0.0.1:{opened.port}"}
        connection.request("GET", f"{opened.path}?{opened.query}", headers=host)
        answer = connection.getresponse()
        answer.read()
        cookie = (answer.getheader("Set-Cookie") or "").split(";")[0]
        connection.request("GET", path, headers=host | {"Cookie": cookie})
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


def cuts(devstack, base, disk, figures, rng, random_cuts, per_point):
    # The Pictures folder of links on the same disk: its rebuild after a cut is checked too.
    pictures = os.path.join(disk.point, "pictures")
    # Google Photos too: picks download while the power goes.
    env = devstack.daemon_env() | {key: value for key, value in devstack.env.items() if key.startswith("SPLASHD_GOOGLE_")}
    a = Daemon(on_disk(base, disk), env=env, config=f'[pictures]\nfolder = "{pictures}"\n')
    last_start = [time.time()]
    a.start()
    email = a.signup()
    pool = populate(a, 60)
    log(f"power: device A ({email}) on powerfs; {len(pool)} photos in the pool")
    # Edits pin their photo's file in the library: they are made on a quarter of the pool, so that the
    # rest's files still download when liked and move to the cache when unliked.
    edited, movable = set(pool[:len(pool) // 4]), set(pool[len(pool) // 4:])
    devstack.knobs({"picker_poll_interval": 0.2})
    google = a.call("google.connect", {})
    # The fake person consents; the redirect lands on the daemon's loopback callback.
    urllib.request.urlopen(google["url"], timeout=30).read()
    if not a.call("google.connect_finish", {"flow": google["flow"], "wait_seconds": 10}, timeout=30)["connected"]:
        raise Failure("Google Photos did not connect")
    picks = {}  # Google Photos picking sessions → how many photos the person picked
    # Device B, the same account on an ordinary disk: after each phase it, A and the server agree.
    b = Daemon(fresh_dir(base, "power-b"), env=devstack.daemon_env()).start()
    b.login(email)
    # B's own photos: what it likes is on the server before the power goes, and A pulls it meanwhile.
    b_pool = [pid for pid in populate(b, len(pool) + 10) if pid not in pool][:10]
    acked_b = set()
    folder = fresh_dir(base, "power-import")
    acked = set(a.liked())  # the likes the daemon acknowledged, as the person last said
    acked_edits = set()
    acked_removed = set()  # edits whose removal the daemon acknowledged (or committed before its point)
    acked_name = a.call("profile.get")["profile"]["username"]
    acked_imports = set()  # photos library.import answered with
    stats = {}  # check → [trials, failures, reasons]
    started = time.monotonic()

    def check(name, problems):
        row = stats.setdefault(name, [0, 0, {}])
        row[0] += 1
        if problems:
            row[1] += 1
            for problem in problems:
                kind = problem.split(":", 1)[0]
                row[2][kind] = row[2].get(kind, 0) + 1
            figures.bug(f"{name}: " + "; ".join(problems)[:1500])

    def photos_with_files():
        return {r[0] for r in a.sql("SELECT DISTINCT photo_id FROM photo_files WHERE variant = 'regular'")}

    def file_problems():
        """Rows whose file is missing or whose bytes are not its checksum; staged or partial files."""
        problems = []
        for photo_id, variant, path, in_library, checksum in a.sql(
                "SELECT photo_id, variant, path, in_library, checksum FROM photo_files"):
            full = path if path.startswith("/") else os.path.join(a.data_dir if in_library else a.cache_dir, path)
            if not os.path.exists(full):
                problems.append(f"missing: {photo_id} {variant} {path}")
            elif checksum and sha256(full) != checksum:
                problems.append(f"torn: {photo_id} {variant} {path} ({os.path.getsize(full)} bytes)")
        for root in (a.data_dir, a.cache_dir):
            for directory, _, names in os.walk(root):
                problems += [f"partial: {os.path.join(directory, n)}" for n in names if n.endswith((".part", ".download"))]
        return problems

    def start():
        last_start[0] = time.time()
        a.start(timeout=120)

    def converge(phase):
        """A drained, then B synced until it holds what A and the server hold: likes, username, live edits."""
        def apart():
            a.sync_until_drained(timeout=90)
            b.sync_until_drained(timeout=90)
            seen = [(d.liked(), d.call("profile.get")["profile"]["username"], {e["edit_id"] for e in d.call("edits.list")["edits"]})
                    for d in (a, b)]
            if seen[0] == seen[1]:
                return []
            (a_likes, a_name, a_edits), (b_likes, b_name, b_edits) = seen
            return [f"B after {phase}: likes missing {sorted(a_likes - b_likes)[:3]}, extra {sorted(b_likes - a_likes)[:3]}; "
                    f"username {b_name!r} (A {a_name!r}); edits missing {sorted(a_edits - b_edits)[:2]}, extra {sorted(b_edits - a_edits)[:2]}"]
        try:
            wait_until(f"device B in step after {phase}", lambda: not apart(), timeout=90, interval=1)
            check("device B, the server and A converge", [])
        except (Failure, RpcError, OSError) as error:
            check("device B, the server and A converge", apart() if isinstance(error, Failure) else [f"converge: {error}"])

    def restart_and_check(unsure=()):
        """`unsure`: likes or unlikes whose answer a freeze held back; the store decides them (either is right)."""
        try:
            start()
        except Failure as error:
            check("READY=1 after the cut", [f"no READY: {error}"])
            a.kill9()
            start()
            return
        check("READY=1 after the cut", [])
        integrity = a.integrity()
        check("integrity_check after the cut", [] if integrity == ["ok"] else [f"integrity: {integrity[:3]}"])
        liked = a.liked()
        for pid in unsure:
            (acked.add if pid in liked else acked.discard)(pid)
        lost = []
        mine = liked & set(pool)  # B's likes come in by the pull: the converge check holds them
        if mine != acked:
            lost.append(f"likes: missing {sorted(acked - mine)[:3]}, back {sorted(mine - acked)[:3]}")
            # Told once: the trials after this one are judged from what the store holds now.
            acked.clear()
            acked.update(mine)
        edits = {e["edit_id"] for e in a.call("edits.list")["edits"]}
        if acked_edits - edits:
            lost.append(f"edits: acknowledged and gone {sorted(acked_edits - edits)[:3]}")
        if acked_removed & edits:
            lost.append(f"edits: removed and back {sorted(acked_removed & edits)[:3]}")
        name = a.call("profile.get")["profile"]["username"]
        if name != acked_name:
            lost.append(f"username: {name!r}, acknowledged {acked_name!r}")
        imported = {r[0] for r in a.sql("SELECT id FROM photos WHERE source = 'local'")}
        if acked_imports - imported:
            lost.append(f"imports: acknowledged and gone {sorted(acked_imports - imported)[:3]}")
        check("nothing acknowledged lost", lost)
        try:
            a.sync_until_drained(timeout=90)
            # Read again after the drain: its pull may bring a like of B's that A had not pulled before the cut.
            liked = a.liked()
            server, duplicates = devstack.server_likes(a.email or email)
            active = {pid for pid, on in server.items() if on}
            uid = devstack.user_id(email)
            on_server = devstack.service_get(f"profiles?select=username&id=eq.{uid}")[0]["username"]
            server_edits = {row["id"] for row in devstack.service_get(f"edits?select=id&deleted_at=is.null&user_id=eq.{uid}")}
            check("the outbox drains and the server's likes, edits and username are the local ones",
                  [] if active == liked and not duplicates and on_server == name and server_edits == edits else
                  [f"server: missing {sorted(liked - active)[:3]}, extra {sorted(active - liked)[:3]}, duplicates {duplicates[:2]}, "
                   f"username {on_server!r} (local {name!r}), edits missing {sorted(edits - server_edits)[:2]}, "
                   f"extra {sorted(server_edits - edits)[:2]}"])
        except (Failure, RpcError) as error:
            check("the outbox drains and the server's likes, edits and username are the local ones", [f"drain: {error}"])
        def out_of_step():
            answer = a.call("library.export", {"check": True})
            return [] if answer["in_step"] else [f"pictures: missing {answer['missing'][:2]}, extra {answer['extra'][:2]}, "
                                                 f"wrong {answer['wrong'][:2]}"]
        try:
            wait_until("the Pictures folder in step", lambda: not out_of_step(), timeout=30, interval=0.5)
            check("the Pictures folder is in step", [])
        except Failure:
            check("the Pictures folder is in step", out_of_step())
        try:
            wait_until("every file whole", lambda: not file_problems(), timeout=60, interval=0.5)
            check("every file a row names is whole, nothing partial", [])
        except Failure:
            check("every file a row names is whole, nothing partial", file_problems()[:5])

    def recent_library_file():
        """A library file the run just cut off wrote (its row recorded since that run began), read while
        its store is still the page cache's: (photo id, path, checksum), or None."""
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(last_start[0]))
        rows = a.sql("SELECT photo_id, path, checksum FROM photo_files WHERE in_library = 1 AND variant = 'regular' "
                     "AND checksum IS NOT NULL AND path NOT LIKE '/%' AND created_at >= ?", (since,))
        return rng.choice(rows) if rows else None

    def garbled_file_check(garbled, offset):
        """After the restart: the gallery never serves the garbage, the daemon says it found it, and
        (once the rest is checked) the file is whole again."""
        photo_id, _, checksum = garbled
        problems = []
        try:
            status, body = gallery_get(a, f"/images/{urllib.parse.quote(photo_id, safe='')}/original")
            if status == 200 and hashlib.sha256(body).hexdigest() != checksum:
                problems.append(f"served: {len(body)} bytes that are not {photo_id}'s ({checksum[:12]})")
        except (OSError, HTTPException, Failure, RpcError) as error:
            problems.append(f"gallery: {error}")
        if "was damaged; it is fetched again" not in a.log_since(offset):
            problems.append(f"unsaid: the daemon did not say it found {photo_id}'s file damaged")
        check("a library file garbled by the cut is found by its hash, never served", problems)

    garbled_cuts = [0]

    def cut(garble=False, unsure=()):
        garbled = None
        if garble:
            garbled = recent_library_file()
        a.kill9()
        # What was asked beside: answered before the kill, or cut off by it.
        for thread in aside:
            thread.join(timeout=60)
        aside.clear()
        seed = rng.choice([None, rng.randrange(1 << 30)])
        disk.cut(seed)
        offset = a.log_size()
        if garbled:
            path = os.path.join(a.data_dir, garbled[1])
            # The cut kept the file (it was flushed before its row): now its bytes become garbage, as a
            # disk that tore it would leave them.
            if os.path.exists(path) and sha256(path) == garbled[2]:
                size = os.path.getsize(path)
                with open(path, "r+b") as f:
                    f.write(os.urandom(size))
                garbled_cuts[0] += 1
            else:
                garbled = None
        restart_and_check(unsure)
        if garbled:
            garbled_file_check(garbled, offset)

    during = {}  # requests a cut may land in → how many times asked

    aside = []  # requests asked beside the rest: ended (answered, or cut off by the kill) before the restart

    def ask_aside(method, params, answered=None):
        def ask():
            try:
                answer = a.call(method, params, timeout=60)
            except (Failure, RpcError, OSError, ValueError):
                return  # the cut came first: not acknowledged
            if answered:
                answered(answer)
        during[method] = during.get(method, 0) + 1
        thread = threading.Thread(target=ask, daemon=True)
        thread.start()
        aside.append(thread)

    def new_import_file():
        """A photo of devstack's catalogue this store has never seen (not a near-duplicate), written to the
        import folder; False when none is left."""
        while not imports["urls"] and imports["page"] <= 17:
            in_store = {r[0] for r in a.sql("SELECT id FROM photos")}
            imports["urls"] += [p["urls"]["regular"] for p in devstack.unsplash_photos(30, imports["page"])
                                if "unsplash:" + p["id"] not in in_store]
            imports["page"] += 1
        if not imports["urls"]:
            return False
        status, _, data = http("GET", imports["urls"].pop(0).split("?")[0] + f"?w={rng.randint(400, 900)}")
        if status != 200:
            return False
        imports["files"] += 1
        with open(os.path.join(folder, f"p{imports['files']:04d}.jpg"), "wb") as f:
            f.write(data)
        return True

    def imported(answer):
        acked_imports.update(item["id"] if isinstance(item, dict) else item for item in answer["imported"])

    imports = {"files": 0, "urls": [], "page": 1}

    def toggle_like(pid=None, timeout=5):
        """A like or unlike of `pid` (else one of the pool's); its id if the answer did not come (held by a
        freeze, or the daemon died first): that one is unsure, the store decides it."""
        pid = pid or rng.choice(pool)
        liking = pid not in acked
        try:
            a.call("photos.like" if liking else "photos.unlike", {"id": pid}, timeout=timeout)
        except (Failure, RpcError, OSError, ValueError):
            return pid
        (acked.add if liking else acked.discard)(pid)
        return None

    # --- random cuts: likes and unlikes pushed, the library downloading, the live channel pulling.
    devstack.faults([{"path": "/cdn/*", "delay_ms": 150}])
    for trial in range(random_cuts):
        # Now and then device B likes or unlikes one of its photos, on the server before A's cut: A pulls it
        # while the power goes.
        if b_pool and rng.random() < 0.3:
            pid = rng.choice(b_pool)
            try:
                b.call("photos.unlike" if pid in acked_b else "photos.like", {"id": pid}, timeout=10)
                (acked_b.discard if pid in acked_b else acked_b.add)(pid)
                b.sync_until_drained(timeout=30)
            except (Failure, RpcError, OSError) as error:
                check("likes answered before the cut", [f"rpc: device B: {error}"])
        for _ in range(rng.randint(1, 6)):
            pid = rng.choice(pool)
            try:
                if pid in acked:
                    a.call("photos.unlike", {"id": pid}, timeout=10)
                    acked.discard(pid)
                else:
                    a.call("photos.like", {"id": pid}, timeout=10)
                    acked.add(pid)
            except (Failure, RpcError, OSError) as error:
                check("likes answered before the cut", [f"rpc: {error}"])
        if rng.random() < 0.3:
            name = f"power_{trial}_{rng.randrange(1000)}"
            try:
                a.call("profile.set_username", {"username": name}, timeout=10)
                acked_name = name
            except (Failure, RpcError, OSError) as error:
                check("likes answered before the cut", [f"rpc: {error}"])
        try:
            a.call("sync.now", {}, timeout=10)
        except (Failure, RpcError, OSError):
            pass
        # One cut in five lands while photos picked in Google Photos download.
        if rng.random() < 0.2:
            session = a.call("google.pick", {}, timeout=30)
            picks[session["session"]] = rng.randint(1, 3)
            urllib.request.urlopen(f"{session['picker_uri']}?pick={picks[session['session']]}", timeout=30).read()
        # Now and then the cut lands while the cache is pruned, or the Pictures folder rebuilt: asked for
        # beside the rest, answered or not before the power goes.
        busy = rng.choice([None, None, None, ("cache.prune", {"keep_bytes": rng.choice([0, 1 << 20])}), ("library.export", {})])
        if busy:
            ask_aside(*busy)
        # And while an edit is saved and uploaded, or a photo imported: acknowledged if answered before the cut.
        liked_files = sorted(acked & photos_with_files() & edited)
        if liked_files and rng.random() < 0.15:
            ask_aside("edits.create", {"id": rng.choice(liked_files), "filters": rng.choice(FILTERS)},
                      answered=lambda edit: acked_edits.add(edit["edit_id"]))
        if rng.random() < 0.12 and new_import_file():
            ask_aside("library.import", {"path": folder}, answered=imported)
        time.sleep(rng.uniform(0, 1.5))
        # One random cut in four also garbles a library file the cut-off run wrote.
        cut(garble=trial % 4 == 3)
    devstack.clear_faults()
    log(f"power: {random_cuts} random cuts in {time.monotonic() - started:.0f}s; asked just before the cut: {during}")
    converge("the random cuts")
    # Every pick the power cut off went on at the next start: each photo imported or a duplicate.
    for session, picked in picks.items():
        try:
            answer = a.call("google.picks", {"session": session, "wait_seconds": 60}, timeout=90)
            check("Google Photos picks cut off by the power arrive", [] if answer["state"] == "done" and answer["failed"] == 0
                  and answer["imported"] + answer["duplicates"] == picked else
                  [f"google: {answer['state']}, {answer['imported']} imported and {answer['duplicates']} duplicates of {picked}, "
                   f"{answer['failed']} failed ({answer.get('detail')}); failed picks: "
                   + "; ".join(f"{p.get('filename')}: {p.get('detail')}" for p in answer.get("picks", []) if p.get("state") == "failed")])
        except (Failure, RpcError, OSError) as error:
            check("Google Photos picks cut off by the power arrive", [f"google: {error}"])

    # --- aimed cuts: the daemon dies at a named point, then the power goes.
    aimed = {point: [0, 0] for point in POINTS}
    # The edits' points need a liked photo of the edited quarter with its file here.
    if not acked & photos_with_files() & edited:
        pid = sorted(edited)[0]
        a.call("photos.like", {"id": pid}, timeout=10)
        acked.add(pid)
        wait_until(f"{pid}'s file", lambda: pid in photos_with_files(), timeout=60, interval=0.2)
    for point in POINTS:
        for _ in range(per_point):
            a.stop()
            a.env["SPLASHD_TEST_CRASH_AT"] = point
            offset = a.log_size()
            adopting = []
            # Likes and unlikes asked as the way to the point whose answer the kill cut off: the daemon may
            # have died at the point for another reason first (a download pending from the cuts before),
            # so the store decides them.
            unsure = []

            def on_the_way(pid):
                missed = toggle_like(pid, timeout=10)
                if missed:
                    unsure.append(missed)
                    raise Failure(f"no answer for {missed}: the daemon died first")
            try:
                start()
            except Failure:
                pass  # died at the point on the way up (what it does at start reaches it): still a cut there
            finally:
                a.env.pop("SPLASHD_TEST_CRASH_AT", None)
            try:
                if not a.running():
                    pass
                elif point in ("download.renamed", "pictures.linking"):
                    # A photo with no file yet: its download lands (renamed), then its Pictures entry is made.
                    pid = next((p for p in sorted(movable) if p not in acked and p not in photos_with_files()), None)
                    if pid is None:
                        # Every one liked (the full run's random cuts can leave that): one unliked first,
                        # its file to the cache, and the cache emptied.
                        if movable <= acked:
                            unliked = rng.choice(sorted(movable))
                            on_the_way(unliked)
                            wait_until(f"{unliked}'s file in the cache", lambda: unliked not in {
                                r[0] for r in a.sql("SELECT photo_id FROM photo_files WHERE in_library = 1")}, timeout=30, interval=0.1)
                        a.call("cache.prune", {"keep_bytes": 0})
                        pid = next(p for p in sorted(movable) if p not in acked)
                    on_the_way(pid)
                elif point == "image.moved":
                    with_file = sorted(acked & photos_with_files() & movable)
                    pid = rng.choice(with_file or sorted(acked & movable) or sorted(acked))
                    on_the_way(pid)
                elif point == "edit.removed_in_flight":
                    liked_files = sorted(acked & photos_with_files() & edited)
                    if liked_files:
                        devstack.faults([{"path": "/storage/v1/object/*", "method": "POST", "delay_ms": UPLOAD_DELAY_MS}])
                        edit_id = a.call("edits.create", {"id": rng.choice(liked_files), "filters": rng.choice(FILTERS)},
                                         timeout=60)["edit_id"]
                        acked_edits.add(edit_id)
                        wait_until(f"{edit_id}'s upload in flight", lambda: a.sql(
                            "SELECT count(*) FROM outbox WHERE entity = 'edit' AND entity_id = ? AND state = 'in_flight'",
                            (edit_id,))[0][0], timeout=UPLOAD_DELAY_MS / 2000, interval=0.01)
                        # Committed before the point: removed, whether or not its answer comes.
                        acked_edits.discard(edit_id)
                        acked_removed.add(edit_id)
                        a.call("edits.delete", {"edit_id": edit_id}, timeout=10)
                elif point == "guest.batch_adopted":
                    # Signed out, the guest likes a few photos; signing in adopts them, a batch at a time,
                    # and the first batch is committed before the point.
                    a.call("auth.logout", {}, timeout=30)
                    adopting = rng.sample(pool, 3)
                    for pid in adopting:
                        a.call("photos.like", {"id": pid}, timeout=10)
                    a.call("auth.login", {"email": email, "password": PASSWORD, "adopt_guest": True}, timeout=30)
                    acked.update(adopting)  # answered: adopted whole
                elif point in ("edit.staged", "edit.recorded", "edit.uploaded"):
                    liked_files = sorted(acked & photos_with_files() & edited)
                    if liked_files:
                        try:
                            edit = a.call("edits.create", {"id": rng.choice(liked_files), "filters": rng.choice(FILTERS)}, timeout=60)
                            acked_edits.add(edit["edit_id"])
                        except (Failure, RpcError, OSError):
                            pass  # killed before its answer: not acknowledged
                elif point == "import.copied":
                    new_import_file()
                    try:
                        imported(a.call("library.import", {"path": folder}, timeout=120))
                    except (Failure, RpcError, OSError):
                        pass
            except (Failure, RpcError, OSError):
                pass  # the kill closed the connection before the answer
            finally:
                if point == "edit.removed_in_flight":
                    devstack.clear_faults()
            deadline = time.monotonic() + 60
            while a.running() and time.monotonic() < deadline:
                time.sleep(0.05)
            reached = not a.running() and f"crash point {point}" in a.log_since(offset)
            if point == "guest.batch_adopted" and reached:
                acked.update(adopting)  # the first batch, committed before the point, holds them all
            aimed[point][0] += 1
            if reached:
                aimed[point][1] += 1
            cut(unsure=unsure)

    converge("the aimed cuts")

    # --- cuts at one operation of the store's files: powerfs holds it and the power goes there.
    def likes_until_held(most):
        """Likes and unlikes until one's answer does not come (powerfs holds the writer): that one, or None."""
        for _ in range(most):
            unsure = toggle_like()
            if unsure:
                return unsure
        return None

    def cut_where_held(seed, garble_tail=None):
        """The cut at the operation powerfs holds (its report), or an ordinary cut if it holds none (None).
        A daemon held there dies of SIGKILL only once the cut answers it."""
        if not disk.frozen():
            a.kill9()
            disk.cut(None)
            return None
        a.proc.send_signal(signal.SIGKILL)
        report = disk.cut(seed, garble_tail)
        a.proc.wait(timeout=30)
        a.close_files()
        return report

    def migrations_after_the_cut():
        """The migrations the store that survived the cut has applied, read from a copy (its WAL
        recovered there, not on the disk the daemon starts from)."""
        copy = tempfile.mkdtemp(prefix="power-store-", dir=base)
        try:
            for name in (STORE, WAL):
                if os.path.exists(os.path.join(a.directory, "state", name)):
                    shutil.copyfile(os.path.join(a.directory, "state", name), os.path.join(copy, name))
            connection = sqlite3.connect(os.path.join(copy, STORE))
            try:
                return [row[0] for row in connection.execute("SELECT identifier FROM grdb_migrations")]
            finally:
                connection.close()
        finally:
            shutil.rmtree(copy, ignore_errors=True)

    frozen = {name: {"tried": 0, "held": 0, "aimed": 0, "lost": 0} for name in FROZEN}
    for _ in range(per_point):
        # A migration: the newest one taken back by hand while the daemon is stopped, then run again at
        # start with powerfs holding one of its WAL writes, or the commit's sync.
        name = "store.migrating"
        frozen[name]["tried"] += 1
        a.stop()
        applied = [row[0] for row in a.sql("SELECT identifier FROM grdb_migrations")]
        if applied[-1] != NEWEST_MIGRATION:
            check("the store's newest migration has an undo in part_power.py", [f"undo: none for {applied[-1]!r}"])
            break
        connection = sqlite3.connect(a.db_path)
        connection.execute("PRAGMA synchronous = FULL")
        connection.executescript(UNDO_NEWEST_MIGRATION)
        connection.close()
        descriptor = os.open(os.path.join(a.directory, "state"), os.O_RDONLY | os.O_DIRECTORY)
        os.fsync(descriptor)
        os.close(descriptor)
        disk.arm(WAL, *rng.choice([("write", rng.randint(1, 4)), ("fsync", 1)]))
        last_start[0] = time.time()
        a.start(wait_ready=False)
        deadline = time.monotonic() + 60
        while not disk.frozen() and a.running() and not a.ready.is_set() and time.monotonic() < deadline:
            time.sleep(0.05)
        # Held before READY: the store's first writes at a start are the migration's (READY comes after
        # it). A seeded cut at its commit's sync may keep every block, and the migration with them.
        in_migration = disk.frozen() and not a.ready.is_set()
        if cut_where_held(rng.choice([None, rng.randrange(1 << 30)])) is not None:
            frozen[name]["held"] += 1
            if in_migration:
                frozen[name]["aimed"] += 1
                if NEWEST_MIGRATION not in migrations_after_the_cut():
                    frozen[name]["lost"] += 1
        restart_and_check()
        now_applied = [row[0] for row in a.sql("SELECT identifier FROM grdb_migrations")]
        check("the migration cut off runs again at the next start", [] if now_applied[-1] == NEWEST_MIGRATION else
              [f"migrations: {now_applied[-3:]}"])

        # A checkpoint: likes until SQLite copies the WAL into the database, held at one of its writes
        # to the database file or at that file's sync.
        name = "wal.checkpoint"
        frozen[name]["tried"] += 1
        disk.arm(STORE, *rng.choice([("write", rng.randint(1, 8)), ("fsync", 1)]))
        unsure = likes_until_held(3000)
        if cut_where_held(rng.choice([None, rng.randrange(1 << 30)])) is not None:
            frozen[name]["held"] += 1
            frozen[name]["aimed"] += 1
        restart_and_check(unsure=[unsure] if unsure else [])

        # A commit's sync of the WAL held, and the WAL's last unsynced block garbled by the cut: the torn
        # tail of the log a disk leaves.
        name = "wal.commit_torn"
        frozen[name]["tried"] += 1
        disk.arm(WAL, "fsync", 1)
        unsure = likes_until_held(50)
        report = cut_where_held(rng.randrange(1 << 30), garble_tail=WAL)
        if report is not None:
            frozen[name]["held"] += 1
            if any(path.endswith(WAL) and hit["blocks_garbled"] for path, hit in report.get("files", {}).items()):
                frozen[name]["aimed"] += 1
        restart_and_check(unsure=[unsure] if unsure else [])
    converge("the held cuts")
    what = {"store.migrating": "held, {aimed} of them in the migration run again (at a WAL write or its commit's sync); {lost} "
                               "left the store before it whole (the commit lost), the rest after it whole",
            "wal.checkpoint": "held in a checkpoint, at a write to the database file or its sync; {aimed} cut there",
            "wal.commit_torn": "held at a commit's WAL sync; {aimed} cut with the WAL's last unsynced block garbled"}
    for name, counts in frozen.items():
        figures.add(f"power cuts at {name}", counts["tried"], counts["tried"] - counts["aimed"],
                    f"{counts['held']} " + what[name].format(aimed=counts["aimed"], lost=counts["lost"]))

    for point, (tried, reached) in aimed.items():
        figures.add(f"power cuts at {point}", tried, tried - reached, f"{reached} reached the point, then the power went")

    for name, (count, failures, why) in stats.items():
        figures.add(name, count, failures, ", ".join(f"{k} {v}" for k, v in why.items()))
    total = random_cuts + sum(t for t, _ in aimed.values()) + sum(counts["tried"] for counts in frozen.values())
    figures.note(f"power: {total} cuts ({random_cuts} random, {total - random_cuts} aimed; {garbled_cuts[0]} with a library file "
                 f"garbled after the cut) in {time.monotonic() - started:.0f}s; "
                 f"what they hit: {', '.join(f'{k} {v}' for k, v in disk.hits.items())}; asked just before a random cut: "
                 + (", ".join(f"{method} {n}" for method, n in during.items()) or "nothing else"))
    a.stop()
    b.stop()
