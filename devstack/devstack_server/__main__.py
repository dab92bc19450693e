"""Entry point: python -m devstack_server CONFIG.json (written by devstack/devstack up)."""
import asyncio
import collections
import json
import logging
import os
import shutil
import signal
import sys
import time

import asyncpg
from aiohttp import web

from . import auth, cdn, control, google, photos, realtime, rest, storage
from .catalogue import Nasa, Unsplash
from .common import STATE_KEY, make_jwt
from .rest import SchemaCache


class State:
    def __init__(self, cfg):
        self.cfg = cfg
        self.log = logging.getLogger("devstack")
        self.host = cfg["host"]
        self.listening_on(int(cfg["port"]))
        self.jwt_secret = cfg["jwt_secret"]
        self.seed = int(cfg.get("seed", 1))
        # The keys' issue time comes from the config, so a restarted server hands out the same keys.
        iat = int(cfg.get("keys_issued_at", time.time()))
        exp = iat + 10 * 365 * 86400
        self.anon_key = make_jwt(self.jwt_secret, {"iss": "supabase-demo", "role": "anon", "iat": iat, "exp": exp})
        self.service_key = make_jwt(self.jwt_secret, {"iss": "supabase-demo", "role": "service_role",
                                                      "iat": iat, "exp": exp})
        self.unsplash_key = "devstack-unsplash-" + self.jwt_secret[:16]
        self.knobs = dict(control.DEFAULT_KNOBS)
        self.counters = control.Counters()
        self.faults = []
        self.unsplash_window = collections.deque()
        self.token_windows = collections.defaultdict(collections.deque)  # client IP -> request times
        self.flow_states = {}  # PKCE auth code -> the sign-in it completes (auth.py, /authorize)
        self.state_dir = cfg["state_dir"]
        self.storage_dir = os.path.join(self.state_dir, "storage")
        self.cdn_dir = os.path.join(self.state_dir, "cdn")
        os.makedirs(self.storage_dir, exist_ok=True)
        os.makedirs(self.cdn_dir, exist_ok=True)
        self.cdn_locks = {}
        t = time.time()
        n = int(cfg.get("photos", 500))
        self.unsplash = Unsplash(n, self.seed)
        self.nasa = Nasa(n, self.seed)
        self.log.info("catalogues: %d photos in %.2fs", n, time.time() - t)
        self.schema = SchemaCache()
        self.admin_pool = self.api_pool = self.schema_listener = None

    def listening_on(self, port):
        """The port the server is bound to (0 until it is, when the config asks for any free port)."""
        self.port = port
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.base_url = f"http://{host}:{port}"

    def unsplash_rate_snapshot(self):
        budget = int(self.knobs["unsplash_hourly_budget"])
        now_s = time.monotonic()
        used = sum(1 for t in self.unsplash_window if t > now_s - 3600)
        return {"limit": budget, "used": used, "remaining": max(budget - used, 0)}

    def storage_wipe(self):
        shutil.rmtree(self.storage_dir, ignore_errors=True)
        os.makedirs(self.storage_dir, exist_ok=True)

    def env_lines(self):
        return [
            ("SPLASHD_BACKEND_URL", self.base_url),
            ("SPLASHD_ANON_KEY", self.anon_key),
            ("SPLASHD_UNSPLASH_API_URL", self.base_url + "/unsplash"),
            ("SPLASHD_UNSPLASH_ACCESS_KEY", self.unsplash_key),
            ("SPLASHD_NASA_API_URL", self.base_url + "/nasa"),
            ("SPLASHD_GOOGLE_AUTH_URL", self.base_url + "/google/o/oauth2/v2/auth"),
            ("SPLASHD_GOOGLE_TOKEN_URL", self.base_url + "/google/token"),
            ("SPLASHD_GOOGLE_REVOKE_URL", self.base_url + "/google/revoke"),
            ("SPLASHD_GOOGLE_PICKER_URL", self.base_url + "/google"),
            ("SPLASHD_GOOGLE_CLIENT_ID", google.CLIENT_ID),
            ("SPLASHD_GOOGLE_CLIENT_SECRET", google.CLIENT_SECRET),
            ("DEVSTACK_URL", self.base_url),
            ("DEVSTACK_STATE_DIR", self.state_dir),
            ("DEVSTACK_SERVICE_ROLE_KEY", self.service_key),
            ("DEVSTACK_JWT_SECRET", self.jwt_secret),
            ("DEVSTACK_DATABASE_URL", self.cfg["database_url"]),
            ("DEVSTACK_PID", str(os.getpid())),
        ]

    def env_text(self):
        return "".join(f"{k}={v}\n" for k, v in self.env_lines())


@web.middleware
async def error_middleware(request, handler):
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except (asyncio.CancelledError, ConnectionResetError):
        raise
    except Exception:
        request.app[STATE_KEY].log.exception("unhandled error on %s %s", request.method, request.path)
        return web.json_response({"message": "devstack internal error", "code": "internal"}, status=500)


async def on_startup(app):
    st = app[STATE_KEY]
    cfg = st.cfg
    common = dict(host=cfg["pg_socket_dir"], port=int(cfg["pg_port"]), database="postgres")
    st.admin_pool = await asyncpg.create_pool(user="postgres", min_size=1, max_size=10, **common)
    st.api_pool = await asyncpg.create_pool(user="authenticator", min_size=2, max_size=20, **common)
    async with st.admin_pool.acquire() as conn:
        await st.schema.load(conn)
    st.log.info("schema cache: %d relations, %d functions", len(st.schema.relations), len(st.schema.functions))
    # PostgREST reloads its schema cache on `NOTIFY pgrst, 'reload schema'` (Supabase sends it after DDL);
    # a test that drops or adds a function says so the same way.
    st.schema_listener = await asyncpg.connect(user="postgres", **common)
    st.schema_reload = asyncio.Lock()

    def reload(_conn, _pid, _channel, payload):
        if payload in ("", "reload schema"):
            asyncio.get_running_loop().create_task(reload_schema(st))
    await st.schema_listener.add_listener("pgrst", reload)


async def reload_schema(st):
    # One load at a time, in the notices' order: the last to finish read the catalogue after the last notice.
    async with st.schema_reload:
        async with st.admin_pool.acquire() as conn:
            await st.schema.load(conn)
    st.log.info("schema cache reloaded: %d relations, %d functions", len(st.schema.relations), len(st.schema.functions))


async def on_cleanup(app):
    st = app[STATE_KEY]
    if st.schema_listener is not None:
        await st.schema_listener.close()
    for pool in (st.api_pool, st.admin_pool):
        if pool is not None:
            await pool.close()


def build_app(st):
    app = web.Application(middlewares=[control.fault_and_count_middleware, error_middleware],
                          client_max_size=64 * 1024 * 1024)
    app[STATE_KEY] = st
    control.add_routes(app)
    auth.add_routes(app)
    rest.add_routes(app)
    storage.add_routes(app)
    photos.add_routes(app)
    google.add_routes(app)
    cdn.add_routes(app)
    realtime.add_routes(app)
    app.on_startup.append(on_startup)
    app.on_startup.append(realtime.start)  # after on_startup: it needs the pools
    app.on_shutdown.append(realtime.stop)
    app.on_cleanup.append(on_cleanup)
    return app


async def main(cfg_path):
    with open(cfg_path) as f:
        cfg = json.load(f)
    st = State(cfg)
    app = build_app(st)
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
    await runner.setup()
    # Port 0 binds whatever port is free at this moment, and the env file says which. A port picked
    # beforehand and bound later could be taken meanwhile (an outgoing connection's ephemeral port, or
    # another devstack starting beside this one): "address already in use" in one run of many.
    site = web.TCPSite(runner, st.host, st.port, reuse_address=True)
    await site.start()
    if st.port == 0:
        st.listening_on(runner.addresses[0][1])
    env_path = os.path.join(st.state_dir, "env")
    with open(env_path + ".tmp", "w") as f:
        f.write(st.env_text())
    os.replace(env_path + ".tmp", env_path)
    st.log.info("listening on %s", st.base_url)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(main(sys.argv[1]))
