"""network.max_download_rate and max_upload_rate: every transfer together keeps under them, and a reload
changes them without a restart (docs/desktop.md)."""
import os
import random
import signal
import subprocess
import time
import urllib.request
from datetime import datetime

from splashtest.net import http_json
from test_desktop import BIN, devstack, search, start_daemon, wait_for  # noqa: F401 (fixtures)


def warm(daemon, photos):
    """Asks devstack's CDN for each photo's full rendition once, so that it is made before the daemon
    asks: what is measured is the daemon's rate, not the CDN's rendering."""
    for photo in photos:
        url = daemon.call("photos.show", {"id": photo})["urls"]["full"]
        with urllib.request.urlopen(url, timeout=60) as answer:
            answer.read()


def downloaded(daemon, events, photos):
    """Likes `photos` and reads images.changed until each one's file is in; (bytes, seconds from the
    first start to the last arrival)."""
    for photo in photos:
        daemon.call("photos.like", {"id": photo})
    first, last, done = None, None, set()
    deadline = time.monotonic() + 120
    while done != set(photos) and time.monotonic() < deadline:
        event = events.next_event(5)
        if not event:
            continue
        data = event[1]["data"]
        if data["photo"] not in photos:
            continue
        if data["change"] == "started" and first is None:
            first = event[0]
        if data["change"] == "finished":
            done.add(data["photo"])
            last = event[0]
    assert done == set(photos), f"not every file came: {sorted(set(photos) - done)}"
    sizes = [f["bytes"] for photo in photos for f in daemon.call("photos.show", {"id": photo})["files"] if f["variant"] == "full"]
    return sum(sizes), last - first


def test_a_download_rate_holds_over_all_transfers_and_a_reload_changes_it(devstack, start_daemon, tmp_path):
    daemon = start_daemon(env=devstack.daemon_env(), config=(
        '[images]\nvariant = "full"\nconcurrency = 4\n[network]\nmax_download_rate = "1 MB/s"\n'))
    daemon.signup()
    photos = search(daemon, 16)
    warm(daemon, photos)
    events = daemon.rpc(keep_events=True)
    events.call("events.subscribe", {"types": ["images.changed"]})

    assert daemon.call("daemon.status")["bandwidth"] == {"max_download_rate": 1_000_000}
    text = subprocess.run([os.path.join(BIN, "splashctl"), "--socket", daemon.socket_path, "status"], capture_output=True,
                          text=True, timeout=30, env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}).stdout
    assert "bandwidth" in text and "downloads at most 1 MB/s · uploads unlimited" in text, text
    size, seconds = downloaded(daemon, events, photos[:11])
    rate = size / seconds
    print(f"{size / 1e6:.1f} MB in {seconds:.1f} s: {rate / 1e6:.3f} MB/s under a limit of 1 MB/s")
    assert size >= 20e6, f"only {size / 1e6:.1f} MB: the measure needs 20"
    assert 0.9e6 <= rate <= 1.1e6, f"{rate / 1e6:.3f} MB/s is not within 10 % of 1 MB/s"

    # A reload lifts the limit: the next files come at the machine's own pace.
    config = os.path.join(daemon.directory, "config.toml")
    with open(config, "w") as f:
        f.write('[images]\nvariant = "full"\nconcurrency = 4\n[network]\nmax_download_rate = "unlimited"\n')
    daemon.proc.send_signal(signal.SIGHUP)
    wait_for("the reload said", lambda: "network rates download 1000000 B/s" in daemon.log_text(), 10)
    assert "bandwidth" not in daemon.call("daemon.status"), "no limit is in force"
    size, seconds = downloaded(daemon, events, photos[11:])
    print(f"after the reload: {size / 1e6:.1f} MB in {seconds:.1f} s")
    assert size / seconds > 2e6, f"{size / seconds / 1e6:.2f} MB/s after the limit was lifted"


def distinct_photos(folder, count):
    """`count` JPEGs of about 2 MB each, no two alike to a perceptual hash (each a random 8 × 8 pattern
    under noise, which also keeps them from compressing)."""
    from PIL import Image
    rng = random.Random(51)
    for i in range(count):
        pattern = Image.frombytes("L", (8, 8), rng.randbytes(64)).resize((2000, 1500), Image.NEAREST).convert("RGB")
        noise = Image.frombytes("RGB", (2000, 1500), rng.randbytes(2000 * 1500 * 3))
        Image.blend(pattern, noise, 0.3).save(folder / f"photo{i:02d}.jpg", quality=95)


def stored_originals(devstack, user_id):
    """The account's objects in Storage's originals bucket, as the server recorded them."""
    status, objects = http_json("POST", devstack.backend + "/storage/v1/object/list/originals",
                                {"prefix": user_id, "limit": 1000}, headers=devstack.service_headers())
    assert status == 200, objects
    return objects


def test_an_upload_rate_holds_over_the_originals_sent(devstack, start_daemon, tmp_path):
    """Liked local photos send their originals to Storage one after another; the rate is measured by the
    server, from the first one's arrival to the last one's, over the bytes of all but the first."""
    daemon = start_daemon(env=devstack.daemon_env(), config='[network]\nmax_upload_rate = "1 MB/s"\n')
    daemon.signup()
    folder = tmp_path / "Pictures"
    folder.mkdir()
    distinct_photos(folder, 12)
    imported = daemon.call("library.import", {"path": str(folder)}, timeout=120)
    assert len(imported["imported"]) == 12, imported
    for photo in imported["imported"]:
        daemon.call("photos.like", {"id": photo["id"]})
    user = devstack.user_id(daemon.email)

    def all_sent():
        # Storage is asked once the queue says it is empty (the counts follow the queue a moment behind).
        outbox = daemon.call("daemon.status")["outbox"]
        return outbox["pending"] + outbox["in_flight"] == 0 and len(objects := stored_originals(devstack, user)) == 12 and objects
    objects = wait_for("every original in Storage", all_sent, 90)

    objects.sort(key=lambda o: o["created_at"])
    first, last = (datetime.fromisoformat(objects[i]["created_at"]) for i in (0, -1))
    size = sum(o["metadata"]["size"] for o in objects[1:])
    seconds = (last - first).total_seconds()
    rate = size / seconds
    print(f"{size / 1e6:.1f} MB in {seconds:.1f} s: {rate / 1e6:.3f} MB/s under a limit of 1 MB/s")
    assert size >= 20e6, f"only {size / 1e6:.1f} MB: the measure needs 20"
    assert 0.9e6 <= rate <= 1.1e6, f"{rate / 1e6:.3f} MB/s is not within 10 % of 1 MB/s"
