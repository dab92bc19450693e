"""13. Pictures in the terminal: a 24-megapixel library file drawn for an 80 × 24 terminal, and a contact
sheet of 30 cached thumbnails, against the chafa and timg commands drawing the same files the same way."""
import os
import sqlite3
import subprocess
import time

from benchlib import ROOT, SPLASHCTL, log, now_text, seed_photos, summary

ID = 13
TITLE = "Pictures: a 24 MP photo in 80 × 24, a 30-picture contact sheet"
TARGET = "one 24 MP photo ≤ 50 ms; 30 cached thumbnails ≤ 300 ms"
W, H = 6000, 4000
SHEET = 30


def render_jpeg(path, seed, w, h, rgb):
    py = os.path.join(ROOT, "devstack", ".venv", "bin", "python")
    subprocess.run([py, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from devstack_server.cdn import render; "
                    "open(sys.argv[2], 'wb').write(render(sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), tuple(map(int, sys.argv[6:9]))))",
                    os.path.join(ROOT, "devstack"), path, seed, str(w), str(h), *map(str, rgb)], check=True)


def wall(argv, env=None):
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def record(con, pid, variant, rel, size, in_library):
    con.execute("INSERT INTO photo_files (photo_id, variant, path, in_library, bytes, checksum, created_at, last_access_at) "
                "VALUES (?, ?, ?, ?, ?, NULL, ?, ?) ON CONFLICT (photo_id, variant) DO UPDATE SET path = excluded.path, "
                "bytes = excluded.bytes, in_library = excluded.in_library", (pid, variant, rel, in_library, size, now_text(), now_text()))


def wait_for_copy(rpc, pid, timeout=60.0):
    """Polls photos.show until the photo's screen copy is listed, present; the seconds it took."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        files = rpc.call("photos.show", {"id": pid}).get("files", [])
        if any(f["variant"] == "screen" and f["present"] for f in files):
            return time.perf_counter() - t0
        time.sleep(0.01)
    raise AssertionError(f"no screen copy of {pid} after {timeout} s")


def run(ctx):
    tmp = os.path.join(ctx.work, "pictures-src")
    os.makedirs(tmp, exist_ok=True)
    big = os.path.join(tmp, "24mp.jpg")
    if not os.path.exists(big):
        render_jpeg(big, "bench-24mp", W, H, (60, 110, 160))
    thumbs = []
    for n in range(SHEET):
        path = os.path.join(tmp, f"thumb{n}.jpg")
        if not os.path.exists(path):
            render_jpeg(path, f"bench-thumb-{n}", 200, 133, (40 + 6 * n, 90, 200 - 5 * n))
        thumbs.append(path)
    log(f"s13: source {W}x{H} JPEG ({os.path.getsize(big) / 2**20:.1f} MB) and {SHEET} 200 × 133 thumbnails")

    # Two daemons: one with no memory tier (every draw decodes a file: the cold case the targets are
    # about), one with the default 64 MiB (a draw repeated, as a person paging back sees it).
    results = {}
    reps = max(ctx.reps, 5)
    for name, memory in (("cold", 0), ("warm", 64)):
        d = ctx.fresh_daemon("pictures-" + name, config=f"[pictures]\nmemory_mib = {memory}\n")
        d.start()
        rpc = d.rpc()
        # The 24 MP photo enters the library as a person's would (library.import), and the daemon makes
        # its screen copy once it is in; the measurement starts when photos.show lists that copy.
        folder = os.path.join(ctx.work, "pictures-import-" + name)
        os.makedirs(folder, exist_ok=True)
        if not os.path.exists(os.path.join(folder, "24mp.jpg")):
            os.link(big, os.path.join(folder, "24mp.jpg"))
        imported = rpc.call("library.import", {"path": folder})["imported"][0]["id"]
        copy_made = wait_for_copy(rpc, imported)
        ids = seed_photos(d.db_path, SHEET + reps, "pic" + name, colors=False)
        sheet_ids, bare_ids = ids[:SHEET], ids[SHEET:]
        con = sqlite3.connect(d.db_path, timeout=60)
        with con:
            lib = os.path.join(d.library, "unsplash")
            cache = os.path.join(d.cache_dir, "images", "unsplash")
            os.makedirs(lib, exist_ok=True)
            os.makedirs(cache, exist_ok=True)
            for pid, thumb in zip(sheet_ids, thumbs):
                crel = f"images/unsplash/{pid.split(':')[1]}.thumb.jpg"
                if not os.path.exists(os.path.join(d.cache_dir, crel)):
                    os.link(thumb, os.path.join(d.cache_dir, crel))
                record(con, pid, "thumb", crel, os.path.getsize(thumb), 0)
            # Library files from before screen copies existed (the file alone): their hash is the imported
            # photo's, so that the duplicate scanner does not decode them while the draws are timed.
            for pid in bare_ids:
                rel = f"library/unsplash/{pid.split(':')[1]}.regular.jpg"
                if not os.path.exists(os.path.join(d.data_dir, rel)):
                    os.link(big, os.path.join(d.data_dir, rel))
                record(con, pid, "regular", rel, os.path.getsize(big), 1)
                con.execute("UPDATE photos SET phash = (SELECT phash FROM photos WHERE id = ?) WHERE id = ?", (imported, pid))
        con.close()
        one = {"mode": "symbols", "columns": 80, "rows": 24}
        tile = {"mode": "symbols", "columns": 20, "rows": 8}
        singles, sheets, firsts, copies = [], [], [], []
        for _ in range(reps):
            t0 = time.perf_counter()
            answer = rpc.call("photos.picture", {"id": imported, "terminal": one})
            singles.append(time.perf_counter() - t0)
            assert answer["from"] == "screen", f"drawn from {answer['from']}, not its screen copy"
            t0 = time.perf_counter()
            answer = rpc.call("photos.pictures", {"ids": sheet_ids, "terminal": tile})
            sheets.append(time.perf_counter() - t0)
            drawn = [p["id"] for p in answer["pictures"]]
            assert drawn == sheet_ids, f"{len(drawn)} pictures, in the order {drawn[:5]}…, missing {answer.get('missing')}"
        if name == "cold":
            # A large file with no copy yet: drawn from the file, which asks for its copy; the next draw
            # waits until that copy is made, so that no copy is being made while one is timed.
            for pid in bare_ids:
                t0 = time.perf_counter()
                answer = rpc.call("photos.picture", {"id": pid, "terminal": one})
                firsts.append(time.perf_counter() - t0)
                assert answer["from"] == "library", f"drawn from {answer['from']}"
                copies.append(wait_for_copy(rpc, pid))
        env = dict(os.environ, SPLASHD_SOCKET=d.socket_path)
        whole = [wall([SPLASHCTL, "photos", "show", imported, "--image", "symbols"], env) for _ in range(reps)]
        tiers = rpc.call("cache.status", {}).get("pictures", {})
        rpc.close()
        d.stop()
        results[name] = {"single": singles, "sheet": sheets, "show": whole, "tiers": tiers, "first": firsts, "copies": copies,
                         "copy_made": copy_made}
        log(f"s13 {name}: one {min(singles) * 1000:.1f} ms, sheet {min(sheets) * 1000:.1f} ms, photos show {min(whole) * 1000:.1f} ms, "
            f"copy made {copy_made * 1000:.0f} ms after the import")

    chafa_one = [wall(["chafa", "--size", "80x24", "--format", "symbols", "--symbols", "block+space", big]) for _ in range(max(ctx.reps, 5))]
    timg_one = [wall(["timg", "-g80x24", "-pq", big]) for _ in range(max(ctx.reps, 5))]
    chafa_sheet = [wall(["chafa", "--size", "20x8", "--format", "symbols", "--symbols", "block+space"] + thumbs) for _ in range(max(ctx.reps, 5))]
    timg_sheet = [wall(["timg", "-g80x24", "-pq", "--grid=3", "--title"] + thumbs) for _ in range(max(ctx.reps, 5))]

    cold, warm = results["cold"], results["warm"]
    s = {"24 MP photo, 80 × 24 (photos.picture, no memory tier)": summary([x * 1000 for x in cold["single"]], "ms"),
         "24 MP photo with no copy yet, 80 × 24 (its first draw)": summary([x * 1000 for x in cold["first"]], "ms"),
         "its screen copy made, after that draw": summary([x * 1000 for x in cold["copies"]], "ms"),
         "24 MP photo, from the memory tier": summary([x * 1000 for x in warm["single"][1:]], "ms"),
         "30 thumbnails (photos.pictures, no memory tier)": summary([x * 1000 for x in cold["sheet"]], "ms"),
         "30 thumbnails, from the memory tier": summary([x * 1000 for x in warm["sheet"][1:]], "ms"),
         "splashctl photos show --image symbols (whole command, no memory tier)": summary([x * 1000 for x in cold["show"]], "ms")}
    anchors = {"chafa --size 80x24 (24 MP)": {"time": summary([x * 1000 for x in chafa_one], "ms")},
               "timg -g80x24 -pq (24 MP)": {"time": summary([x * 1000 for x in timg_one], "ms")},
               "chafa --size 20x8, 30 files": {"time": summary([x * 1000 for x in chafa_sheet], "ms")},
               "timg --grid=3, 30 files": {"time": summary([x * 1000 for x in timg_sheet], "ms")}}
    one_ms = s["24 MP photo, 80 × 24 (photos.picture, no memory tier)"]["median"]
    sheet_ms = s["30 thumbnails (photos.pictures, no memory tier)"]["median"]
    res = {"splashd": s, "anchors": anchors,
           "verdict": [{"target": "24 MP photo in 80 × 24 ≤ 50 ms", "value": f"{one_ms:.1f} ms "
                        f"({one_ms / anchors['chafa --size 80x24 (24 MP)']['time']['median']:.2f} × chafa, "
                        f"{one_ms / anchors['timg -g80x24 -pq (24 MP)']['time']['median']:.2f} × timg)", "met": one_ms <= 50},
                       {"target": "30 cached thumbnails ≤ 300 ms", "value": f"{sheet_ms:.1f} ms "
                        f"({sheet_ms / anchors['chafa --size 20x8, 30 files']['time']['median']:.2f} × chafa, "
                        f"{sheet_ms / anchors['timg --grid=3, 30 files']['time']['median']:.2f} × timg)", "met": sheet_ms <= 300}],
           "commands": ["photos.picture {id, terminal: {mode: symbols, columns: 80, rows: 24}} on one connection",
                        "photos.pictures {ids: 30, terminal: {mode: symbols, columns: 20, rows: 8}}",
                        "SPLASHD_SOCKET=SOCK splashctl photos show ID --image symbols",
                        "chafa --size 80x24 --format symbols --symbols block+space 24mp.jpg",
                        "timg -g80x24 -pq 24mp.jpg",
                        "chafa --size 20x8 --format symbols --symbols block+space thumb0.jpg … thumb29.jpg",
                        "timg -g80x24 -pq --grid=3 --title thumb0.jpg … thumb29.jpg"],
           "notes": ["Start: the daemon running, the 6000 × 4000 JPEG imported with library.import and its screen copy "
                     "(1600 pixels on the longer side, made by the daemon once the photo is in; "
                     f"{cold['copy_made'] * 1000:.0f} ms after the import answered, by photos.show polled every 10 ms) listed by "
                     "photos.show, and 30 thumbnails' cache files; end: the answer read. Each answer is checked to come from the copy. "
                     "The anchors are whole processes (start, decode, draw, exit) writing to /dev/null, decoding the 24 MP file each "
                     "time; splashd's times are the request's round trip over the control socket.",
                     "The first draw of a large file with no copy yet (a library file from before copies existed) decodes the file: "
                     "each such draw is of a photo drawn for the first time, and the next waits until its copy is made.",
                     f"Memory tier after the warm runs: {warm['tiers']}"]}
    return res
