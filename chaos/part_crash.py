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

from lib import Cdn, Daemon, Failure, RpcError, fresh_dir, http, http_json, log, populate, sha256, wait_until

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
    service = {"apikey": devstack.service, "Authorization": "Bearer " + devstack.service}
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
            rows = devstack.service_get(f"edits?user_id=eq.{uid}&select=id,storage_path,deleted_at")
            active = {r["id"]: r for r in rows if r["deleted_at"] is None}
            wrong = []
            if set(active) != intended:
                wrong.append(f"server edits differ: missing {sorted(intended - set(active))[:2]}, extra {sorted(set(active) - intended)[:2]}")
            for edit_id in intended & set(active):
                path = local[edit_id]["path"]
                status, _, data = http("GET", devstack.backend + f"/storage/v1/object/edits/{active[edit_id]['storage_path']}", None, service)
                if status != 200 or hashlib.sha256(data).hexdigest() != sha256(path):
                    wrong.append(f"Storage object of {edit_id}: HTTP {status}, {len(data)} bytes vs local {os.path.getsize(path)}")
            status, listing = http_json("POST", devstack.backend + "/storage/v1/object/list/edits", {"prefix": f"{uid}/", "limit": 10000}, service)
            objects = {o["name"].rsplit(".", 1)[0] for o in listing} if isinstance(listing, list) else set()
            if objects - intended:
                wrong.append(f"Storage objects of removed or unknown edits left: {sorted(objects - intended)[:2]}")
            if wrong:
                counts["server"] += 1
                figures.bug(f"{label}: " + "; ".join(wrong))
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
            result = a.call("library.import", {"path": folder}, timeout=300)
            accounted = len(result["imported"]) + result["already_imported"] + len(result["duplicates"]) + len(result["failed"])
            rows = a.sql("SELECT p.id, f.path, f.checksum FROM photos p JOIN photo_files f ON f.photo_id = p.id WHERE p.id LIKE 'local:%'")
            bad = []
            if accounted != files_written:
                bad.append(f"the re-import accounts for {accounted} of {files_written} files: {str(result)[:200]}")
            if result["failed"]:
                bad.append(f"files failed: {result['failed'][:2]}")
            for photo_id, path, checksum in rows:
                if not os.path.exists(path):
                    bad.append(f"{photo_id} points at a missing {path}")
                elif not sha256(path).startswith(photo_id.split(":", 1)[1]) or (checksum and checksum != sha256(path)):
                    bad.append(f"{photo_id}: {path} does not hash to its id/checksum")
            ids = [r[0] for r in rows]
            if len(ids) != len(set(ids)):
                bad.append("a local photo has two file rows")
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
