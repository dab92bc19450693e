"""Part 6: a full disk during download. The data directory (the library) is a small tmpfs; liked photos'
full renditions (about 2 MB each) do not fit. The failure says the disk is full, nothing partial or
unverified counts as a library file, the store is intact, the likes are safe, and once the tmpfs is
grown every file completes and verifies, with no staging file left."""
import os
import subprocess
import time

from lib import Cdn, Daemon, Failure, RpcError, fresh_dir, log, populate, wait_until
from part_crash import library_state


def mount(*args):
    result = subprocess.run(["mount", *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise Failure(f"mount {' '.join(args)}: {result.stderr.strip()}")


def used_bytes(path):
    st = os.statvfs(path)
    return (st.f_blocks - st.f_bfree) * st.f_frsize


def full_disk_edit(devstack, base, figures):
    """The library fills up while an edit is saved: a clear error, no edit file, no row, no op; then
    with room the same edit saves."""
    directory = fresh_dir(base, "disk-edit")
    data = os.path.join(directory, "data")
    os.makedirs(data)
    mount("-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", data)
    problems, detail, message = [], "", None
    daemon = Daemon(directory, env=devstack.daemon_env())
    try:
        daemon.start()
        daemon.signup()
        photo = populate(daemon, 1)[0]
        daemon.call("photos.like", {"id": photo})
        wait_until("the original in the library", lambda: daemon.call("cache.status")["library_files"] >= 1, timeout=60)
        before_edits = daemon.call("edits.list")["edits"]
        # The edit's own ops: the like's may still be leaving (it waits for its file's near-duplicate
        # check, which this full disk does not stop), and must not be taken for one.
        def edit_ops():
            return [op for op in daemon.call("queue.list")["ops"] if op["entity"] == "edit"]
        before_queue = edit_ops()
        # Leave a few kilobytes: the original is there, an edit cannot fit.
        used = used_bytes(data)
        mount("-o", f"remount,size={used + 8192}", data)
        filler = os.path.join(data, "filler")
        try:
            with open(filler, "wb") as f:
                f.write(b"\0" * 16384)
        except OSError:
            pass  # full: as intended
        try:
            daemon.call("edits.create", {"id": photo, "filters": [{"filter": "sepia", "params": [0.8]}]}, timeout=60)
            problems.append("edits.create succeeded on a full disk")
        except RpcError as error:
            message = f"{error.kind}: {error.error.get('message')}"
            if not any(w in message.lower() for w in ("space", "full", "disk")):
                problems.append(f"the error does not say the disk is full: {message}")
        leftovers = [os.path.basename(p) for p in daemon.library_files() if ".edit-" in p]
        if leftovers:
            problems.append(f"edit files left on the full disk: {leftovers}")
        if daemon.call("edits.list")["edits"] != before_edits:
            problems.append("an edit row was recorded for the failed save")
        if edit_ops() != before_queue:
            problems.append(f"an op was queued for the failed save: {edit_ops()}")
        if daemon.integrity() != ["ok"]:
            problems.append("integrity_check failed")
        os.unlink(filler) if os.path.exists(filler) else None
        mount("-o", "remount,size=64m", data)
        try:
            edit = daemon.call("edits.create", {"id": photo, "filters": [{"filter": "sepia", "params": [0.8]}]}, timeout=60)
            detail = f"error \"{(message or '')[:120]}\"; with room again the edit saved ({edit['bytes']} bytes)"
        except RpcError as error:
            problems.append(f"with room again the edit still failed: {error}")
    except Failure as error:
        problems.append(str(error))
    finally:
        daemon.stop()
        subprocess.run(["umount", "-l", data])
    for p in problems:
        figures.bug(f"full disk during edit: {p}")
    figures.add("full disk during edit: clear error, no file, row or op; saves once there is room", 1, 1 if problems else 0, detail)
    # -32603 internal means "a bug; the journal has the details" (docs/protocol.md, splashctl exit 70):
    # a full disk is the machine's state, not a bug.
    internal = bool(message and message.startswith("internal:"))
    if internal:
        figures.bug(f"full disk during edit: answered with kind internal (-32603, 'a bug', splashctl exit 70): {message!r}")
    figures.add("full disk during edit: the error's kind is not 'internal'", 1, 1 if internal else 0, (message or "")[:80])


def run(devstack, base, figures, trials, rng, short=False):
    if os.geteuid() != 0:
        figures.note("not measured: mounting a tmpfs needs root")
        return
    full_disk_edit(devstack, base, figures)
    sizes = ["1m"] if short else ["1m", "3m", "5m"]
    for size in sizes:
        directory = fresh_dir(base, f"disk-{size}")
        data = os.path.join(directory, "data")
        os.makedirs(data)
        mount("-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", data)
        problems, detail = [], ""
        daemon = Daemon(directory, env=devstack.daemon_env(), config='[images]\nvariant = "full"\n')
        try:
            daemon.start()
            daemon.signup()
            photos = populate(daemon, 4)[:4]
            urls = {pid: daemon.call("photos.show", {"id": pid})["urls"]["full"] for pid in photos}
            cdn = Cdn()
            for pid in photos:
                cdn.expected(urls[pid])
            for pid in photos:
                daemon.call("photos.like", {"id": pid})
            errors = {}

            def failed():
                for pid in photos:
                    download = daemon.call("photos.show", {"id": pid}).get("download") or {}
                    if download.get("last_error"):
                        errors[pid] = download["last_error"]
                torn, partial, verified = library_state(daemon, urls, cdn)
                return len(errors) + len(verified) >= len(photos) and len(errors) > 0
            try:
                wait_until("downloads to fail on the full disk", failed, timeout=60, interval=0.3)
            except Failure as error:
                problems.append(str(error))
            torn, partial, verified = library_state(daemon, urls, cdn)
            texts = sorted(set(errors.values()))
            if not any("space" in t.lower() or "full" in t.lower() for t in texts):
                problems.append(f"no error says the disk is full: {texts[:3]}")
            if torn:
                problems.append(f"unverified files in the library: {torn[:3]}")
            usage = daemon.call("cache.status")
            if usage["library_files"] != len(verified):
                problems.append(f"cache.status counts {usage['library_files']} library files, {len(verified)} are complete")
            if set(photos) - daemon.liked():
                problems.append("likes lost on the full disk")
            if daemon.integrity() != ["ok"]:
                problems.append("integrity_check failed")
            fitted = len(verified)
            # Room again: the retries complete every file.
            mount("-o", "remount,size=64m", data)
            t0 = time.monotonic()

            def complete():
                torn, partial, verified = library_state(daemon, urls, cdn)
                return not torn and not partial and verified == set(photos)
            try:
                wait_until("every file once there is room", complete, timeout=400, interval=0.5)
                detail = (f"tmpfs {size}: {fitted} of {len(photos)} fitted, error \"…{texts[0][-70:] if texts else ''}\"; "
                          f"complete {time.monotonic() - t0:.1f}s after the remount")
            except Failure:
                torn, partial, verified = library_state(daemon, urls, cdn)
                shows = [daemon.call("photos.show", {"id": pid}).get("download") for pid in photos if pid not in verified]
                problems.append(f"after the remount: {len(verified)}/{len(photos)} verified, partial {partial}, torn {torn}, "
                                f"downloads {shows[:2]}")
        except Failure as error:
            problems.append(str(error))
        finally:
            daemon.stop()
            subprocess.run(["umount", "-l", data])
        for p in problems:
            figures.bug(f"full disk ({size}): {p}")
        figures.add(f"full disk (tmpfs {size}) during download: clear error, nothing partial, resumes", 1,
                    1 if problems else 0, detail)
