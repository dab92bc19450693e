"""14. The web gallery: the library's first grid at 100,000 liked photos, scrolling all of it, a like on
screen, and thumbnails served against nginx serving the same file."""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import time

from benchlib import ROOT, SPLASHCTL, log, now_text, sample_jpeg, seed_photos, summary

ID = 14
TITLE = "Web gallery: first grid at 100,000 photos, scrolling it, a like on screen, thumbnails vs nginx"
TARGET = "first grid ≤ 300 ms; no task over 50 ms scrolling; a change on screen ≤ 250 ms; thumbnails ≥ 50 % of nginx's rate"
PHOTOS = 100_000
FRESH = 20
REQUESTS = 20_000
CLIENTS = 8


def gallery_address(d):
    return subprocess.run([SPLASHCTL, "--socket", d.socket_path, "open", "--print"], check=True, capture_output=True,
                          text=True, timeout=30).stdout.strip()


def cookie_for(url):
    """The session cookie a browser gets for the one-time address (the 303's Set-Cookie)."""
    import http.client
    host = url.split("/")[2]
    connection = http.client.HTTPConnection(host, timeout=30)
    connection.request("GET", "/?token=" + url.split("token=")[1], headers={"Host": host})
    answer = connection.getresponse()
    return host, answer.getheader("Set-Cookie").split(";")[0]


def ab(url, headers=()):
    """Requests per second of `ab -n REQUESTS -c CLIENTS -k` (keep-alive, as a browser's connections)."""
    argv = ["ab", "-q", "-k", "-n", str(REQUESTS), "-c", str(CLIENTS)]
    for header in headers:
        argv += ["-H", header]
    done = subprocess.run(argv + [url], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"ab exited {done.returncode} for {url}: {done.stderr.strip()[-500:]} {done.stdout.strip()[-500:]}")
    out = done.stdout
    failed = int(re.search(r"Failed requests:\s+(\d+)", out).group(1))
    non2xx = re.search(r"Non-2xx responses:\s+(\d+)", out)
    if failed or non2xx:
        raise RuntimeError(f"ab: {failed} failed, {non2xx.group(1) if non2xx else 0} non-2xx for {url}")
    return float(re.search(r"Requests per second:\s+([\d.]+)", out).group(1))


def nginx(ctx, root, name):
    """nginx serving `root` on a port of its own: two workers (this machine's cores), no access log."""
    prefix = os.path.join(ctx.work, "nginx")
    shutil.rmtree(prefix, ignore_errors=True)
    os.makedirs(os.path.join(prefix, "logs"))
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""worker_processes 2;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  sendfile on;
  types {{ image/jpeg jpg; }}
  server {{ listen 127.0.0.1:{port}; root {root}; etag on; }}
}}
""")
    proc = subprocess.Popen(["nginx", "-c", conf, "-p", prefix], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}/{name}"


def run(ctx):
    d = ctx.fresh_daemon("gallery", env={"SPLASHD_WEB_ROOT": os.path.join(ROOT, "web")})
    d.start()
    d.stop()
    ids = seed_photos(d.db_path, PHOTOS + FRESH, "gal", account_id="", liked_every=1, colors=True, unliked_tail=FRESH)
    # Every photo's thumbnail is one cache file (its rows all name it): the grid's pictures cost the
    # daemon a lookup and a file, never a download, and the browser one decode.
    thumb_dir = os.path.join(d.cache_dir, "thumbs")
    os.makedirs(thumb_dir, exist_ok=True)
    thumb = os.path.join(thumb_dir, "shared.jpg")
    shutil.copy(sample_jpeg(ctx), thumb)
    size = os.path.getsize(thumb)
    con = sqlite3.connect(d.db_path, timeout=60)
    with con:
        con.executemany("INSERT INTO photo_files (photo_id, variant, path, in_library, bytes, checksum, created_at, last_access_at) "
                        "VALUES (?, 'thumb', 'thumbs/shared.jpg', 0, ?, NULL, ?, ?)", [(pid, size, now_text(), now_text()) for pid in ids])
    con.close()
    log(f"s14: {PHOTOS} liked photos and {FRESH} more, each with the same {size}-byte thumbnail")
    d.start()
    rpc = d.rpc()
    total = rpc.call("photos.list", {"liked": True, "limit": 1})["total"]
    assert total == PHOTOS, total

    # The browser's part: Selenium from devstack's virtual environment.
    python = os.path.join(ROOT, "devstack", ".venv", "bin", "python")
    url = gallery_address(d)
    reps = max(ctx.reps, 5)
    browser = subprocess.Popen([python, os.path.join(ROOT, "bench", "tools", "gallery_browser.py"), url, str(reps)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    first = json.loads(browser.stdout.readline())
    log(f"s14: first grid cold {first['first_cold']:.0f} ms, warm {first['first']}; scroll {first['scroll']}")
    # A like made now (the event a change from another device raises once applied), on screen.
    lags = []
    for pid in ids[PHOTOS:PHOTOS + min(FRESH, 3 * reps)]:
        browser.stdin.write(pid + "\n")
        browser.stdin.flush()
        time.sleep(0.5)  # the watcher is in place
        sent = time.time() * 1000
        rpc.call("photos.like", {"id": pid})
        seen = json.loads(browser.stdout.readline())
        lags.append(seen["at_ms"] - sent)
    browser.stdin.close()
    browser.wait(timeout=60)

    # Thumbnails: one photo's, with its session cookie, against nginx serving the same file.
    host, cookie = cookie_for(gallery_address(d))
    gallery_thumb = f"http://{host}/images/{ids[0].replace(':', '%3A')}/thumb"
    proc, nginx_thumb = nginx(ctx, thumb_dir, "shared.jpg")
    try:
        ours, theirs = [], []
        for _ in range(3):
            ours.append(ab(gallery_thumb, [f"Cookie: {cookie}"]))
            theirs.append(ab(nginx_thumb))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    rpc.close()

    scroll = first["scroll"]
    first_ms = summary(first["first"], "ms")
    lag = summary(lags, "ms")
    rate, anchor = summary(ours, "requests/s"), summary(theirs, "requests/s")
    ratio = rate["median"] / anchor["median"]
    longest = max(scroll["long"], default=0)
    return {
        "splashd": {"first grid, warm reload of / (100,000 liked photos)": first_ms,
                    "first grid, cold (the one-time address, its redirect included)": summary([first["first_cold"]], "ms"),
                    "a like on screen, from the request": lag,
                    "thumbnail, 8 clients, keep-alive": rate,
                    "scrolling the whole grid, 300 jumps": summary([scroll["seconds"]], "s")},
        "anchors": {"nginx 1.22, the same file, 2 workers": {"rate": anchor}},
        "verdict": [
            {"target": "first grid ≤ 300 ms", "value": f"{first_ms['median']:.0f} ms (cold {first['first_cold']:.0f} ms)",
             "met": first_ms["median"] <= 300},
            {"target": "no task over 50 ms scrolling", "value": f"{len(scroll['long'])} long tasks, the longest {longest:.0f} ms",
             "met": not scroll["long"]},
            {"target": "a change on screen ≤ 250 ms", "value": f"{lag['median']:.0f} ms (max {lag['max']:.0f})", "met": lag["median"] <= 250},
            {"target": "thumbnails ≥ 50 % of nginx", "value": f"{rate['median']:.0f}/s, {ratio:.2f} × nginx's {anchor['median']:.0f}/s",
             "met": ratio >= 0.5},
        ],
        "commands": ["headless chromium (Selenium): the one-time address, then / reloaded; performance mark splashd-first-grid",
                     "window.scrollTo over the whole grid in 300 steps, one per animation frame; PerformanceObserver longtask",
                     "photos.like over the control socket; a MutationObserver in the page notes Date.now() when its picture is in the grid",
                     f"ab -q -k -n {REQUESTS} -c {CLIENTS} -H 'Cookie: …' http://127.0.0.1:PORT/images/ID/thumb",
                     f"ab -q -k -n {REQUESTS} -c {CLIENTS} http://127.0.0.1:PORT/shared.jpg (nginx -c nginx.conf)"],
        "notes": [f"Start: splashd running, signed out, {PHOTOS:,} liked photos in its store and {FRESH} not liked, each with "
                  "one shared thumbnail file in its cache; Chromium 1280 × 900, headless. First grid: from the navigation's start "
                  "to the frame after the grid's first page is drawn (its pictures loading after). Scroll: "
                  f"{scroll['height']:,} px, {scroll['elements']} elements in the grid at the end. A like: from the photos.like "
                  "request to the moment its picture is in the grid (the page asks the pages in view again on photo.changed).",
                  "The thumbnail rate is the gallery's whole path per request: the Host, cookie (HMAC) and header checks, the "
                  "store's lookup of the photo's files, the file's ETag from its stored hash or read, and the bytes; nginx "
                  "serves the file from a path (sendfile). Three runs each, alternating."]}
