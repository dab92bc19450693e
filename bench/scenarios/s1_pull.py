"""1. Pull: liked photos' images (20 KB to 2 MB) from devstack's /cdn into the library, against curl and
aria2c fetching the same URL list with 8 transfers at once, and against curl doing what splashd does with
them: every file hashed (sha256sum) and durable (sync) before it ends."""
import contextlib
import dataclasses
import glob
import os
import random
import shutil
import sqlite3
import time

from benchlib import log, seed_photos, sh, signup, fresh_tag, summary, wait_quiet

ID = 1
TITLE = "Pull: 1,000 images (20 KB–2 MB) from /cdn into the library"
TARGET = "≤ 1.1 × curl --parallel --parallel-max 8, then sha256sum of every file, then sync; ≤ 1.0 × aria2c"


def blkio_ticks(pid):
    """Clock ticks the process's threads waited for block I/O (delay accounting: /proc/PID/task/*/stat
    field 42), summed over the threads alive now."""
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/stat"):
        with contextlib.suppress(OSError):
            total += int(open(path).read().rsplit(")", 1)[1].split()[39])
    return total


@dataclasses.dataclass
class Measures:
    """Each repetition's figures, in seconds (bytes for total_bytes)."""
    curl: list = dataclasses.field(default_factory=list)
    aria: list = dataclasses.field(default_factory=list)
    curl_then_sync: list = dataclasses.field(default_factory=list)
    same_work: list = dataclasses.field(default_factory=list)
    anchor_flush: list = dataclasses.field(default_factory=list)
    mine: list = dataclasses.field(default_factory=list)
    mine_flush: list = dataclasses.field(default_factory=list)
    total_bytes: list = dataclasses.field(default_factory=list)
    quiet: list = dataclasses.field(default_factory=list)


@contextlib.contextmanager
def delay_accounting():
    """Turns the kernel's per-task delay accounting on for the scenario (root), as it was after."""
    path = "/proc/sys/kernel/task_delayacct"
    try:
        before = open(path).read().strip()
        with open(path, "w") as f:
            f.write("1")
    except OSError:
        before = None
    try:
        yield before is not None
    finally:
        if before is not None:
            with open(path, "w") as f:
                f.write(before)


def run(ctx):
    n = 300 if ctx.quick else 1000
    ds = ctx.devstack
    ds.knobs({"unsplash_hourly_budget": 1000000})
    ids = ds.unsplash_ids(n)
    rng = random.Random(11)
    widths = [round(200 * 12 ** (i / (n - 1))) for i in range(n)]  # 200..2400 px: ~20 KB .. ~2 MB
    rng.shuffle(widths)
    urls = [ds.url + f"/cdn/unsplash/photo-{pid}?w={w}" for pid, w in zip(ids, widths)]
    work = os.path.join(ctx.work, "pull-files")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # Each repetition's anchors write into directories of their own, and nothing is deleted until the
    # scenario ends: ext4 passes over inodes deleted in the last 5 to 35 s when it allocates one, and all
    # three create a thousand files, so a run that came soon after a removal was slowed by it (seen in
    # the daemon's profile as recently_deleted and find_inode_bit under openat, growing repetition after
    # repetition while the anchors' files were removed before each run).
    cfg, lst = os.path.join(work, "curl.cfg"), os.path.join(work, "aria2.txt")
    with open(cfg, "w") as f:
        for i, u in enumerate(urls):
            f.write(f'url = "{u}"\noutput = "{i}.jpg"\n')
    with open(lst, "w") as f:
        for i, u in enumerate(urls):
            f.write(f"{u}\n  out={i}.jpg\n")
    t0 = time.time()
    warm = os.path.join(work, "warm.cfg")
    with open(warm, "w") as f:
        for u in urls:
            f.write(f'url = "{u}"\noutput = "/dev/null"\n')
    sh(["curl", "--parallel", "--parallel-max", "4", "-sS", "--fail", "-K", warm])
    log(f"s1: devstack rendered and cached {n} CDN images in {time.time() - t0:.0f} s (not measured)")

    d = ctx.fresh_daemon("pull")
    d.start()
    rpc = d.rpc()
    email, password, user_id = signup(rpc, "pull" + fresh_tag())
    d.wait_state(rpc, "online")
    settled = ctx.settle_removals()
    m = Measures()
    with delay_accounting() as accounted:
        for rep in range(ctx.reps):
            _repetition(ctx, rep, d, rpc, n, urls, work, cfg, lst, user_id, m)
    rpc.close()
    d.stop()
    return _report(ctx, d, user_id, n, urls, m, settled, accounted)


def _repetition(ctx, rep, d, rpc, n, urls, work, cfg, lst, user_id, m):
    # Every repetition starts from a daemon at rest: the last one's arrivals are hashed (perceptual
    # hashes, screen renditions) after its files are in, and that work must not run into this one's
    # downloads or its anchors' (it did: the repetitions grew from 2.2 s to 3.9 s).
    m.quiet.append(wait_quiet(d.pid))
    for name, argv, out, bucket in (
            ("curl", ["curl", "--parallel", "--parallel-max", "8", "-sS", "--fail", "-K", cfg], f"curl{rep}", m.curl),
            ("aria2c", ["aria2c", "-j8", "-q", "--allow-overwrite=true", "--auto-file-renaming=false", "-i", lst, "-d",
                        os.path.join(work, f"aria2{rep}")], f"aria2{rep}", m.aria)):
        directory = os.path.join(work, out)
        os.makedirs(directory)
        sh("sync")
        t0 = time.perf_counter()
        sh(argv, cwd=directory)
        t1 = time.perf_counter()
        bucket.append(t1 - t0)
        if name == "curl":
            # The same work as splashd's: every file hashed, then all of them durable (the only dirty data is
            # curl's: every run starts from a sync). sha256sum reads them back from the page cache.
            sh(["sh", "-c", "sha256sum -- *.jpg > /dev/null"], cwd=directory)
            t2 = time.perf_counter()
            sh("sync")
            t3 = time.perf_counter()
            m.same_work.append(t3 - t0)
            m.anchor_flush.append(t3 - t2)
            m.curl_then_sync.append((t1 - t0) + (t3 - t2))
    size = sum(os.path.getsize(os.path.join(work, f"curl{rep}", x)) for x in os.listdir(os.path.join(work, f"curl{rep}")))
    m.total_bytes.append(size)
    # splashd, with the daemon still at rest (the anchors ran meanwhile). Start: the commit that makes this repetition's
    # photos and n - 1 likes visible to the daemon, followed at once by the n-th like through the socket, which rings
    # the queue (nothing of them can start before the commit). End: all n of these photos have a library file row (a
    # row exists only for a complete, verified, durable file). Both read from the store itself, not from counts that
    # earlier repetitions or an early start could skew.
    prefix = f"pull{rep}x"
    sh("sync")
    start = {}
    blkio_before = blkio_ticks(d.pid)
    pids = seed_photos(d.db_path, n, prefix, account_id=user_id, liked_every=1, url_for=lambda i: urls[i], colors=False,
                       unliked_tail=1, before_commit=lambda: start.setdefault("t0", time.perf_counter()))
    rpc.call("photos.like", {"id": pids[-1]})
    con = sqlite3.connect(f"file:{d.db_path}?mode=ro", uri=True, timeout=60)
    deadline = time.time() + 600
    while time.time() < deadline:
        done = con.execute("SELECT count(*) FROM photo_files WHERE in_library = 1 AND variant = 'regular' AND photo_id LIKE ?",
                           (f"unsplash:{prefix}%",)).fetchone()[0]
        if done >= n:
            break
        time.sleep(0.02)
    else:
        raise RuntimeError(f"library has {done} of {n} after 600 s")
    m.mine.append(time.perf_counter() - start["t0"])
    m.mine_flush.append((blkio_ticks(d.pid) - blkio_before) / os.sysconf("SC_CLK_TCK"))
    con.close()
    log(f"s1 rep {rep + 1}: splashd {m.mine[-1]:.2f} s, curl {m.curl[-1]:.2f} s, curl+sha256sum+sync {m.same_work[-1]:.2f} s, "
        f"aria2c {m.aria[-1]:.2f} s, {size / 2**20:.0f} MB")


def _report(ctx, d, user_id, n, urls, m, settled, accounted):
    # The files stay until the next run's start: removed now, they would slow every scenario after this
    # one that creates files (see Context.settle_removals).
    s, c, a, dc, sw = (summary(x, "s") for x in (m.mine, m.curl, m.aria, m.curl_then_sync, m.same_work))
    mb = m.total_bytes[0] / 2**20
    ratio = s["median"] / sw["median"]
    aria_ratio = s["median"] / a["median"]
    flush = (f"Time waiting on flushes, medians: the anchor's sync {summary(m.anchor_flush, 's')['median']:.2f} s of its "
             f"{sw['median']:.2f} s; splashd's threads {summary(m.mine_flush, 's')['median']:.2f} s waiting for block I/O over "
             f"its {s['median']:.2f} s (the kernel's delay accounting, switched on for this scenario: /proc/PID/task/*/stat "
             "field 42, summed over the threads, at 100 ticks a second; several threads may wait at once)." if accounted else
             "Time waiting on flushes: not measured (the kernel's delay accounting could not be switched on).")
    res = {"splashd": {f"{n} images, {mb:.0f} MB": s},
           "anchors": {"curl --parallel --parallel-max 8, then sha256sum of every file, then sync (the same work)":
                       {f"{n} images, {mb:.0f} MB": sw},
                       "curl --parallel --parallel-max 8": {f"{n} images, {mb:.0f} MB": c},
                       "curl, then sync (its files durable; curl's time plus the sync's)": {f"{n} images, {mb:.0f} MB": dc},
                       "aria2c -j8": {f"{n} images, {mb:.0f} MB": a}},
           "verdict": [{"target": "≤ 1.1 × curl, then sha256sum, then sync", "value": f"{ratio:.2f} ×", "met": ratio <= 1.1},
                       {"target": "≤ 1.0 × aria2c", "value": f"{aria_ratio:.2f} ×", "met": aria_ratio <= 1.0}],
           "commands": ["curl --parallel --parallel-max 8 -sS --fail --create-dirs -K urls.cfg   # url = …, output = … per image",
                        "sha256sum -- *.jpg > /dev/null; sync   # after curl, in the same timing",
                        "aria2c -j8 -q --allow-overwrite=true --auto-file-renaming=false -i urls.txt -d DIR",
                        f"splashd: from the commit that makes {n} photos and {n - 1} likes visible in the store (one more like "
                        "through the socket at once rings the image queue) until the store holds a library file row for each "
                        "of them (read every 20 ms)"],
           "notes": [f"curl's files are in the page cache, not on the disk, when it ends, and nothing checked them; splashd's "
                     f"each are hashed and flushed (fsync) before they count. The anchor doing the same work hashes every "
                     f"file with sha256sum and syncs once at the end. Against curl alone splashd is at "
                     f"{s['median'] / c['median']:.2f} ×, against curl then sync {s['median'] / dc['median']:.2f} ×.",
                     flush,
                     f"{n} catalogue photos, widths 200 to 2400 px (log-spaced, shuffled): {mb:.0f} MB in all, "
                     f"{mb * 1024 / n:.0f} KB on average. devstack rendered every image once before timing; all three read "
                     "the same cached bytes from the same single-process server.",
                     "splashd also does per file what the anchors do not: a JPEG check, SHA-256, an fsync before the rename "
                     "and a photo_files row — the files that finished together are landed as a batch (flushed one after "
                     "another, their writeback started as each ended; the directory flushed once; the rows in one "
                     "transaction), and a transfer's slot goes to the next transfer as soon as its bytes are in, not once "
                     "its file is landed — and for Unsplash photos the download-tracking GET /photos/ID/download (API "
                     "rule), on the same devstack.",
                     "Freeing the slot at the bytes' end (stop 45) measured side by side at 939869a: the median over "
                     "repetitions of splashd's time over aria2c's in the same repetition 0.90–1.07 kept, 0.84–0.87 freed.",
                     "Stop 46, measured side by side by hand (bench 1's setup, three repetitions a run, two runs of each "
                     "binary alternated, 8880417 against eb9f8cf), the medians over the six repetitions: splashd over curl "
                     "then sync 1.80 → 1.41, over curl 2.46 → 1.73; the daemon's CPU over curl's in the same repetition "
                     "3.43 → 2.24 (perf stat task-clock; the daemon 4.13 → 3.76 s of CPU for 1,000 files, curl 0.7–2.4 s). "
                     "What changed: each write to a .part ends on a block's edge (a write ending inside a new block made "
                     "the kernel zero the rest of it first: zero_user_segments, 8 % of the daemon's CPU); the image queue "
                     "takes the next file from its last read of what is missing (each read walked the pull's own arrivals: "
                     "8 %); the landing's statements are cached; Pictures folder names skip Unicode's tables for ASCII.",
                     "Stop 47: each file's SHA-256 is taken as its bytes arrive (FileSink, on the transfer thread, while "
                     "they are in the CPU's cache) instead of reading the finished file back. Measured side by side by hand "
                     "as in stop 46 (72a6977 against ee8b88f, three runs of each binary alternated, three repetitions a run "
                     "each): the daemon's CPU for 1,000 files, median 3.00 s against 3.01 s, the same within this machine's "
                     "noise (a first session of six repetitions each said 3.42 against 3.04): the read back came from the "
                     "page cache, and the hash itself is the cost.",
                     "Where the daemon's CPU goes now (perf -g --call-graph dwarf, one repetition at ee8b88f): the copy of "
                     "the bytes into the page cache about 30 % (curl's own CPU is mostly the same copy: on this virtual "
                     "machine a page cache page's first touch is slow), SHA-256 18 % (OpenSSL, SHA extensions, 1.75 GB/s "
                     "over the 1,000 files' bytes), the batch's landing (fsync, sync_file_range, rename, rows, counts) 12 %, "
                     "curl's own receiving 9 %, the image queue 6 %, the JPEG check 3 %. The rest of the gap to curl is "
                     "that durability and that hash, which curl does not do: curl then sync is already 1.3–1.4 × curl.",
                     "This machine's speed swings from run to run for all three tools alike (the same build measured 1.86 × "
                     "and 3.66 × curl in runs ten minutes apart; curl alone 0.7 to 1.9 s within one run, growing as the page "
                     "cache fills): only ratios within a repetition, and binaries alternated in one session, say anything.",
                     "The daemon stays signed in and online throughout; the Unsplash budget knob is raised so tracking never hits it.",
                     f"Each repetition (its anchors, then splashd) starts with the daemon at rest: its CPU time moved at most "
                     f"10 ms over a whole second (waited {min(m.quiet):.0f}–{max(m.quiet):.0f} s: the previous repetition's "
                     "perceptual hashes and screen renditions, made after its files are in). Nothing is deleted while the "
                     "scenario runs (each repetition's anchors write into directories of their own), and the first repetition "
                     f"starts at least 61 s after the run's start removed the last run's files (waited {settled:.0f} s, after "
                     "a sync): this machine's root is ext4 without a journal, which passes over every inode freed in the last "
                     "60 s (360 s while its inode table block is dirty) each time it allocates one — a fifth of splashd's CPU "
                     "in a pull soon after a removal, its library directory in the block group the removed files had used."
                     + (" --quick: 300 images instead of 1,000." if ctx.quick else "")]}
    if ratio > 1.1:
        import profiling
        d.start()
        rpc = d.rpc()
        pids = seed_photos(d.db_path, min(n, 300), "pullprof", account_id=user_id, liked_every=1, url_for=lambda i: urls[i], colors=False,
                           unliked_tail=1)
        res["profile"] = profiling.perf_while(ctx, d.pid, lambda: rpc.call("photos.like", {"id": pids[-1]}),
                                              "the image queue fetching 300 images", seconds=8)
        rpc.close()
        d.stop()
    return res
