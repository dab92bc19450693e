"""Part 6: a full disk during download. The data directory (the library) is a small tmpfs; liked photos'
full renditions (about 2 MB each) do not fit. The failure says the disk is full, nothing partial or
unverified counts as a library file, the store is intact, the likes are safe, and once the tmpfs is
grown every file completes and verifies, with no staging file left."""
import os
import subprocess
import time

from lib import Cdn, Daemon, Failure, fresh_dir, log, populate, wait_until
from part_crash import library_state


def mount(*args):
    result = subprocess.run(["mount", *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise Failure(f"mount {' '.join(args)}: {result.stderr.strip()}")


def run(devstack, base, figures, trials, rng, short=False):
    if os.geteuid() != 0:
        figures.note("not measured: mounting a tmpfs needs root")
        return
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
