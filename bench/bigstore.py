"""The daemon of scenarios 4 to 7: signed in, online, 100,000 photos in its store.

The photos are written straight into its SQLite database (python's sqlite3, one transaction, while the
daemon is stopped), not pulled from devstack: 10,000 of them liked by the signed-in account, each liked
one with its library file (a hard link to one real JPEG) and photo_files row, so the image queue has
nothing to fetch; colour buckets spread over all eleven; titles, tags and authors from a 50-word
vocabulary so full-text search has something to chew."""
import os
import sqlite3
import time
import urllib.request

from benchlib import log, now_text, perceptual_hash_for, seed_photos, signup, fresh_tag

PHOTOS = 100_000
LIKED_EVERY = 10


def library_files(ctx, d, prefix, numbers):
    """Gives the photos `unsplash:<prefix><n>` their library file, as the daemon leaves a download: one real
    JPEG hard-linked in the daemon's own directory, made anew with it (one file in the shared work
    directory gathered 10,000 links a run, and ext4 refuses a file's 65,001st: "Too many links"), a
    photo_files row, and the perceptual hash (one it lacks, the daemon takes at start)."""
    sample = os.path.join(d.directory, "sample.jpg")
    catalogue = ctx.devstack.unsplash_ids(1)[0]
    urllib.request.urlretrieve(ctx.devstack.url + f"/cdn/unsplash/photo-{catalogue}?w=200", sample)
    size = os.path.getsize(sample)
    os.makedirs(os.path.join(d.directory, "data", "library", "unsplash"), exist_ok=True)
    con = sqlite3.connect(d.db_path)
    now = now_text()
    with con:
        for n in numbers:
            rel = f"library/unsplash/{prefix}{n}.regular.jpg"
            os.link(sample, os.path.join(d.directory, "data", rel))
            con.execute("INSERT INTO photo_files (photo_id, variant, path, in_library, bytes, checksum, created_at, last_access_at) "
                        "VALUES (?, 'regular', ?, 1, ?, NULL, ?, ?)", (f"unsplash:{prefix}{n}", rel, size, now, now))
            con.execute("UPDATE photos SET phash = ? WHERE id = ?", (perceptual_hash_for(n), f"unsplash:{prefix}{n}"))
    con.close()


def make(ctx):
    d = ctx.fresh_daemon("big", watchdog_usec=30_000_000)
    d.start()
    rpc = d.rpc()
    email, password, user_id = signup(rpc, "big" + fresh_tag())
    d.wait_state(rpc, "online")
    rpc.close()
    d.stop()
    t0 = time.time()
    ids = seed_photos(d.db_path, PHOTOS, "big", account_id=user_id, liked_every=LIKED_EVERY)
    library_files(ctx, d, "big", range(0, PHOTOS, LIKED_EVERY))
    log(f"seeded {len(ids)} photos ({PHOTOS // LIKED_EVERY} liked, with files) in {time.time() - t0:.1f} s")
    d.user_id, d.email, d.password = user_id, email, password
    d.start()
    rpc = d.rpc()
    d.wait_state(rpc, "online")
    st = rpc.call("daemon.status")
    log("big daemon library:", st["library"])
    rpc.close()
    return d
