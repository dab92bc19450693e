"""network.max_download_rate: every transfer together keeps under it, and a reload changes it without a
restart (docs/desktop.md)."""
import os
import signal
import time
import urllib.request

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
    size, seconds = downloaded(daemon, events, photos[11:])
    print(f"after the reload: {size / 1e6:.1f} MB in {seconds:.1f} s")
    assert size / seconds > 2e6, f"{size / seconds / 1e6:.2f} MB/s after the limit was lifted"
