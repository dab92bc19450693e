"""3. Like-to-server latency while online: photos.like sent → the outbox.changed event saying it left
(pending 0, in_flight 0), which the daemon publishes once the server has answered its push_likes call."""
import http.client
import json
import time
import urllib.parse

from benchlib import add_library_files, log, pct, sample_jpeg, seed_photos, signup, fresh_tag, summary

ID = 3
TITLE = "Like-to-server latency while online"
TARGET = "p50 ≤ 200 ms"


def run(ctx):
    n = 60 if ctx.quick else 200
    d = ctx.fresh_daemon("like")
    d.start()
    rpc = d.rpc()
    email, password, user_id = signup(rpc, "like" + fresh_tag())
    d.wait_state(rpc, "online")
    ids = seed_photos(d.db_path, n, "lat", colors=False)
    add_library_files(d, ids, sample_jpeg(ctx))
    sub = d.rpc()
    sub.call("events.subscribe", {"types": ["outbox.changed"]})
    lat = []
    for pid in ids:
        time.sleep(0.03)
        while sub.next_event(0.001):
            pass
        t0 = time.perf_counter()
        # Every photo has the same sample file: near-duplicates of each other, which a like refuses.
        rpc.call("photos.like", {"id": pid, "allow_duplicate": True})
        while True:
            ev = sub.next_event(10)
            if ev is None:
                raise RuntimeError("no outbox.changed within 10 s")
            if ev[1]["data"]["pending"] == 0 and ev[1]["data"]["in_flight"] == 0:
                lat.append((ev[0] - t0) * 1000)
                break
    ack_lat = [x for x in lat]
    server = ctx.devstack.server_like_count(user_id)
    # the floor: one like upsert on a kept-alive HTTP connection, as fast as the server answers
    token, _ = ctx.devstack.password_token(email, password)
    u = urllib.parse.urlparse(ctx.devstack.env["SPLASHD_BACKEND_URL"])
    conn = http.client.HTTPConnection(u.hostname, u.port)
    hdr = {"apikey": ctx.devstack.env["SPLASHD_ANON_KEY"], "Authorization": "Bearer " + token, "Content-Type": "application/json",
           "Prefer": "resolution=merge-duplicates,return=minimal"}
    floor = []
    for i in range(n):
        body = json.dumps([{"photo_id": f"unsplash:latfloor{i}", "liked_at": "2026-11-21T12:00:00Z", "deleted_at": None}])
        t0 = time.perf_counter()
        conn.request("POST", "/rest/v1/likes?on_conflict=user_id,photo_id", body=body, headers=hdr)
        conn.getresponse().read()
        floor.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.03)
    rpc.close()
    sub.close()
    d.stop()
    p50, p99 = pct(ack_lat, 50), pct(ack_lat, 99)
    f50, f99 = pct(floor, 50), pct(floor, 99)
    log(f"s3: p50 {p50:.1f} ms p99 {p99:.1f} ms; floor p50 {f50:.1f} ms")
    return {"splashd": {"p50": summary([p50], "ms"), "p99": summary([p99], "ms"), "each like": summary(ack_lat, "ms")},
            "anchors": {"one like upsert POST on a kept-alive connection (floor)": {
                "p50": summary([f50], "ms"), "p99": summary([f99], "ms"), "each like": summary(floor, "ms")}},
            "verdict": [{"target": "p50 ≤ 200 ms", "value": f"{p50:.1f} ms (p99 {p99:.1f} ms)", "met": p50 <= 200}],
            "commands": [f"{n} × photos.like on one connection, 30 ms apart; a second connection subscribed to outbox.changed; "
                         "latency = like sent → the event with pending 0 and in_flight 0",
                         "floor: POST /rest/v1/likes?on_conflict=user_id,photo_id with one row, kept-alive http.client connection"],
            "notes": [f"{n} likes; the server holds {server} likes of this account afterwards.",
                      "Here 'median (min–max)' of 'each like' is over the likes; p50 and p99 are single values.",
                      "The daemon sends one request per push, a call of push_likes with the photo's row and the like, one "
                      "transaction (it sent two, the photos' upsert and then the likes', at 11.8 ms p50); the floor sends the like "
                      "alone."]}
