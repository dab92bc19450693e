"""Part 7: security.
- Another uid connecting to the control socket is refused (setpriv --reuid 65534), even with the
  socket's file permissions opened up, so that the SO_PEERCRED check itself is what refuses.
- The session file is 0600 (and the state directory 0700).
- No token, password or API key appears in any log line (debug level, stderr) or control answer.
- TLS is verified: devstack behind an HTTPS front with a self-signed certificate is refused, and
  accepted once its CA is configured (network.ca_file / SPLASHD_CA_FILE).
- http:// to a host other than loopback is refused.
- Row level security: user B tries to read, insert, update and delete user A's rows in every table
  and A's Storage objects; anon tries to read everything. All denied, A's data unchanged.
- The shipped units' `systemd-analyze security --offline=yes` exposure scores.
"""
import json
import os
import re
import shutil
import socket
import ssl
import stat
import subprocess
import threading
import time
import uuid

from lib import PASSWORD, ROOT, Daemon, Failure, RpcError, fresh_dir, http, http_json, log, populate


def other_uid(daemon, figures):
    script = ("import socket,sys\n"
              "s=socket.socket(socket.AF_UNIX)\n"
              "try:\n s.connect(sys.argv[1])\nexcept OSError as e:\n print('CONNECT', e.errno); sys.exit()\n"
              "s.settimeout(10)\n"
              "s.sendall(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"daemon.status\"}\\n')\n"
              "data=b''\n"
              "try:\n while True:\n  c=s.recv(65536)\n  if not c: break\n  data+=c\nexcept OSError: pass\n"
              "print('ANSWER', data.decode(errors='replace'))\n")
    cmd = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "python3", "-c", script, daemon.socket_path]
    # As shipped: the socket directory is 0700, so nobody cannot even reach the socket.
    shipped = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    # Opened up (directory 0755, socket 0666): the peer check must refuse on its own.
    run_dir = os.path.dirname(daemon.socket_path)
    mode_dir = stat.S_IMODE(os.stat(run_dir).st_mode)
    mode_sock = stat.S_IMODE(os.stat(daemon.socket_path).st_mode)
    os.chmod(run_dir, 0o755)
    os.chmod(daemon.socket_path, 0o666)
    opened = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    os.chmod(run_dir, mode_dir)
    os.chmod(daemon.socket_path, mode_sock)
    problems = []
    if mode_dir != 0o700 or mode_sock != 0o600:
        problems.append(f"socket directory {oct(mode_dir)}, socket {oct(mode_sock)}; want 0700 and 0600")
    if not shipped.startswith("CONNECT 13"):
        problems.append(f"as shipped, nobody's connect gave: {shipped[:200]}")
    answer = opened.partition(" ")[2]
    if not opened.startswith("ANSWER") or "permission_denied" not in answer or '"result"' in answer:
        problems.append(f"with the permissions opened up, nobody got: {opened[:300]}")
    for p in problems:
        figures.bug(f"security other uid: {p}")
    figures.add("another uid (65534) is refused: by the 0700 directory, and by SO_PEERCRED when it is opened up", 2,
                len(problems), f"answer: {answer[:120]}")


def files_and_logs(devstack, base, figures):
    env = devstack.daemon_env()
    daemon = Daemon(fresh_dir(base, "sec-logs"), env=env, extra_args=["--log-level", "trace"]).start()
    problems = []
    answers = []
    try:
        devstack.knobs({"access_token_lifetime": 4})
        email = daemon.signup()
        photo = populate(daemon, 1)[0]
        daemon.call("photos.like", {"id": photo})
        daemon.sync_until_drained(timeout=60)
        time.sleep(3)  # a refresh (short-lived token)
        devstack.knobs({"access_token_lifetime": 3600})
        for method, params in (("daemon.status", None), ("auth.whoami", None), ("profile.get", {"refresh": True}),
                               ("queue.list", None), ("daemon.describe", None)):
            answers.append(json.dumps(daemon.call(method, params)))
        daemon.call("auth.logout")
        daemon.login(email)
        answers.append(json.dumps(daemon.call("auth.whoami")))
        other_uid(daemon, figures)
        # The session file and the state directory.
        state = os.path.join(daemon.directory, "state")
        session_files = [os.path.join(b, n) for b, _, ns in os.walk(state) for n in ns if "session" in n.lower()]
        if not session_files:
            problems.append(f"no session file found in {os.listdir(state)}")
        modes = {os.path.relpath(p, state): oct(stat.S_IMODE(os.stat(p).st_mode)) for p in session_files}
        for p in session_files:
            if stat.S_IMODE(os.stat(p).st_mode) != 0o600:
                problems.append(f"{p} is {oct(stat.S_IMODE(os.stat(p).st_mode))}")
        for d in (state, os.path.join(daemon.directory, "data"), os.path.join(daemon.directory, "cache")):
            if os.path.isdir(d) and stat.S_IMODE(os.stat(d).st_mode) & 0o077:
                problems.append(f"{d} is {oct(stat.S_IMODE(os.stat(d).st_mode))}")
        secrets = {"password": PASSWORD, "anon key": devstack.anon, "service key": devstack.service,
                   "unsplash key": devstack.env["SPLASHD_UNSPLASH_ACCESS_KEY"], "jwt secret": devstack.env["DEVSTACK_JWT_SECRET"]}
        for p in session_files:
            try:
                content = json.load(open(p))
            except ValueError:
                continue
            for key in ("access_token", "refresh_token"):
                if isinstance(content.get(key), str):
                    secrets[key] = content[key]
        # Every token the server ever issued to this account (the rotated ones too) and the
        # distinctive pieces of the JWTs (a signature alone would be a leak as well).
        rows = []
        try:
            rows = subprocess.run(
                [os.path.join(ROOT, "devstack", ".venv", "bin", "python"), "-c",
                 "import asyncio,asyncpg,sys\n"
                 "async def m():\n c=await asyncpg.connect(sys.argv[1])\n"
                 " r=await c.fetch(\"select token from auth.refresh_tokens t join auth.users u on u.id::text=t.user_id::text where u.email=$1\",sys.argv[2])\n"
                 " print('\\n'.join(x[0] for x in r))\nasyncio.run(m())",
                 devstack.env["DEVSTACK_DATABASE_URL"], email], capture_output=True, text=True, timeout=30).stdout.split()
        except Exception:  # noqa: BLE001
            pass
        for i, token in enumerate(rows):
            secrets[f"refresh token #{i + 1}"] = token
        pieces = {}
        for name, value in list(secrets.items()):
            pieces[name] = value
            if value.count(".") == 2:  # a JWT: its signature part too
                pieces[name + " (signature)"] = value.split(".")[2]
        log_text = daemon.log_text()
        lines = log_text.count("\n")
        leaks = [name for name, value in pieces.items() if value and len(value) >= 8 and value in log_text]
        answer_leaks = [name for name, value in pieces.items() if value and len(value) >= 8 and any(value in a for a in answers)]
        if leaks:
            problems.append(f"secrets in the log: {leaks}")
        if answer_leaks:
            problems.append(f"secrets in control answers: {answer_leaks}")
        figures.add("session file 0600, state/data/cache directories private", 1,
                    sum(1 for p in problems if "is 0" in p or "session file" in p), f"{modes}")
        figures.add("no token, password or key in any log line (trace level) or control answer", len(pieces),
                    len(leaks) + len(answer_leaks),
                    f"{lines} log lines, {len(answers)} answers searched for {len(pieces)} secrets "
                    f"({len(rows)} refresh tokens issued, JWT signatures included)")
    finally:
        devstack.knobs({"access_token_lifetime": 3600})
        daemon.stop()
    for p in problems:
        figures.bug(f"security files/logs: {p}")


def tls_front(cert, key, target_port):
    """An HTTPS front on 127.0.0.1 that pipes each connection to devstack's plain port."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    stop = threading.Event()

    def pipe(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def serve():
        while not stop.is_set():
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            def handle(raw=raw):
                try:
                    tls = context.wrap_socket(raw, server_side=True)
                except (ssl.SSLError, OSError):
                    raw.close()
                    return
                upstream = socket.create_connection(("127.0.0.1", target_port))
                threading.Thread(target=pipe, args=(tls, upstream), daemon=True).start()
                pipe(upstream, tls)
            threading.Thread(target=handle, daemon=True).start()
    threading.Thread(target=serve, daemon=True).start()
    return listener, stop


def tls(devstack, base, figures):
    directory = fresh_dir(base, "sec-tls")
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], capture_output=True, check=True)
    port = int(devstack.backend.rsplit(":", 1)[1].split("/")[0])
    listener, stop = tls_front(cert, key, port)
    https = f"https://127.0.0.1:{listener.getsockname()[1]}"
    results = {}
    try:
        for name, extra in (("untrusted", {}), ("ca configured", {"SPLASHD_CA_FILE": cert})):
            env = devstack.daemon_env()
            env.update({"SPLASHD_BACKEND_URL": https, "SPLASHD_UNSPLASH_API_URL": https + "/unsplash"})
            env.update(extra)
            daemon = Daemon(fresh_dir(base, "sec-tls-" + name.split()[0]), env=env).start()
            try:
                daemon.signup()
                search = daemon.call("photos.search", {"query": "lake"})
                results[name] = ("ok", f"signed up; search found {search['total']}")
            except RpcError as error:
                results[name] = ("error", error.error.get("message", ""))
            finally:
                daemon.stop()
    finally:
        stop.set()
        listener.close()
    problems = []
    if results["untrusted"][0] != "error" or not re.search(r"certif|tls|ssl|verif", results["untrusted"][1], re.I):
        problems.append(f"a self-signed certificate was not refused clearly: {results['untrusted']}")
    if re.search(r"\w+\(\w+: ", results["untrusted"][1]):
        figures.note(f"refused, but the message shows an internal value and says to try again when online: "
                     f"{results['untrusted'][1]!r} (the same unclear-error bug as in part 5)")
    if results["ca configured"][0] != "ok":
        problems.append(f"with its CA configured the server was still refused: {results['ca configured']}")
    for p in problems:
        figures.bug(f"security TLS: {p}")
    figures.add("TLS verified: self-signed refused, accepted once its CA is configured", 2, len(problems),
                f"refused with \"{results['untrusted'][1][:100]}\"")


def plain_http(devstack, base, figures):
    problems, detail = [], ""
    for url in ("http://192.0.2.1:9/", "http://example.com"):
        env = devstack.daemon_env()
        env["SPLASHD_BACKEND_URL"] = url
        daemon = Daemon(fresh_dir(base, "sec-http"), env=env)
        try:
            daemon.start(timeout=30)
        except Failure as error:
            # Refusing to start on such a config is a refusal too (exit 78 says why).
            code = daemon.proc.returncode
            detail = f"{url}: splashd exits {code}: {daemon.tail(300).strip().splitlines()[-1][:120]}"
            if code != 78:
                problems.append(f"{url}: {error}")
            daemon.stop()
            continue
        t0 = time.monotonic()
        try:
            daemon.signup()
            problems.append(f"{url}: sign-up over plain http to a non-loopback host succeeded")
        except RpcError as error:
            took = time.monotonic() - t0
            message = error.error.get("message", "")
            detail = f"{url}: \"{message[:110]}\" in {took:.1f}s"
            if not re.search(r"http|tls|secure|plain", message, re.I) or took > 5:
                problems.append(f"{url}: not a clear refusal: {message!r} after {took:.1f}s")
            elif re.search(r"\w+\(\w+: ", message) or error.kind == "offline":
                figures.note(f"refused, but the message is an internal value and the kind says offline (try again later): "
                             f"{error.kind}: {message!r} (the same unclear-error bug as in part 5)")
        finally:
            daemon.stop()
    for p in problems:
        figures.bug(f"security plain http: {p}")
    figures.add("http:// to a host other than loopback is refused", 2, len(problems), detail)


def rls(devstack, figures):
    rest, storage = devstack.backend + "/rest/v1/", devstack.backend + "/storage/v1/"
    users = []
    for tag in ("a", "b"):
        session = devstack.signup(f"rls-{tag}-{uuid.uuid4().hex[:8]}@example.com")
        users.append((session["user"]["id"], session["access_token"]))
    (a_id, a_token), (b_id, b_token) = users

    def h(token, extra=None):
        out = {"apikey": devstack.anon, "Authorization": "Bearer " + token, "Prefer": "return=representation"}
        out.update(extra or {})
        return out

    photo = "unsplash:rls" + uuid.uuid4().hex[:6]
    # A's own rows and object.
    setup = [
        http_json("POST", rest + "likes", {"photo_id": photo}, h(a_token)),
        http_json("POST", rest + "photos", {"photo_id": photo, "title": "A's"}, h(a_token)),
        http_json("POST", rest + "edits", {"photo_id": photo, "pipeline": [], "storage_path": f"{a_id}/e.jpg"}, h(a_token)),
    ]
    up = http("POST", storage + f"object/edits/{a_id}/e.jpg", b"\xff\xd8\xff" + b"a" * 100,
              {"Authorization": "Bearer " + a_token, "Content-Type": "image/jpeg"})
    if any(s >= 300 for s, _ in setup) or up[0] >= 300:
        raise Failure(f"RLS setup as A failed: {[s for s, _ in setup]}, storage {up[0]} {up[2][:200]!r}")
    edit_id = setup[2][1][0]["id"]
    attempts, denied, leaks = 0, 0, []

    def expect_denied(what, status, body, allowed_empty=True):
        nonlocal attempts, denied
        attempts += 1
        empty = isinstance(body, list) and not body
        if status in (401, 403, 404) or (200 <= status < 300 and allowed_empty and empty) or status == 400 and "403" in str(body):
            denied += 1
        elif status in (400, 409) and not (isinstance(body, list) and body):
            denied += 1  # refused outright (e.g. a check or key violation); nothing written
        else:
            leaks.append(f"{what}: HTTP {status} {str(body)[:160]}")

    for who, token in (("B", b_token), ("anon", devstack.anon)):
        for table, key, match in (("likes", "user_id", a_id), ("photos", "user_id", a_id), ("edits", "user_id", a_id),
                                  ("profiles", "id", a_id)):
            q = f"{table}?{key}=eq.{match}"
            expect_denied(f"{who} reads A's {table}", *http_json("GET", rest + q + "&select=*", None, h(token)))
            status, rows = http_json("GET", rest + table + "?select=*", None, h(token))
            theirs = [r for r in rows if r.get(key) == a_id] if isinstance(rows, list) else rows
            expect_denied(f"{who} reads all {table} (only its own may come back)", status, theirs)
            patch = {"username": "stolen_" + uuid.uuid4().hex[:6]} if table == "profiles" else {"deleted_at": "2020-01-01T00:00:00Z"}
            expect_denied(f"{who} updates A's {table}", *http_json("PATCH", rest + q, patch, h(token)))
            expect_denied(f"{who} deletes A's {table}", *http_json("DELETE", rest + q, None, h(token)))
            if table != "profiles":
                body = {"photo_id": photo + "x", key: a_id}
                if table == "edits":
                    body["storage_path"] = f"{a_id}/stolen.jpg"
                expect_denied(f"{who} inserts a row as A into {table}", *http_json("POST", rest + table, body, h(token)),
                              allowed_empty=False)
                upsert = {"photo_id": photo, key: a_id}
                expect_denied(f"{who} upserts over A's {table} row", *http_json(
                    "POST", rest + table + ("?on_conflict=user_id,photo_id" if table != "edits" else ""), upsert,
                    h(token, {"Prefer": "resolution=merge-duplicates,return=representation"})), allowed_empty=False)
        bearer = {"Authorization": "Bearer " + token}
        s, _, data = http("GET", storage + f"object/edits/{a_id}/e.jpg", None, bearer)
        expect_denied(f"{who} downloads A's object", s if s != 400 else int(json.loads(data).get("statusCode", 400)), data[:100])
        s, _, data = http("GET", storage + f"object/authenticated/edits/{a_id}/e.jpg", None, bearer)
        expect_denied(f"{who} downloads A's object (authenticated)", s if s != 400 else int(json.loads(data).get("statusCode", 400)), data[:100])
        s, body = http_json("POST", storage + "object/list/edits", {"prefix": f"{a_id}/"}, bearer)
        expect_denied(f"{who} lists A's folder", s, body)
        for method, extra in (("POST", {}), ("PUT", {"x-upsert": "true"}), ("POST", {"x-upsert": "true"})):
            s, _, data = http(method, storage + f"object/edits/{a_id}/e.jpg", b"\xff\xd8\xffEVIL",
                              dict(bearer, **{"Content-Type": "image/jpeg"}, **extra))
            code = int(json.loads(data).get("statusCode", s)) if s == 400 and data.startswith(b"{") else s
            expect_denied(f"{who} {method} {extra} over A's object", code, data[:100], allowed_empty=False)
        s, _, data = http("DELETE", storage + f"object/edits/{a_id}/e.jpg", None, bearer)
        code = int(json.loads(data).get("statusCode", s)) if s == 400 and data.startswith(b"{") else s
        expect_denied(f"{who} deletes A's object", code if s >= 300 else 200, json.loads(data) if data.startswith(b"[") else [],)
        s, body = http_json("DELETE", storage + "object/edits", {"prefixes": [f"{a_id}/e.jpg"]}, bearer)
        expect_denied(f"{who} bulk-deletes A's object", s, body)

    # A's data is unchanged.
    likes = devstack.service_get(f"likes?user_id=eq.{a_id}&select=photo_id,deleted_at")
    photos = devstack.service_get(f"photos?user_id=eq.{a_id}&select=photo_id,title,deleted_at")
    edits = devstack.service_get(f"edits?user_id=eq.{a_id}&select=id,storage_path,deleted_at")
    profile = devstack.service_get(f"profiles?id=eq.{a_id}&select=username")
    s, _, content = http("GET", storage + f"object/edits/{a_id}/e.jpg", None, {"Authorization": "Bearer " + a_token})
    intact = (likes == [{"photo_id": photo, "deleted_at": None}] and len(photos) == 1 and photos[0]["deleted_at"] is None
              and len(edits) == 1 and edits[0]["deleted_at"] is None and not profile[0]["username"].startswith("stolen_")
              and s == 200 and content == b"\xff\xd8\xff" + b"a" * 100)
    if not intact:
        leaks.append(f"A's data changed: likes {likes}, photos {photos}, edits {edits}, profile {profile}, object {s} {content[:20]!r}")
    for leak in leaks:
        figures.bug(f"security RLS: {leak}")
    figures.add("cross-user and anon access to every table and to Storage denied; A's data unchanged", attempts + 1,
                len(leaks), f"{denied} of {attempts} attempts denied (likes, photos, edits, profiles: read, update, delete, "
                            f"insert, upsert; Storage: download, list, upload, upsert, delete)")


def units(figures):
    if not shutil.which("systemd-analyze"):
        figures.note("not measured: no systemd-analyze")
        return
    directory = os.path.join(ROOT, ".build-chaos", "units")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory, mode=0o700)
    shutil.copy(os.path.join(ROOT, "systemd", "system", "splashd@.service"), os.path.join(directory, "splashd@alice.service"))
    shutil.copy(os.path.join(ROOT, "systemd", "user", "splashd.service"), os.path.join(directory, "splashd.service"))
    scores = {}
    for name, extra in (("splashd@alice.service (system template)", []), ("splashd.service (user unit)", ["--user"])):
        path = os.path.join(directory, name.split()[0])
        env = dict(os.environ, XDG_RUNTIME_DIR=directory)  # --user wants a runtime directory, even offline
        out = subprocess.run(["systemd-analyze", "security", "--offline=yes", *extra, path], capture_output=True, text=True, env=env)
        match = re.search(r"Overall exposure level for \S+: ([0-9.]+) (\S+)", out.stdout + out.stderr)
        scores[name] = f"{match.group(1)} {match.group(2)}" if match else f"no score ({(out.stderr or out.stdout)[-200:].strip()})"
    shutil.rmtree(directory, ignore_errors=True)
    system = scores["splashd@alice.service (system template)"]
    bad = not system[0].isdigit() or float(system.split()[0]) > 2.0
    if bad:
        figures.bug(f"security units: the system template scores {system} (docs/operations.md promises <= 2.0)")
    figures.add("systemd-analyze security --offline=yes of the shipped units", 1, 1 if bad else 0,
                "; ".join(f"{k}: {v}" for k, v in scores.items()))


def run(devstack, base, figures, trials, rng, short=False):
    files_and_logs(devstack, base, figures)
    tls(devstack, base, figures)
    plain_http(devstack, base, figures)
    rls(devstack, figures)
    units(figures)
