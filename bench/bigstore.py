"""The daemon of scenarios 4 to 7: signed in, online, 100,000 photos in its store.

The photos are written straight into its SQLite database (python's sqlite3, one transaction, while the
daemon is stopped), not pulled from devstack: 10,000 of them liked by the signed-in account, each liked
one with its library file (a hard link to one real JPEG) and photo_files row, so the image queue has
nothing to fetch; colour buckets spread over all eleven; titles, tags and authors from a 50-word
vocabulary so full-text search has something to chew."""
import os
import shutil
import time

from benchlib import add_library_files, log, sample_jpeg, seed_photos

PHOTOS = 100_000
LIKED_EVERY = 10


def own_sample(ctx, d):
    """The sample JPEG, copied into the daemon's own directory, made anew with it, for `add_library_files` to
    hard-link: one file in the shared work directory gathered 10,000 links a run, and ext4 refuses a file's
    65,001st ("Too many links")."""
    return shutil.copy(sample_jpeg(ctx), os.path.join(d.directory, "sample.jpg"))


def make(ctx):
    d = ctx.signed_in_daemon("big", "big", watchdog_usec=30_000_000)
    user_id = d.user_id
    t0 = time.time()
    ids = seed_photos(d.db_path, PHOTOS, "big", account_id=user_id, liked_every=LIKED_EVERY)
    add_library_files(d, [f"unsplash:big{n}" for n in range(0, PHOTOS, LIKED_EVERY)], own_sample(ctx, d))
    log(f"seeded {len(ids)} photos ({PHOTOS // LIKED_EVERY} liked, with files) in {time.time() - t0:.1f} s")
    d.start()
    rpc = d.rpc()
    d.wait_state(rpc, "online")
    st = rpc.call("daemon.status")
    log("big daemon library:", st["library"])
    rpc.close()
    return d
