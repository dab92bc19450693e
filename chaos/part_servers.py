"""Part 5: hostile servers. A small HTTP server of the suite's own on loopback answers with garbage
JSON, an endless body, a 10 GB Content-Length, a redirect loop or a gzip bomb. The daemon is pointed at
it three ways: as the Unsplash API (photos.search), as the Supabase backend (auth.login), and as the
image CDN (liked photos whose URLs lead there). Each must end in a clear error, with bounded memory,
the daemon up, and no partial file in the library."""
import gzip
import http.server
import io
import json
import os
import re
import threading
import time
import urllib.request
import zlib

from lib import Daemon, Failure, RpcError, RssSampler, fresh_dir, log, rss_kb

MODES = ["garbage", "endless", "huge", "redirect", "gzipbomb"]


def make_bomb(gib=1):
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing
    zeros = b"\0" * (1 << 20)
    out = io.BytesIO()
    for _ in range(gib * 1024):
        out.write(compressor.compress(zeros))
    out.write(compressor.flush())
    return out.getvalue()


class Hostile(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # the daemon hanging up on an endless answer is the point


CAP = 256 * 1024 * 1024  # an endless answer ends here; a path that has had this much gets 404 from then on


def start_hostile(upstream_unsplash, unsplash_key):
    bomb = make_bomb(1)
    stop = threading.Event()
    served = {}
    assigned = {}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def endless(self, headers):
            self.send_response(200)
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            chunk = b"\xff\xd8\xff" + b"A" * 65533 if "/cdn/" in self.path else b"[" + b" " * 65535
            key = self.path.split("?")[0]
            try:
                while not stop.is_set():
                    with lock:
                        if served.get(key, 0) >= CAP:
                            break
                        served[key] = served.get(key, 0) + len(chunk)
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True

        def handle_mode(self, mode):
            if mode == "garbage":
                body = b'{"results": [ {"id": 1, "urls": nope ]]] \x00\xff' if "/cdn/" not in self.path else b"<html>not an image</html>"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif mode == "endless":
                self.endless([("Content-Type", "application/json"), ("Connection", "close")])
            elif mode == "huge":
                self.endless([("Content-Type", "application/json"), ("Content-Length", str(10 * 1024 ** 3))])
            elif mode == "redirect":
                self.send_response(302)
                self.send_header("Location", self.path)  # to itself, for ever
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif mode == "gzipbomb":
                self.send_response(200)
                self.send_header("Content-Type", "application/json" if "/cdn/" not in self.path else "image/jpeg")
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(bomb)))
                self.end_headers()
                try:
                    self.wfile.write(bomb)
                except OSError:
                    pass

        def do_GET(self):
            parts = self.path.split("/")
            # /cdn/<mode>/...: hostile image; /proxy/...: devstack's Unsplash with URLs rewritten here;
            # /<mode>/...: hostile API
            if parts[1] == "cdn":
                with lock:
                    spent = served.get(self.path.split("?")[0], 0) >= CAP
                if spent:
                    return self.send_error(404)
                return self.handle_mode(parts[2])
            if parts[1] == "proxy":
                rest = "/" + "/".join(parts[2:])
                request = urllib.request.Request(upstream_unsplash + rest, headers={"Authorization": "Client-ID " + unsplash_key})
                with urllib.request.urlopen(request, timeout=30) as response:
                    data = json.loads(response.read())
                port = self.server.server_address[1]
                # Every photo object (search results, a photo's details, lists) gets URLs here, each
                # photo always the same hostile mode.
                photos = data.get("results", []) if isinstance(data, dict) and "results" in data else \
                    data if isinstance(data, list) else [data]
                for photo in photos:
                    if isinstance(photo, dict) and isinstance(photo.get("urls"), dict):
                        with lock:
                            mode = assigned.setdefault(photo["id"], MODES[len(assigned) % len(MODES)])
                        photo["urls"] = {k: f"http://127.0.0.1:{port}/cdn/{mode}/{photo['id']}-{k}.jpg" for k in photo["urls"]}
                body = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("X-Ratelimit-Limit", "5000")
                self.send_header("X-Ratelimit-Remaining", "4999")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if parts[1] in MODES:
                return self.handle_mode(parts[1])
            self.send_error(404)

        do_POST = do_GET

    server = Hostile(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.stop_event = stop
    server.served = served
    return server


def timed_call(daemon, method, params, timeout=180):
    t0 = time.monotonic()
    try:
        result = daemon.call(method, params, timeout=timeout)
        return time.monotonic() - t0, None, result
    except RpcError as error:
        return time.monotonic() - t0, error, None
    except (OSError, Failure) as error:
        return time.monotonic() - t0, error, None


def run(devstack, base, figures, trials, rng, short=False):
    server = start_hostile(devstack.env["SPLASHD_UNSPLASH_API_URL"], devstack.env["SPLASHD_UNSPLASH_ACCESS_KEY"])
    port = server.server_address[1]
    hostile = f"http://127.0.0.1:{port}"
    peaks = []
    try:
        for role in ("unsplash", "backend"):
            for mode in MODES:
                env = devstack.daemon_env()
                if role == "unsplash":
                    env["SPLASHD_UNSPLASH_API_URL"] = f"{hostile}/{mode}"
                else:
                    env["SPLASHD_BACKEND_URL"] = f"{hostile}/{mode}"
                daemon = Daemon(fresh_dir(base, f"hostile-{role}-{mode}"), env=env).start()
                sampler = RssSampler(daemon.proc.pid)
                if role == "unsplash":
                    took, error, result = timed_call(daemon, "photos.search", {"query": "mountain"})
                else:
                    took, error, result = timed_call(daemon, "auth.login", {"email": "a@example.com", "password": "secret12"})
                peak = sampler.stop()
                peaks.append(peak)
                alive = daemon.running()
                message = error.error.get("message") if isinstance(error, RpcError) else repr(error)
                kind = error.kind if isinstance(error, RpcError) else None
                # A clear error is a sentence, not a Swift value's debug description such as tooLarge(limit: 33554432).
                debug_text = re.search(r"\w+\(\w+: ", message or "")
                ok = alive and isinstance(error, RpcError) and kind != "internal" and peak < 256 * 1024 and not debug_text
                if debug_text:
                    figures.bug(f"hostile {role} '{mode}': the error shows an internal value ({debug_text.group(0)}...): {message!r}")
                elif not ok:
                    figures.bug(f"hostile {role} '{mode}': alive {alive}, answer {kind}: {message!r} / result {str(result)[:100]}, "
                                f"after {took:.1f}s, max RSS {peak / 1024:.0f} MiB")
                figures.add(f"{role} answers with {mode}: clear error, bounded memory", 1, 0 if ok else 1,
                            f"{kind}: \"{(message or '')[:110]}\" after {took:.1f}s, max RSS {peak / 1024:.0f} MiB")
                daemon.stop()

        # The CDN: photos whose URLs lead to the hostile server, liked (so downloaded into the library).
        env = devstack.daemon_env()
        env["SPLASHD_UNSPLASH_API_URL"] = f"{hostile}/proxy"
        daemon = Daemon(fresh_dir(base, "hostile-cdn"), env=env).start()
        daemon.signup()
        sampler = RssSampler(daemon.proc.pid)
        photos = daemon.call("photos.search", {"query": "mountain lake", "per_page": len(MODES)})["photos"]
        modes = {}
        for photo in photos:
            url = daemon.call("photos.show", {"id": photo["id"]})["urls"]["regular"]
            modes[photo["id"]] = (url.split("/cdn/")[1].split("/")[0], url.replace(hostile, ""))
            daemon.call("photos.like", {"id": photo["id"]})
        deadline = time.monotonic() + (45 if short else 150)
        states = {}
        while time.monotonic() < deadline and len(states) < len(photos):
            for photo in photos:
                if photo["id"] in states:
                    continue
                download = daemon.call("photos.show", {"id": photo["id"]}).get("download") or {}
                if download.get("state") == "waiting" and download.get("last_error"):
                    states[photo["id"]] = download["last_error"]
            time.sleep(0.5)
        time.sleep(2)
        peak = sampler.stop()
        peaks.append(peak)
        files = daemon.library_files()
        sizes = {os.path.basename(f): os.path.getsize(f) for f in files}
        for photo in photos:
            mode, path = modes[photo["id"]]
            got = states.get(photo["id"])
            took = server.served.get(path.split("?")[0], 0)
            show = daemon.call("photos.show", {"id": photo["id"]}) if daemon.running() else {}
            ok = got is not None and daemon.running() and took < 64 * 1024 * 1024 and not show.get("files")
            if not ok:
                figures.bug(f"hostile cdn '{mode}': the daemon took {took / 2**20:.0f} MiB of an image "
                            f"(the server stops at {CAP / 2**20:.0f} MiB, then answers 404); download {show.get('download')}; "
                            f"files {show.get('files')}; error {got!r}")
            figures.add(f"CDN answers with {mode}: the download fails with a clear error, under 64 MiB taken", 1, 0 if ok else 1,
                        f"\"{(got or 'no error')[:100]}\"; {took / 2**20:.1f} MiB taken")
        finished = [n for n in sizes if n.endswith(".jpg")]
        ok = not finished and peak < 256 * 1024 and daemon.running()
        if not ok:
            figures.bug(f"hostile cdn: finished files in the library {finished[:3]}, max RSS {peak / 1024:.0f} MiB, running {daemon.running()}")
        figures.add("hostile CDN: no file enters the library, memory bounded", 1, 0 if ok else 1,
                    f"max RSS {peak / 1024:.0f} MiB; staging files left: " +
                    (", ".join(f"{n} {v / 2**20:.0f} MiB" for n, v in sizes.items()) or "none"))
        daemon.stop()
    finally:
        server.stop_event.set()
        server.shutdown()
    figures.note(f"max RSS over every hostile server: {max(peaks) / 1024:.0f} MiB")
