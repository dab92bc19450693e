"""Part 2: a long sync under devstack's fault injection. About 20 % of the requests to PostgREST, Auth,
the CDN and Unsplash's download tracking are reset, answered 500, 503 or 429 with Retry-After,
truncated or stalled; the sync must converge: every like on the server exactly once, every liked
photo's file verified in the library, nothing partial."""
import time

from lib import Cdn, Daemon, fresh_dir, log, populate, wait_until
from part_crash import library_state

KINDS = [
    {"action": "reset"},
    {"status": 500},
    {"status": 503},
    {"status": 429, "retry_after": 1},
    {"action": "truncate"},
    {"action": "stall", "stall_seconds": 3},
]


def rules(total=0.20):
    # Rules are tried in order and a rule whose dice say no lets the next one try, so six rules of p
    # fault 1 - (1 - p)^6 of the requests: p = 1 - (1 - total)^(1/6).
    p = 1 - (1 - total) ** (1 / len(KINDS))
    out = []
    for path in ("/rest/v1/*", "/auth/v1/*", "/cdn/*", "/unsplash/photos/*/download"):
        for kind in KINDS:
            out.append(dict(kind, path=path, probability=round(p, 4)))
    return out


def run(devstack, base, figures, trials, rng, short=False):
    devstack.reset()
    count = 100 if short else 400
    daemon = Daemon(fresh_dir(base, "faults"), env=devstack.daemon_env()).start()
    email = daemon.signup()
    pool = populate(daemon, count)
    urls = {pid: daemon.call("photos.show", {"id": pid})["urls"]["regular"] for pid in pool}
    cdn = Cdn()
    for pid in pool:
        cdn.expected(urls[pid])
    devstack.reset()  # counters from here on
    devstack.faults(rules())
    t0 = time.monotonic()
    for pid in pool:
        daemon.call("photos.like", {"id": pid})
    log(f"{len(pool)} likes queued under faults; syncing")
    failures = 0
    detail = ""
    try:
        result = daemon.sync_until_drained(timeout=600)
        push_done = time.monotonic() - t0

        def library_done():
            torn, partial, verified = library_state(daemon, urls, cdn)
            if torn:
                raise AssertionError(f"torn files {torn[:3]}")
            return not partial and verified == set(pool)
        wait_until("every file in the library", library_done, timeout=900, interval=0.5)
        converged = time.monotonic() - t0
        devstack.clear_faults()  # the suite's own reads below must not meet the faults
        counters = devstack.counters()
        server, duplicates = devstack.server_likes(email)
        active = {pid for pid, on in server.items() if on}
        if active != set(pool) or duplicates:
            failures += 1
            figures.bug(f"faults: server likes differ after convergence: missing {sorted(set(pool) - active)[:3]}, "
                        f"duplicates {duplicates[:3]}")
        requests = counters.get("requests_total", 0)
        injected = counters.get("faults_injected_total", 0)
        by_route = counters.get("requests", {})
        cdn_requests = sum(v for k, v in by_route.items() if "/cdn/" in k)
        push_requests = sum(v for k, v in by_route.items() if k.startswith("POST /rest/v1") or k.startswith("PATCH /rest/v1"))
        detail = (f"{len(pool)} likes + {len(pool)} files; {requests} requests, {injected} faults injected "
                  f"({100 * injected / max(requests, 1):.0f} %); CDN {cdn_requests} requests for {len(pool)} files "
                  f"({cdn_requests - len(pool)} retries); PostgREST writes {push_requests}; push drained in {push_done:.1f}s, "
                  f"converged in {converged:.1f}s")
        figures.note("status codes seen by devstack: " + ", ".join(f"{k}: {v}" for k, v in sorted(counters.get("status", {}).items())))
        figures.note("faults injected by rule: " + ", ".join(f"{k}: {v}" for k, v in sorted(counters.get("faults_injected", {}).items())))
    except Exception as error:  # noqa: BLE001
        failures += 1
        devstack.clear_faults()
        torn, partial, verified = library_state(daemon, urls, cdn)
        status = daemon.call("daemon.status")
        figures.bug(f"faults: no convergence: {error}; outbox {status.get('outbox')}; library {len(verified)}/{len(pool)} "
                    f"verified, partial {partial[:3]}, torn {torn[:3]}")
    finally:
        devstack.clear_faults()
    integrity = daemon.integrity()
    if integrity != ["ok"]:
        failures += 1
        figures.bug(f"faults: integrity_check {integrity[:3]}")
    alive = daemon.running()
    daemon.stop()
    figures.add("sync under 20 % faults converges (server == local, every file verified)", 1, failures + (0 if alive else 1), detail)
