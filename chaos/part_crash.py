"""Part 1: kill -9 at random moments during push (likes and unlikes queued, then sync) on device A, and
during pull and image downloads on device B (same account, another state directory).

After every kill, before the restart: every finished file in the library is exactly what devstack
serves, and `PRAGMA integrity_check` is ok. After the restart: READY=1 arrives, no acknowledged change
is lost, the outbox drains, the server's likes are exactly the local ones (each once), and the
library converges to one verified file per liked photo with nothing partial left.
"""
import hashlib
import json
import os
import threading
import time

from lib import SPLASHD, Cdn, Daemon, Failure, RpcError, fresh_dir, http, http_json, log, populate, sha256, wait_until

PARTIAL_SUFFIXES = (".part", ".download")


class Device:
    def __init__(self, name, daemon):
        self.name = name
        self.daemon = daemon
        self.kill_moments = []


def library_state(daemon, urls, cdn):
    """(torn, partial, files_by_photo): finished files whose bytes differ from the CDN's, partial files,
    and the photo ids with a verified file."""
    torn, partial, verified = [], [], set()
    by_name = {pid.split(":", 1)[1]: pid for pid in urls}
    for path in daemon.library_files():
        name = os.path.basename(path)
        if name.endswith(PARTIAL_SUFFIXES) or ".download" in name:
            partial.append(name)
            continue
        remote = name.split(".", 1)[0]
        pid = by_name.get(remote)
        if pid is None:
            torn.append(f"{name} (unknown photo)")
            continue
        size, digest = cdn.expected(urls[pid])
        if os.path.getsize(path) != size or sha256(path) != digest:
            torn.append(f"{name} ({os.path.getsize(path)} bytes, want {size})")
        else:
            verified.add(pid)
    return torn, partial, verified


def run(devstack, base, figures, trials, rng, short=False):
    devstack.reset()
    a = Daemon(fresh_dir(base, "crash-a"), env=devstack.daemon_env()).start()
    email = a.signup()
    pool = populate(a, 90 if short else 150)
    log(f"device A signed up as {email}; {len(pool)} photos in the pool")
    urls = {}
    for pid in pool:
        urls[pid] = a.call("photos.show", {"id": pid})["urls"]["regular"]
    cdn = Cdn()
    for pid in pool:
        cdn.expected(urls[pid])  # also makes devstack generate every JPEG before the clock starts
    b = Daemon(fresh_dir(base, "crash-b"), env=devstack.daemon_env()).start()
    b.login(email)

    # Slow, piecemeal CDN answers widen the window in which a kill finds a half-written download.
    devstack.faults([{"path": "/cdn/*", "action": "stall", "stall_seconds": 0.3, "truncate_bytes": 20000, "probability": 0.5},
                     {"path": "/cdn/*", "delay_ms": 100}])
    intended = set()  # what the person did, as acknowledged by the daemon
    counts = {k: 0 for k in ("ready", "integrity", "torn", "lost", "server", "duplicate", "library", "partial")}
    ready_times, converge_times, ops_total, pushed_kills, pull_kills = [], [], 0, 0, 0
    started = time.monotonic()

    def kill_after(device, delay):
        time.sleep(delay)
        device.kill9()

    phases = {"outbox not empty": 0, "in flight": 0, "partial file": 0}

    def after_kill(device, label):
        torn, partial, _ = library_state(device, urls, cdn)
        if partial:
            phases["partial file"] += 1
        try:
            states = dict(device.sql("SELECT state, count(*) FROM outbox GROUP BY state"))
            if sum(states.values()):
                phases["outbox not empty"] += 1
            if any("flight" in str(k) for k in states):
                phases["in flight"] += 1
        except Exception:  # noqa: BLE001
            pass
        if torn:
            counts["torn"] += 1
            figures.bug(f"{label}: torn file in the library right after kill -9: {torn[:3]}")
        integrity = device.integrity()
        if integrity != ["ok"]:
            counts["integrity"] += 1
            figures.bug(f"{label}: integrity_check after kill -9: {integrity[:3]}")
        try:
            device.start(timeout=60)
            ready_times.append(device.ready_at - device.started_at)
        except Failure as error:
            counts["ready"] += 1
            figures.bug(f"{label}: no READY=1 after restart: {error}")
            device.kill9()
            device.start(timeout=120)

    def converge(device, label, want):
        """Waits until `device` has exactly `want` liked with verified files and nothing partial."""
        t0 = time.monotonic()
        try:
            wait_until(f"{label} liked set", lambda: device.liked() == want, timeout=90, interval=0.2)
        except Failure as error:
            counts["library"] += 1
            figures.bug(f"{label}: local likes never became the server's: {error}"[:600])
            return

        def library_done():
            torn, partial, verified = library_state(device, urls, cdn)
            return not torn and not partial and verified == want
        try:
            wait_until(f"{label} library", library_done, timeout=120, interval=0.2)
        except Failure:
            torn, partial, verified = library_state(device, urls, cdn)
            if partial:
                counts["partial"] += 1
            counts["library"] += 1
            shows = []
            for pid in sorted(want - verified)[:2]:
                try:
                    shows.append(device.call("photos.show", {"id": pid}).get("download"))
                except Exception as error:  # noqa: BLE001
                    shows.append(repr(error))
            figures.bug(f"{label}: library did not converge: torn={torn[:3]} partial={partial[:3]} "
                        f"missing={sorted(want - verified)[:3]} extra={sorted(verified - want)[:3]} downloads={shows}")
            return
        converge_times.append(time.monotonic() - t0)

    for trial in range(trials):
        # --- device A: likes and unlikes, a sync, and a kill somewhere in the middle.
        label = f"trial {trial + 1} push"
        delay = rng.uniform(0, 0.6)
        killer = threading.Thread(target=kill_after, args=(a, delay))
        acked = {}
        ambiguous = set()
        conn = a.rpc(timeout=10)
        killer.start()
        try:
            for _ in range(rng.randint(3, 25)):
                pid = rng.choice(pool)
                method = "photos.unlike" if pid in intended and rng.random() < 0.6 else "photos.like"
                ambiguous.add(pid)
                conn.call(method, {"id": pid})
                ambiguous.discard(pid)
                acked[pid] = method == "photos.like"
                (intended.add if acked[pid] else intended.discard)(pid)
                ops_total += 1
            conn.call("sync.now", {"wait": False})
            conn.call("sync.now", {"wait": True, "timeout_seconds": 5})
        except (Failure, RpcError, OSError, ValueError):
            pass
        finally:
            conn.close()
        killer.join()
        pushed_kills += 1
        after_kill(a, label)
        local = a.liked()
        for pid, liked in acked.items():
            if pid in ambiguous:
                continue
            if (pid in local) != liked:
                counts["lost"] += 1
                figures.bug(f"{label}: acknowledged {'like' if liked else 'unlike'} of {pid} lost after kill -9")
        for pid in ambiguous:  # cut off by the kill: either outcome is fine, the store decides
            (intended.add if pid in local else intended.discard)(pid)
        if local != intended:
            counts["lost"] += 1
            figures.bug(f"{label}: local likes differ from the intended set: missing {sorted(intended - local)[:3]}, "
                        f"extra {sorted(local - intended)[:3]}")
            intended = set(local)
        try:
            a.sync_until_drained(timeout=90)
            server, duplicates = devstack.server_likes(email)
            active = {pid for pid, on in server.items() if on}
            if duplicates:
                counts["duplicate"] += 1
                figures.bug(f"{label}: duplicate like rows on the server: {duplicates[:3]}")
            if active != intended:
                counts["server"] += 1
                figures.bug(f"{label}: server likes differ: missing {sorted(intended - active)[:3]}, "
                            f"extra {sorted(active - intended)[:3]}")
        except Failure as error:
            counts["server"] += 1
            figures.bug(f"{label}: {error}")
        converge(a, f"{label} (A)", set(intended))

        # --- device B: pull and downloads, killed at a random moment.
        label = f"trial {trial + 1} pull"
        delay = rng.uniform(0, 0.6)
        killer = threading.Thread(target=kill_after, args=(b, delay))
        killer.start()
        try:
            b.call("sync.now", {"wait": False}, timeout=5)
        except (Failure, RpcError, OSError, ValueError):
            pass
        killer.join()
        pull_kills += 1
        after_kill(b, label)
        try:
            b.call("sync.now", {"wait": False})
        except (Failure, RpcError, OSError):
            pass
        converge(b, f"{label} (B)", set(intended))
        if (trial + 1) % 10 == 0:
            log(f"{trial + 1}/{trials} trials, {len(intended)} liked, {ops_total} ops, "
                f"{sum(counts.values())} failures, {time.monotonic() - started:.0f}s")

    elapsed = time.monotonic() - started
    b.stop()
    if edit_import_available(a):
        edits_and_imports(devstack, base, figures, a, email, sorted(intended), urls, cdn, max(5, trials // 2), rng)
    else:
        figures.note("edit and import: not measured (this daemon has no edits.create / library.import)")
    aimed_kills(devstack, base, figures, a, email, pool, urls, cdn, 3 if short else max(20, trials // 10), rng)
    a.stop()
    n = trials
    figures.add("kill -9 during push: READY=1 after every restart (A and B)", 2 * n, counts["ready"],
                f"max start {max(ready_times):.2f}s" if ready_times else "")
    figures.add("PRAGMA integrity_check ok after every kill", 2 * n, counts["integrity"])
    figures.add("no torn file in the library at any kill", 2 * n, counts["torn"])
    figures.add("no acknowledged like/unlike lost", n, counts["lost"], f"{ops_total} acknowledged ops")
    figures.add("server likes == intended set after drain", n, counts["server"])
    figures.add("no duplicate like row on the server", n, counts["duplicate"])
    figures.add("library converges (A after push, B after pull): one verified file per like, nothing partial",
                2 * n, counts["library"],
                f"max convergence {max(converge_times):.1f}s" if converge_times else "")
    figures.note(f"{n} trials ({pushed_kills} kills during push+downloads on A, {pull_kills} during pull+downloads on B) "
                 f"in {elapsed:.0f}s; final like set {len(intended)} of a pool of {len(pool)}")
    figures.note("what the kills hit (counted from the store and the library right after each kill): " +
                 ", ".join(f"{k}: {v} of {2 * n}" for k, v in phases.items()) +
                 "; CDN answers were delayed 100 ms and half of them stalled 0.3 s after 20 kB, to widen the windows")
    devstack.clear_faults()


def edit_import_available(daemon):
    methods = json.dumps(daemon.call("daemon.describe"))
    return "edits.create" in methods and "library.import" in methods


FILTERS = [[{"filter": "sepia", "params": [0.8]}], [{"filter": "mono", "params": []}],
           [{"filter": "vignette", "params": [1, 0.6]}, {"filter": "chrome", "params": []}],
           [{"filter": "blur", "params": [4]}], [{"filter": "exposure", "params": [1]}, {"filter": "sharpen", "params": [0.5]}]]


def complete_jpeg(path):
    with open(path, "rb") as f:
        head = f.read(3)
        f.seek(max(0, os.path.getsize(path) - 2))
        tail = f.read(2)
    return head == b"\xff\xd8\xff" and tail == b"\xff\xd9"


def edits_and_imports(devstack, base, figures, a, email, liked, urls, cdn, trials, rng):
    """kill -9 during edits.create / edits.delete (then the upload) and during library.import."""
    uid = devstack.user_id(email)
    folder = fresh_dir(base, "crash-import")
    counts = {k: 0 for k in ("ready", "integrity", "torn", "lost", "server", "orphan", "import")}
    intended = {e["edit_id"] for e in a.call("edits.list")["edits"]}
    phases = {"edit file staged (.part)": 0, "edit op queued": 0, "import in progress": 0}
    files_written = 0
    known_orphans = set()
    started = time.monotonic()

    def kill_after(delay):
        time.sleep(delay)
        a.kill9()

    def restart(label):
        finished = [p for p in a.library_files() if ".edit-" in p and p.endswith(".jpg")]
        torn = [os.path.basename(p) for p in finished if not complete_jpeg(p)]
        if any(p.endswith(".part") and ".edit-" in p for p in a.library_files()):
            phases["edit file staged (.part)"] += 1
        if torn:
            counts["torn"] += 1
            figures.bug(f"{label}: torn edit file right after kill -9: {torn[:3]}")
        integrity = a.integrity()
        if integrity != ["ok"]:
            counts["integrity"] += 1
            figures.bug(f"{label}: integrity_check {integrity[:3]}")
        try:
            a.start(timeout=60)
        except Failure as error:
            counts["ready"] += 1
            figures.bug(f"{label}: no READY=1: {error}")
            a.kill9()
            a.start(timeout=120)

    for trial in range(trials):
        # --- an edit (or a removal), then the upload, killed at a random moment.
        label = f"edit trial {trial + 1}"
        acked_new, acked_gone, in_flight_removal = set(), set(), set()
        killer = threading.Thread(target=kill_after, args=(rng.uniform(0, 1.5),))
        conn = a.rpc(timeout=30)
        killer.start()
        try:
            for _ in range(rng.randint(1, 3)):
                if intended and rng.random() < 0.25:
                    edit_id = rng.choice(sorted(intended))
                    in_flight_removal.add(edit_id)  # cut off by the kill, it may or may not have happened
                    conn.call("edits.delete", {"edit_id": edit_id})
                    in_flight_removal.discard(edit_id)
                    acked_gone.add(edit_id)
                    intended.discard(edit_id)
                else:
                    result = conn.call("edits.create", {"id": rng.choice(liked), "filters": rng.choice(FILTERS)})
                    acked_new.add(result["edit_id"])
                    intended.add(result["edit_id"])
            conn.call("sync.now", {"wait": True, "timeout_seconds": 5})
        except (Failure, RpcError, OSError, ValueError):
            pass
        finally:
            conn.close()
        killer.join()
        try:
            if a.sql("SELECT count(*) FROM outbox WHERE entity LIKE 'edit%'")[0][0]:
                phases["edit op queued"] += 1
        except Exception:  # noqa: BLE001
            pass
        restart(label)
        local = {e["edit_id"]: e for e in a.call("edits.list")["edits"]}
        # Created and acknowledged in this trial, and not removed (acknowledged or cut off) since.
        kept = acked_new - acked_gone - in_flight_removal
        if kept - set(local) or acked_gone & set(local):
            counts["lost"] += 1
            figures.bug(f"{label}: acknowledged edits lost {sorted(kept - set(local))[:2]} or removals undone "
                        f"{sorted(acked_gone & set(local))[:2]}")
        intended = set(local)  # an edit cut off by the kill may or may not exist; the store decides
        try:
            a.sync_until_drained(timeout=120)
            wrong = server_edit_problems(devstack, uid, local)
            if wrong:
                counts["server"] += 1
                figures.bug(f"{label}: " + "; ".join(text for _, text in wrong[:4]))
        except Failure as error:
            counts["server"] += 1
            figures.bug(f"{label}: {error}")
        files = {p for p in a.library_files() if ".edit-" in p}
        orphans = sorted(os.path.basename(p) for p in files if not any(p == e["path"] for e in local.values()))
        new_orphans = [o for o in orphans if o not in known_orphans]
        if new_orphans:
            known_orphans.update(new_orphans)
            counts["orphan"] += 1
            why = []
            for name in new_orphans[:3]:
                edit_id = name.split(".edit-", 1)[1].rsplit(".jpg", 1)[0]
                row = a.sql("SELECT deleted_at FROM edits WHERE id = ?", (edit_id,))
                why.append(f"{name} ({'its edit was removed (tombstone ' + str(row[0][0]) + ')' if row else 'no edits row at all'})")
            figures.bug(f"{label}: edit files with no edit after the restart, never swept: {why}")

        # --- an import into a folder that grows by a few new files each trial, killed at a random moment.
        label = f"import trial {trial + 1}"
        for _ in range(3):
            pid = rng.choice(sorted(urls))
            status, _, data = http("GET", urls[pid].split("?")[0] + f"?w={rng.randint(300, 900)}")
            if status == 200:
                files_written += 1
                with open(os.path.join(folder, f"f{files_written:04d}.jpg"), "wb") as f:
                    f.write(data)
        killer = threading.Thread(target=kill_after, args=(rng.uniform(0, 1.0),))
        killer.start()
        try:
            a.call("library.import", {"path": folder}, timeout=30)
        except (Failure, RpcError, OSError, ValueError):
            phases["import in progress"] += 1
        killer.join()
        restart(label)
        try:
            bad = reimport_problems(a, folder, files_written)
            if bad:
                counts["import"] += 1
                figures.bug(f"{label}: " + "; ".join(bad[:3]))
        except (Failure, RpcError) as error:
            counts["import"] += 1
            figures.bug(f"{label}: re-import failed: {error}")
        if (trial + 1) % 10 == 0:
            log(f"{trial + 1}/{trials} edit/import trials, {len(intended)} edits, {files_written} files, "
                f"{sum(counts.values())} failures, {time.monotonic() - started:.0f}s")
    n = trials
    figures.add("kill -9 during edit/import: READY=1 after every restart", 2 * n, counts["ready"])
    figures.add("kill -9 during edit/import: integrity_check ok", 2 * n, counts["integrity"])
    figures.add("no torn edit file at any kill (every final .edit-*.jpg a complete JPEG)", 2 * n, counts["torn"])
    figures.add("no acknowledged edit or removal lost", n, counts["lost"])
    figures.add("server edits rows and Storage objects == local edits after drain (bytes equal)", n, counts["server"])
    figures.add("no orphan edit file after restart (counted once per new orphan)", n, counts["orphan"],
                f"{len(known_orphans)} orphan files at the end")
    figures.add("import after a kill: every file accounted once, every local photo's file present and hashing to its id",
                n, counts["import"], f"{files_written} files imported over {n} trials")
    figures.note(f"edit/import: {n} trials in {time.monotonic() - started:.0f}s; what the kills hit: " +
                 ", ".join(f"{k}: {v} of {n}" for k, v in phases.items()))


def file_path(daemon, path, in_library):
    """A photo_files path as a file: absolute as it is, else under the data (library) or cache directory."""
    if path.startswith("/"):
        return path
    return os.path.join(daemon.data_dir if in_library else daemon.cache_dir, path)


def server_edit_problems(devstack, uid, local):
    """How the server differs from the local live edits `local` ({edit_id: edits.list entry}): its live
    `edits` rows (read with the service role) and the Storage objects, byte for byte. A list of
    (key, text); the key names the edit and the kind of difference, to tell a new one from one reported."""
    service = {"apikey": devstack.service, "Authorization": "Bearer " + devstack.service}
    rows = devstack.service_get(f"edits?user_id=eq.{uid}&select=id,storage_path,deleted_at")
    active = {r["id"]: r for r in rows if r["deleted_at"] is None}
    intended = set(local)
    problems = []
    for edit_id in sorted(intended - set(active)):
        problems.append((("missing row", edit_id), f"local edit {edit_id} has no live edits row on the server"))
    for edit_id in sorted(set(active) - intended):
        problems.append((("extra row", edit_id), f"the server's edits row {edit_id} is live, but no such live edit here"))
    for edit_id in sorted(intended & set(active)):
        path = local[edit_id].get("path")
        status, _, data = http("GET", devstack.backend + f"/storage/v1/object/edits/{active[edit_id]['storage_path']}", None, service)
        if not path or not os.path.exists(path):
            problems.append((("no file", edit_id), f"local edit {edit_id} has no rendering here ({path})"))
        elif status != 200 or hashlib.sha256(data).hexdigest() != sha256(path):
            problems.append((("object", edit_id), f"Storage object of {edit_id}: HTTP {status}, {len(data)} bytes vs local "
                                                  f"{os.path.getsize(path)}, {'same' if status == 200 and data == open(path, 'rb').read() else 'different'} bytes"))
    status, listing = http_json("POST", devstack.backend + "/storage/v1/object/list/edits", {"prefix": f"{uid}/", "limit": 10000}, service)
    objects = {o["name"].rsplit(".", 1)[0] for o in listing} if isinstance(listing, list) else set()
    for name in sorted(objects - intended):
        row = next((r for r in rows if r["id"] == name), None)
        state = "no edits row" if row is None else ("row tombstoned" if row["deleted_at"] else "row live")
        problems.append((("leftover object", name), f"Storage object {uid}/{name}.jpg of a removed or unknown edit left ({state})"))
    return problems


def reimport_problems(daemon, folder, files_written):
    """Imports `folder` again: every one of its `files_written` files must be accounted for once, and every
    local photo's file row must point at a file that hashes to the photo's id and checksum."""
    result = daemon.call("library.import", {"path": folder}, timeout=300)
    accounted = len(result["imported"]) + result["already_imported"] + len(result["duplicates"]) + len(result["failed"])
    rows = daemon.sql("SELECT p.id, f.path, f.in_library, f.checksum FROM photos p JOIN photo_files f ON f.photo_id = p.id "
                      "WHERE p.id LIKE 'local:%'")
    bad = []
    if accounted != files_written:
        bad.append(f"the re-import accounts for {accounted} of {files_written} files: {str(result)[:200]}")
    if result["failed"]:
        bad.append(f"files failed: {result['failed'][:2]}")
    for photo_id, path, in_library, checksum in rows:
        path = file_path(daemon, path, in_library)
        if not os.path.exists(path):
            bad.append(f"{photo_id} points at a missing {path}")
        elif not sha256(path).startswith(photo_id.split(":", 1)[1]) or (checksum and checksum != sha256(path)):
            bad.append(f"{photo_id}: {path} does not hash to its id/checksum")
    ids = [r[0] for r in rows]
    if len(ids) != len(set(ids)):
        bad.append("a local photo has two file rows")
    return bad


# ---------------------------------------------------------------------------------------------------
# Aimed kills. SPLASHD_TEST_CRASH_AT=<point> makes splashd log `crash point <point>` and SIGKILL itself
# the first time it reaches the point; a trial starts it so, drives exactly the action that reaches the
# point, and restarts it without the variable.

CRASH_POINTS = ("edit.staged", "edit.recorded", "edit.uploaded", "download.renamed", "image.moved", "import.copied",
                "edit.removed_in_flight")  # the last leaves an upload in flight: any op it strands is reported once
# In a file's name, what a writer's unfinished piece carries; a finished file is an image by its name.
STAGED_MARKS = (".part", ".download", ".moving", ".pulled-", ".tmp", ".staged", ".copying", ".importing")
IMAGE_NAMES = (".jpg", ".jpeg", ".png", ".webp")
UPLOAD_DELAY_MS = 4000


def tree_files(*roots):
    for root in roots:
        for base, _, names in os.walk(root):
            for name in names:
                yield os.path.join(base, name)


def staged_name(name):
    return name.startswith(".") or any(mark in name for mark in STAGED_MARKS) or not name.lower().endswith(IMAGE_NAMES)


def disk_state(daemon):
    """(staged, orphans, broken) in the data and cache directories: files named as a writer's unfinished
    piece; finished files no photo_files row points at; rows whose file is missing or does not hash to
    their checksum. Paths relative to the daemon's directory."""
    rows = daemon.sql("SELECT photo_id, variant, path, in_library, checksum FROM photo_files")
    wanted = {file_path(daemon, path, in_library): (photo_id, variant, checksum) for photo_id, variant, path, in_library, checksum in rows}
    staged, orphans, broken = [], [], []
    for path in tree_files(daemon.data_dir, daemon.cache_dir):
        rel = os.path.relpath(path, daemon.directory)
        if staged_name(os.path.basename(path)):
            staged.append(rel)
        elif path not in wanted:
            orphans.append(rel)
    for path, (photo_id, variant, checksum) in wanted.items():
        rel = os.path.relpath(path, daemon.directory)
        if not os.path.exists(path):
            broken.append(f"{photo_id} {variant}: its row points at a missing {rel}")
        elif checksum and sha256(path) != checksum:
            broken.append(f"{photo_id} {variant}: {rel} does not hash to its row's checksum")
    return sorted(staged), sorted(orphans), sorted(broken)


def torn_files(daemon, urls, cdn):
    """Finished files that are not whole: a library rendition not byte for byte what devstack serves, any
    other JPEG without its end marker."""
    by_name = {pid.split(":", 1)[1]: pid for pid in urls}
    torn = []
    for path in tree_files(daemon.data_dir, daemon.cache_dir):
        name = os.path.basename(path)
        if staged_name(name) or not name.endswith(".jpg"):
            continue
        remote, _, rest = name.partition(".")
        if rest == "regular.jpg" and remote in by_name:
            size, digest = cdn.expected(urls[by_name[remote]])
            if os.path.getsize(path) != size or sha256(path) != digest:
                torn.append(f"{os.path.relpath(path, daemon.directory)} ({os.path.getsize(path)} bytes, want {size})")
        elif not complete_jpeg(path):
            torn.append(f"{os.path.relpath(path, daemon.directory)} (no JPEG end marker)")
    return torn


def binary_knows_crash_points():
    import mmap
    try:
        with open(SPLASHD, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return data.find(b"SPLASHD_TEST_CRASH_AT") >= 0
    except (OSError, ValueError):
        return False


def aimed_kills(devstack, base, figures, a, email, pool, urls, cdn, per_point, rng):
    """`per_point` kills at each of CRASH_POINTS, each followed by the part's invariants."""
    devstack.clear_faults()
    uid = devstack.user_id(email)
    knows = binary_knows_crash_points()
    started = time.monotonic()
    likes = a.liked()

    # Photos never downloaded (for download.renamed and image.moved), beyond the pool the random trials used.
    fresh_needed = per_point + (per_point + 1) // 2 + 2
    have_files = {r[0] for r in a.sql("SELECT DISTINCT photo_id FROM photo_files")}
    fresh = [p for p in populate(a, len(pool) + fresh_needed + 60) if p not in pool and p not in have_files and p not in likes]
    for pid in fresh:
        urls[pid] = a.call("photos.show", {"id": pid})["urls"]["regular"]
        cdn.expected(urls[pid])
    # Images to import: devstack photos this daemon has never seen, so none is a near-duplicate of a library photo.
    in_store = {r[0] for r in a.sql("SELECT id FROM photos")}
    import_urls, page = [], 1
    while len(import_urls) < 2 * per_point + 2 and page <= 17:
        for photo in devstack.unsplash_photos(30, page):
            if "unsplash:" + photo["id"] not in in_store:
                import_urls.append(photo["urls"]["regular"])
        page += 1
    folder = fresh_dir(base, "crash-aimed-import")
    files_written = 0

    def add_import_files(n):
        nonlocal files_written
        for _ in range(n):
            if not import_urls:
                return
            status, _, data = http("GET", import_urls.pop(0).split("?")[0] + f"?w={rng.randint(400, 900)}")
            if status == 200:
                files_written += 1
                with open(os.path.join(folder, f"a{files_written:04d}.jpg"), "wb") as f:
                    f.write(data)

    add_import_files(2)  # imported now, so that every trial's re-import has files to account for
    a.call("library.import", {"path": folder}, timeout=120)

    stats = {p: {"trials": 0, "killed": 0, "window": 0, "failed": 0, "why": {}} for p in CRASH_POINTS}
    known = {"stuck": set(), "rejected": set(), "server": set()}
    restart_times = []
    moved_back = None  # image.moved: the photo whose file the last trial sent to the cache, re-liked next
    prepared = None

    def arm(point):
        a.stop()
        a.env["SPLASHD_TEST_CRASH_AT"] = point
        offset = a.log_size()
        try:
            a.start(timeout=60)
        except Failure:
            pass  # died before READY=1: what killed it is looked at below
        finally:
            a.env.pop("SPLASHD_TEST_CRASH_AT", None)
        return offset

    def dies(done, timeout):
        """True when the daemon dies within `timeout`, or within a second of `done()` (the action finished)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and a.running():
            try:
                if done():
                    break
            except Exception:  # noqa: BLE001 - the store may be busy; look again
                pass
            time.sleep(0.02)
        grace = time.monotonic() + 1.0
        while time.monotonic() < grace and a.running():
            time.sleep(0.02)
        return not a.running()

    def file_row(pid):
        rows = a.sql("SELECT in_library FROM photo_files WHERE photo_id = ? AND variant = 'regular'", (pid,))
        return rows[0][0] if rows else None

    def next_fresh():
        """A photo with no file anywhere; when the searched ones run out, the cache is emptied for more."""
        if not fresh:
            a.call("cache.prune", {"keep_bytes": 0})
            with_files = {r[0] for r in a.sql("SELECT DISTINCT photo_id FROM photo_files")}
            fresh.extend(p for p in sorted(urls) if p not in with_files and p not in likes)
        if not fresh:
            raise Failure("no photo without a file is left to like")
        return fresh.pop(0)

    def live_edits():
        return {r[0] for r in a.sql("SELECT id FROM edits WHERE deleted_at IS NULL")}

    def edit_photo():
        rows = a.sql("SELECT photo_id FROM photo_files WHERE in_library = 1 AND variant = 'regular'")
        return rng.choice(sorted({r[0] for r in rows} & likes))

    def drain():
        """Problems with the outbox after a drain: ops still pending or in flight (one retried four times
        is not going to make it), ops the server refused. Each op is reported once."""
        deadline = time.monotonic() + 30
        while True:
            try:
                a.call("sync.now", {"wait": True, "timeout_seconds": 5}, timeout=30)
            except (Failure, RpcError, OSError, ValueError):
                pass
            rows = a.sql("SELECT op_id, entity, entity_id, op, state, attempts, last_error FROM outbox")
            open_ops = [r for r in rows if r[4] in ("pending", "in_flight") and r[0] not in known["stuck"]]
            refused = [r for r in rows if r[4] == "rejected" and r[0] not in known["rejected"]]
            if not open_ops or time.monotonic() > deadline or any(r[5] >= 4 for r in open_ops):
                break
            time.sleep(0.2)
        problems = []
        for kind, ops in (("stuck", open_ops), ("rejected", refused)):
            known[kind].update(r[0] for r in ops)
            if ops:
                problems.append(f"{len(ops)} ops {'never drained' if kind == 'stuck' else 'refused by the server'}: " + "; ".join(
                    f"{entity} {op} {entity_id} ({state}, {attempts} attempts, last error {last_error!r})"
                    for _, entity, entity_id, op, state, attempts, last_error in ops[:2]))
        return problems

    def half_done(point, edits_before, acked_new, removed, pid, want):
        """Right after a kill at `point`: None when the store, the files and the server hold the half-done
        state the point names (what the restart must mend), else what is there instead."""
        if point == "edit.staged":
            parts = [p for p in tree_files(a.library) if ".edit-" in p and p.endswith(".part")]
            return None if parts else "no staged .edit-*.part file in the library"
        if point == "edit.recorded":
            new = live_edits() - edits_before
            ops = [r[0] for e in new for r in a.sql("SELECT attempts FROM outbox WHERE entity = 'edit' AND entity_id = ?", (e,))]
            return None if len(new) == 1 and ops == [0] else f"new edits {sorted(new)}, their ops' attempts {ops}"
        if point == "edit.uploaded":
            edit_id = next(iter(acked_new), None)
            if edit_id is None:
                return "no acknowledged edit"
            service = {"apikey": devstack.service, "Authorization": "Bearer " + devstack.service}
            status, _, _ = http("GET", devstack.backend + f"/storage/v1/object/edits/{uid}/{edit_id}.jpg", None, service)
            rows = devstack.service_get(f"edits?id=eq.{edit_id}&select=id")
            return None if status == 200 and not rows else f"Storage object HTTP {status}, server rows {rows}"
        if point == "edit.removed_in_flight":
            edit_id = next(iter(removed), None)
            if edit_id is None:
                return "no removal"
            tomb = a.sql("SELECT deleted_at FROM edits WHERE id = ?", (edit_id,))
            ops = a.sql("SELECT op, state FROM outbox WHERE entity = 'edit' AND entity_id = ? ORDER BY seq", (edit_id,))
            ok = tomb and tomb[0][0] and ("upsert", "in_flight") in ops
            return None if ok else f"edit row {tomb}, its ops {ops}"
        if point == "image.moved":
            rows = a.sql("SELECT path, in_library FROM photo_files WHERE photo_id = ? AND variant = 'regular'", (pid,))
            if not rows:
                return "no file row"
            path, in_library = rows[0]
            old = file_path(a, path, in_library)
            new = (os.path.join(a.cache_dir, "images", path[len("library/"):]) if in_library
                   else os.path.join(a.data_dir, "library", path[len("images/"):]))
            moved = in_library == 1 - want and not os.path.exists(old) and os.path.exists(new)
            return None if moved else f"row in_library={in_library} {path}, old place {os.path.exists(old)}, new place {os.path.exists(new)}"
        if point == "download.renamed":
            # The library file's row (its thumbnail may be in the cache: searches fetch them in the background).
            rows = a.sql("SELECT count(*) FROM photo_files WHERE photo_id = ? AND variant = 'regular'", (pid,))[0][0]
            final = os.path.join(a.library, "unsplash", pid.split(":", 1)[1] + ".regular.jpg")
            return None if not rows and os.path.exists(final) else f"{rows} file rows, final file there: {os.path.exists(final)}"
        if point == "import.copied":
            ids = {r[0] for r in a.sql("SELECT id FROM photos WHERE id LIKE 'local:%'")}
            waiting = [n for n in sorted(os.listdir(folder)) if "local:" + sha256(os.path.join(folder, n))[:16] not in ids]
            return None if waiting else "every file of the folder already has its photo row"
        return None

    def fail(point, label, kind, text):
        why = stats[point]["why"]
        why[kind] = why.get(kind, 0) + 1
        figures.bug(f"{label}: {text}"[:1500])

    for point in CRASH_POINTS:
        for trial in range(per_point):
            label = f"aimed kill {trial + 1} at {point}"
            stats[point]["trials"] += 1
            failed_before = sum(stats[point]["why"].values())
            edits_before = live_edits()
            _, orphans_before, broken_before = disk_state(a)
            acked_new, acked_gone, removed = set(), set(), set()  # edits; `removed`: removal committed at the kill
            extra_edits = 0  # edits committed at the kill whose id the caller never heard
            like_change = None  # (photo, liked?): a like or unlike committed before the point, cut off by the kill
            not_reached = None  # why the action ended without reaching the point

            # --- preparation, in the running daemon without the variable.
            if point == "image.moved" and not (moved_back and file_row(moved_back) == 0 and moved_back not in likes):
                moved_back = None
                prepared = next_fresh()
                a.call("photos.like", {"id": prepared})
                likes.add(prepared)
                try:
                    wait_until(f"{prepared} in the library", lambda: file_row(prepared) == 1, timeout=60, interval=0.1)
                except Failure as error:
                    fail(point, label, "setup", f"the liked photo's file never arrived: {error}")
            if point == "import.copied":
                add_import_files(2)

            # --- the armed daemon and the one action that reaches the point.
            offset = arm(point)
            conn = None
            try:
                if not a.running():
                    not_reached = "died while starting, before the action"
                elif point in ("edit.staged", "edit.recorded", "edit.uploaded", "edit.removed_in_flight"):
                    if point == "edit.removed_in_flight":
                        devstack.faults([{"path": "/storage/v1/object/*", "method": "POST", "delay_ms": UPLOAD_DELAY_MS}])
                    conn = a.rpc(timeout=60)
                    try:
                        edit_id = conn.call("edits.create", {"id": edit_photo(), "filters": rng.choice(FILTERS)})["edit_id"]
                        acked_new.add(edit_id)
                    except (Failure, RpcError, OSError, ValueError) as error:
                        edit_id = None
                        if a.running() and isinstance(error, RpcError):
                            not_reached = f"edits.create failed: {error}"
                    if point in ("edit.staged", "edit.recorded"):
                        if edit_id is None and point == "edit.recorded":
                            extra_edits = 1  # committed, then killed before its answer: its id is not known here
                        if not dies(lambda: edit_id is not None, 10) and not not_reached:
                            not_reached = f"edits.create answered {edit_id} and the daemon lives on"
                    elif point == "edit.uploaded" and edit_id:
                        def pushed():
                            return not a.sql("SELECT count(*) FROM outbox WHERE entity = 'edit' AND entity_id = ?", (edit_id,))[0][0]
                        if not dies(pushed, 30):
                            not_reached = "the edit's upload op left the outbox and the daemon lives on"
                    elif point == "edit.removed_in_flight" and edit_id:
                        def in_flight():
                            return a.sql("SELECT count(*) FROM outbox WHERE entity = 'edit' AND entity_id = ? AND state = 'in_flight'",
                                         (edit_id,))[0][0]
                        try:
                            wait_until(f"{edit_id}'s upload in flight", in_flight, timeout=UPLOAD_DELAY_MS / 2000, interval=0.01)
                        except Failure as error:
                            not_reached = f"the upload never seen in flight ({error}); edits.delete not called"
                        if not not_reached:
                            removed.add(edit_id)
                            try:
                                conn.call("edits.delete", {"edit_id": edit_id})
                                acked_gone.add(edit_id)
                            except (Failure, RpcError, OSError, ValueError) as error:
                                if a.running() and isinstance(error, RpcError):
                                    not_reached = f"edits.delete failed: {error}"
                            still = in_flight()
                            if not dies(lambda: True, 0) and not not_reached:
                                not_reached = (f"edits.delete answered while the upload was {'still' if still else 'no longer'} "
                                               "in flight, and the daemon lives on")
                elif point == "download.renamed":
                    pid = next_fresh()
                    like_change = (pid, True)
                    a.call("photos.like", {"id": pid}, timeout=10)
                    likes.add(pid)
                    if not dies(lambda: file_row(pid) is not None, 60):
                        not_reached = f"{pid} was downloaded and recorded, and the daemon lives on"
                elif point == "image.moved":
                    if moved_back:  # its file is in the cache since the last trial: a like moves it back
                        pid, moved_back, want = moved_back, None, 1
                    else:  # liked and downloaded above: an unlike moves it to the cache
                        pid, moved_back, want = prepared, prepared, 0
                    like_change = (pid, want == 1)
                    a.call("photos.like" if want else "photos.unlike", {"id": pid}, timeout=10)
                    (likes.add if want else likes.discard)(pid)
                    if not dies(lambda: file_row(pid) == want, 30):
                        not_reached = f"{pid}'s file moved to the {'library' if want else 'cache'} and was recorded, and the daemon lives on"
                elif point == "import.copied":
                    try:
                        result = a.call("library.import", {"path": folder}, timeout=120)
                        if not dies(lambda: True, 0):
                            not_reached = (f"library.import answered ({len(result['imported'])} imported, "
                                           f"{len(result['duplicates'])} duplicates) and the daemon lives on")
                    except (Failure, RpcError, OSError, ValueError) as error:
                        if not dies(lambda: False, 10):
                            not_reached = f"library.import failed and the daemon lives on: {error}"
            except (Failure, RpcError, OSError, ValueError) as error:
                # A connection closed by the kill comes a moment before the process is gone: wait for it.
                if not dies(lambda: True, 0) and not not_reached:
                    not_reached = f"the action failed: {error}"
            finally:
                if conn:
                    conn.close()

            # --- did it die there, by SIGKILL, saying so?
            died = dies(lambda: True, 0) if not not_reached else not a.running()
            if died:
                a.kill9()  # reaps it and closes its files; it is dead already
            text = a.log_since(offset)
            if died and a.proc.returncode != -9:
                fail(point, label, "not SIGKILL", f"splashd exited {a.proc.returncode}, not by SIGKILL: {text[-600:]}")
            elif died and f"crash point {point}" not in text:
                fail(point, label, "not reached", f"point {point} not reached: killed by SIGKILL but its log has no "
                                                  f"`crash point {point}` line: {text[-600:]}")
            elif not died:
                fail(point, label, "not reached", f"point {point} not reached: {not_reached or 'the daemon lives on'}"
                     + ("" if knows else " (this splashd has no SPLASHD_TEST_CRASH_AT)"))
                a.stop()
            else:
                stats[point]["killed"] += 1
                if like_change:  # committed before the point: the kill cannot have undone it
                    (likes.add if like_change[1] else likes.discard)(like_change[0])
                try:
                    instead = half_done(point, edits_before, acked_new, removed, *(like_change or (None, None)))
                except (Failure, OSError, ValueError) as error:
                    instead = f"could not be looked at: {error}"
                if instead:
                    fail(point, label, "window", f"killed at {point}, but what it leaves half-done is not there: {instead}")
                else:
                    stats[point]["window"] += 1
            reached = died and a.proc.returncode == -9 and f"crash point {point}" in text
            extra = extra_edits if reached else 0
            devstack.clear_faults()

            # --- before the restart: whole files, a sound store.
            torn = torn_files(a, urls, cdn)
            if torn:
                fail(point, label, "torn", f"torn file right after the kill: {torn[:3]}")
            integrity = a.integrity()
            if integrity != ["ok"]:
                fail(point, label, "integrity", f"integrity_check after the kill: {integrity[:3]}")
            restarted = a.log_size()
            try:
                a.start(timeout=60)
                restart_times.append(a.ready_at - a.started_at)
            except Failure as error:
                fail(point, label, "ready", f"no READY=1 after the restart: {error}")
                a.kill9()
                a.start(timeout=120)

            # --- after the restart: nothing acknowledged lost, the outbox drains, the server agrees.
            local = {e["edit_id"]: e for e in a.call("edits.list")["edits"]}
            required = (edits_before | acked_new) - acked_gone - removed
            new = set(local) - required
            lost = []
            if required - set(local):
                lost.append(f"acknowledged edits gone {sorted(required - set(local))[:2]}")
            if (acked_gone | removed) & set(local):
                lost.append(f"a removal committed at the kill undone: {sorted((acked_gone | removed) & set(local))[:2]}")
            if len(new) != extra:
                lost.append(f"{len(new)} edits appeared that the kill should have left {'as one' if extra else 'unrecorded'}: {sorted(new)[:2]}")
            local_likes = a.liked()
            if local_likes != likes:
                lost.append(f"likes differ from the acknowledged ones: missing {sorted(likes - local_likes)[:2]}, "
                            f"extra {sorted(local_likes - likes)[:2]}")
            if lost:
                fail(point, label, "lost", "; ".join(lost))
            likes = set(local_likes)
            outbox = drain()
            if outbox:
                said = [line for line in a.log_since(restarted).splitlines() if "push" in line and ("fail" in line or "refused" in line)]
                fail(point, label, "drain", "; ".join(outbox) + (f"; the log after the restart: {said[-1][:300]!r}" if said else ""))
            try:
                server, duplicates = devstack.server_likes(email)
                active = {pid for pid, on in server.items() if on}
                if active != likes or duplicates:
                    fail(point, label, "server", f"server likes differ: missing {sorted(likes - active)[:2]}, extra "
                                                 f"{sorted(active - likes)[:2]}, duplicates {duplicates[:2]}")
                wrong = [(key, text) for key, text in server_edit_problems(devstack, uid, local) if key not in known["server"]]
                known["server"].update(key for key, _ in wrong)
                if wrong:
                    fail(point, label, "server", "; ".join(text for _, text in wrong[:3]))
            except Failure as error:
                fail(point, label, "server", str(error))

            # --- once settled: nothing staged or partial left, no new orphan, every row's file whole.
            def settled():
                staged, orphans, broken = disk_state(a)
                new_orphans = [o for o in orphans if o not in orphans_before]
                new_broken = [b for b in broken if b not in broken_before]
                return (staged, new_orphans, new_broken) if not (staged or new_orphans or new_broken) else None
            try:
                wait_until("the data directory settled", settled, timeout=10, interval=0.2)
            except Failure:
                staged, orphans, broken = disk_state(a)
                left = []
                if staged:
                    left.append(f"staged or partial files left: {staged[:3]}")
                if [o for o in orphans if o not in orphans_before]:
                    left.append(f"orphan files (no row): {[o for o in orphans if o not in orphans_before][:3]}")
                if [b for b in broken if b not in broken_before]:
                    left.append("rows without their file: " + "; ".join([b for b in broken if b not in broken_before][:3]))
                fail(point, label, "files", "; ".join(left))
            try:
                bad = reimport_problems(a, folder, files_written)
                if bad:
                    fail(point, label, "import", "; ".join(bad[:3]))
            except (Failure, RpcError) as error:
                fail(point, label, "import", f"re-import failed: {error}")
            if sum(stats[point]["why"].values()) > failed_before:
                stats[point]["failed"] += 1
        log(f"{point}: {stats[point]['killed']}/{stats[point]['trials']} kills at the point, "
            f"{stats[point]['failed']} failed trials, {time.monotonic() - started:.0f}s")

    for point in CRASH_POINTS:
        s = stats[point]
        detail = f"{s['killed']} SIGKILLs at the point, its half-done state seen after {s['window']}"
        if s["why"]:
            detail += "; failed: " + ", ".join(f"{k} {v}" for k, v in s["why"].items())
        figures.add(f"kills at {point}", s["trials"], s["failed"], detail)
    figures.note(f"aimed kills: {sum(s['killed'] for s in stats.values())} SIGKILLs at {len(CRASH_POINTS)} points "
                 f"(SPLASHD_TEST_CRASH_AT) in {time.monotonic() - started:.0f}s"
                 + (f", max restart {max(restart_times):.2f}s" if restart_times else "") +
                 "; after each: integrity_check, no torn file, READY=1, nothing acknowledged lost, the outbox drains "
                 "(nothing pending, in flight or refused), server likes and edits rows + Storage objects == local byte "
                 "for byte, no staged/partial or orphan file and every photo_files row's file whole once settled, "
                 f"the import folder re-imported with every file accounted once; uploads delayed {UPLOAD_DELAY_MS} ms "
                 "for edit.removed_in_flight")
