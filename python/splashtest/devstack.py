"""A devstack instance of the caller's own: its own state directory and ports, up and down."""
import os
import shutil
import subprocess
import tempfile
import urllib.request
import uuid

from .errors import Failure
from .net import http_json

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVSTACK = os.path.join(ROOT, "devstack", "devstack")

# The password of every account this harness signs up: random per run, so that a search for it in a
# log or an answer finds only a leak (chaos's security part).
PASSWORD = "splashtest-pw-" + uuid.uuid4().hex[:12]


class Devstack:
    """`devstack up` in a state directory of its own (a new temporary one when none is named),
    optionally bound to `host` inside network namespace `netns`; `env` is what it printed."""

    def __init__(self, state_dir=None, photos=500, host=None, netns=None, prefix="splashd-devstack-"):
        if state_dir is None:
            state_dir = tempfile.mkdtemp(prefix=prefix)
            os.rmdir(state_dir)  # devstack creates it
        self.state_dir, self.photos, self.host, self.netns = state_dir, photos, host, netns
        self.env = {}

    def run(self, command, timeout=600):
        """Runs `devstack <command>` for this instance; its stdout. A private instance never takes a
        port pinned in the caller's environment."""
        env = dict(os.environ, DEVSTACK_STATE_DIR=self.state_dir, DEVSTACK_PHOTOS=str(self.photos))
        env.pop("DEVSTACK_PORT", None)
        if self.host:
            env["DEVSTACK_HOST"] = self.host
        cmd = [DEVSTACK, command]
        if self.netns:
            cmd = ["ip", "netns", "exec", self.netns] + cmd
        # Files, not pipes: the server devstack starts inherits them and outlives this call.
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            result = subprocess.run(cmd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL, timeout=timeout)
            out.seek(0), err.seek(0)
            text, error_text = out.read(), err.read()
        if result.returncode != 0:
            raise Failure(f"devstack {command} failed: {error_text[-3000:]}")
        return text

    def up(self):
        self.env = dict(line.split("=", 1) for line in self.run("up").splitlines() if "=" in line)
        return self

    def __enter__(self):
        return self.up()

    def __exit__(self, *exc):
        self.down()

    def down(self):
        """Stops the instance; a failure is reported, not raised (this is cleanup)."""
        try:
            self.run("down", timeout=120)
        except (Failure, subprocess.TimeoutExpired) as error:
            print(f"splashtest: devstack down: {error}", flush=True)

    def keep_logs(self, destination):
        """Copies the server's and Postgres's logs to `destination` (before `down` removes them)."""
        os.makedirs(destination, exist_ok=True)
        with open(os.path.join(self.state_dir, "pgdata.path")) as f:
            pgdata = f.read().strip()
        for path in (os.path.join(self.state_dir, "server.log"), os.path.join(pgdata, "postgres.log")):
            if os.path.exists(path):
                shutil.copy(path, destination)

    @property
    def url(self):
        return self.env["DEVSTACK_URL"]

    @property
    def backend(self):
        return self.env["SPLASHD_BACKEND_URL"]

    @property
    def anon(self):
        return self.env["SPLASHD_ANON_KEY"]

    @property
    def service(self):
        return self.env["DEVSTACK_SERVICE_ROLE_KEY"]

    def daemon_env(self, unsplash=True):
        """What a daemon needs to reach this instance: the backend, and (unless told not to) the
        Unsplash and NASA stand-ins."""
        env = {"SPLASHD_BACKEND_URL": self.backend, "SPLASHD_ANON_KEY": self.anon}
        if unsplash:
            for key in ("SPLASHD_UNSPLASH_API_URL", "SPLASHD_UNSPLASH_ACCESS_KEY", "SPLASHD_NASA_API_URL"):
                if key in self.env:
                    env[key] = self.env[key]
        return env

    # --- devstack's control API

    def control(self, method, path, body=None):
        status, data = http_json(method, self.url + path, body)
        if status >= 300:
            raise Failure(f"devstack {method} {path}: HTTP {status} {data!r}")
        return data

    def reset(self, database=False):
        return self.control("POST", "/_devstack/reset", {"database": True} if database else None)

    def faults(self, rules):
        return self.control("POST", "/_devstack/faults", rules)

    def clear_faults(self):
        return self.control("DELETE", "/_devstack/faults")

    def knobs(self, values):
        return self.control("POST", "/_devstack/knobs", values)

    def counters(self):
        return self.control("GET", "/_devstack/counters")

    def revoke(self, email, mode="delete"):
        return self.control("POST", "/_devstack/revoke_sessions", {"email": email, "mode": mode})

    # --- the backend, as the service role or a plain client

    def service_headers(self):
        return {"apikey": self.service, "Authorization": "Bearer " + self.service}

    def service_get(self, path_and_query):
        status, data = http_json("GET", self.backend + "/rest/v1/" + path_and_query, headers=self.service_headers())
        if status != 200:
            raise Failure(f"service read {path_and_query}: HTTP {status} {data!r}")
        return data

    def user_id(self, email):
        rows = self.service_get("profiles?select=id&email=eq." + urllib.request.quote(email))
        return rows[0]["id"] if rows else None

    def server_likes(self, email):
        """{photo_id: active?} of the account, and the list of duplicate photo ids (should be empty)."""
        uid = self.user_id(email)
        rows = self.service_get(f"likes?select=photo_id,deleted_at&user_id=eq.{uid}")
        result, duplicates = {}, []
        for row in rows:
            if row["photo_id"] in result:
                duplicates.append(row["photo_id"])
            result[row["photo_id"]] = row["deleted_at"] is None
        return result, duplicates

    def server_like_count(self, user_id):
        """How many `likes` rows the account has (tombstones included), from PostgREST's exact count."""
        request = urllib.request.Request(
            self.backend + f"/rest/v1/likes?select=id&user_id=eq.{user_id}&limit=1",
            headers=dict(self.service_headers(), Prefer="count=exact"))
        with urllib.request.urlopen(request, timeout=30) as response:
            content_range = response.headers.get("Content-Range", "*/0")
        return int(content_range.split("/")[-1])

    def signup(self, email, password=PASSWORD, username=None):
        body = {"email": email, "password": password, "data": {"username": username or "u" + uuid.uuid4().hex[:10]}}
        status, data = http_json("POST", self.backend + "/auth/v1/signup", body, headers={"apikey": self.anon})
        if status != 200:
            raise Failure(f"signup {email}: HTTP {status} {data!r}")
        return data

    def password_token(self, email, password=PASSWORD):
        """(access token, user id) from a password grant."""
        status, data = http_json("POST", self.backend + "/auth/v1/token?grant_type=password",
                                 {"email": email, "password": password}, headers={"apikey": self.anon})
        if status != 200:
            raise Failure(f"token for {email}: HTTP {status} {data!r}")
        return data["access_token"], data["user"]["id"]

    # --- the Unsplash stand-in

    def unsplash_photos(self, count, page=1):
        status, data = http_json("GET", self.env["SPLASHD_UNSPLASH_API_URL"] + f"/photos?per_page={count}&page={page}&order_by=oldest",
                                 headers={"Authorization": "Client-ID " + self.env["SPLASHD_UNSPLASH_ACCESS_KEY"]})
        if status != 200:
            raise Failure(f"unsplash photos: HTTP {status}")
        return data

    def unsplash_ids(self, count):
        """The first `count` photo ids of the seeded catalogue (pages of 30)."""
        ids, page = [], 1
        while len(ids) < count:
            got = self.unsplash_photos(30, page)
            if not got:
                break
            ids += [p["id"] for p in got]
            page += 1
        return ids[:count]
