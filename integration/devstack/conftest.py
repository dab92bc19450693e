"""Fixtures for the devstack tests. devstack/test brings up an instance and exports its KEY=VALUE
lines; run directly (pytest integration/devstack), this conftest brings up and takes down its own."""
import asyncio
import os
import subprocess
import uuid

import pytest
import requests

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVSTACK = os.path.join(ROOT, "devstack", "devstack")


def _parse(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


@pytest.fixture(scope="session")
def env():
    if os.environ.get("DEVSTACK_URL") and os.environ.get("SPLASHD_ANON_KEY"):
        yield {k: v for k, v in os.environ.items() if k.startswith(("DEVSTACK_", "SPLASHD_"))}
        return
    state_dir = f"/tmp/splashd-devstack-pytest-{os.getpid()}"
    e = dict(os.environ, DEVSTACK_STATE_DIR=state_dir)
    out = subprocess.run([DEVSTACK, "up"], env=e, check=True, capture_output=True, text=True).stdout
    try:
        yield _parse(out)
    finally:
        subprocess.run([DEVSTACK, "down"], env=e, check=False, capture_output=True)


class Api:
    """A thin requests wrapper: base url, apikey, optional bearer."""

    def __init__(self, env, token=None, apikey=None):
        self.env = env
        self.base = env["DEVSTACK_URL"]
        self.apikey = env["SPLASHD_ANON_KEY"] if apikey is None else apikey
        self.token = token
        self.s = requests.Session()

    def headers(self, extra=None):
        h = {}
        if self.apikey:
            h["apikey"] = self.apikey
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        h.update(extra or {})
        return {k: v for k, v in h.items() if v is not None}

    def request(self, method, path, headers=None, **kw):
        kw.setdefault("timeout", 20)
        return self.s.request(method, self.base + path, headers=self.headers(headers), **kw)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def patch(self, path, **kw):
        return self.request("PATCH", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def put(self, path, **kw):
        return self.request("PUT", path, **kw)


class User:
    def __init__(self, env, email, password, session):
        self.env, self.email, self.password, self.session = env, email, password, session
        self.id = session["user"]["id"]
        self.api = Api(env, token=session["access_token"])


@pytest.fixture(scope="session")
def anon(env):
    return Api(env)


@pytest.fixture(scope="session")
def service(env):
    return Api(env, token=env["DEVSTACK_SERVICE_ROLE_KEY"], apikey=env["DEVSTACK_SERVICE_ROLE_KEY"])


@pytest.fixture(scope="session")
def control(env):
    return Api(env, apikey="")


@pytest.fixture
def make_user(env, anon):
    def make(username=None, password="correct horse 1"):
        email = f"u{uuid.uuid4().hex[:12]}@example.com"
        data = {"username": username} if username else {}
        r = anon.post("/auth/v1/signup", json={"email": email, "password": password, "data": data})
        assert r.status_code == 200, r.text
        return User(env, email, password, r.json())
    return make


@pytest.fixture(autouse=True)
def _reset(control):
    control.post("/_devstack/reset")
    yield
    control.post("/_devstack/reset")


@pytest.fixture(scope="session")
def sql(env):
    """Run one statement as the cluster superuser: sql("select ...", *args) -> list of records."""
    import asyncpg

    def run(query, *args):
        async def go():
            conn = await asyncpg.connect(env["DEVSTACK_DATABASE_URL"])
            try:
                return await conn.fetch(query, *args)
            finally:
                await conn.close()
        return asyncio.run(go())
    return run


@pytest.fixture(scope="session")
def unsplash(env):
    api = Api(env, apikey="")
    api.base = env["SPLASHD_UNSPLASH_API_URL"]
    api.s.headers["Authorization"] = f"Client-ID {env['SPLASHD_UNSPLASH_ACCESS_KEY']}"
    return api


@pytest.fixture(scope="session")
def nasa(env):
    api = Api(env, apikey="")
    api.base = env["SPLASHD_NASA_API_URL"]
    return api
