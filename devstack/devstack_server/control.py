"""/_devstack: fault injection, knobs, counters, reset, session revocation; and the middleware that
applies faults and counts requests for every other route."""
import asyncio
import collections
import fnmatch
import random
import socket
import struct
import time

from aiohttp import web

from .common import json_response, read_json, state

DEFAULT_KNOBS = {
    "access_token_lifetime": 3600,        # seconds, Auth's JWT exp
    "refresh_token_reuse_interval": 0,    # seconds a revoked refresh token may still be reused
    "unsplash_hourly_budget": 5000,       # Unsplash requests per rolling hour (X-Ratelimit-Limit)
    "unsplash_over_limit_status": 403,    # 403 text "Rate Limit Exceeded" (or 429)
    "auth_token_rate_limit": 0,           # /auth/v1/token requests per 5 minutes per client IP; 0 = off
    "rest_body_limit": 0,                 # bytes a /rest/v1 request body may have (a gateway's limit, 413); 0 = none
    "realtime_refuse_joins": 0,           # 1: every Realtime join is refused
    "realtime_silent_joins": 0,           # 1: Realtime joins get no answer
    "realtime_close_after_join": 0,       # 1: each join is answered, then its channel closed
    "realtime_ignore_heartbeats": 0,      # 1: Realtime heartbeats get no answer
    "realtime_delay_ms": 0,               # Realtime changes are held this long before delivery
    "provider_denies": 0,                 # 1: the fake OAuth provider refuses consent (error=access_denied)
    "pkce_code_lifetime": 300,            # seconds an /authorize code may be exchanged
    "google_access_token_lifetime": 3599, # seconds a Google access token lives
    "picker_poll_interval": 5,            # the pollInterval a picking session advises, in seconds
    "picker_session_timeout": 1800,       # seconds a picking session waits for the person (timeoutIn)
    "picker_base_url_lifetime": 3600,     # seconds a media item's baseUrl can be downloaded
}

ACTIONS = ("delay", "error", "reset", "truncate", "stall", "lose_answer")


class Counters:
    def __init__(self):
        self.clear()

    def clear(self):
        self.requests = collections.Counter()
        self.requests_by_path = collections.Counter()
        self.status = collections.Counter()
        self.bytes = collections.Counter()
        self.bytes_by_path = collections.Counter()
        self.answered_by_path = collections.Counter()
        self.download_tracking = collections.Counter()
        self.faults = collections.Counter()
        self.started = time.time()

    def snapshot(self):
        return {
            "since": self.started,
            "requests": dict(self.requests),
            "requests_total": sum(self.requests.values()),
            "requests_by_path": dict(self.requests_by_path),
            "status": {str(k): v for k, v in self.status.items()},
            "bytes_served": dict(self.bytes),
            "bytes_served_total": sum(self.bytes.values()),
            "bytes_served_by_path": dict(self.bytes_by_path),
            "answered_by_path": dict(self.answered_by_path),
            "download_tracking": dict(self.download_tracking),
            "download_tracking_total": sum(self.download_tracking.values()),
            "faults_injected": dict(self.faults),
            "faults_injected_total": sum(self.faults.values()),
        }


class Rule:
    FIELDS = {"path", "method", "probability", "times", "delay_ms", "action", "status", "body",
              "headers", "retry_after", "truncate_bytes", "stall_seconds", "content_type"}

    def __init__(self, d, index):
        if not isinstance(d, dict):
            raise ValueError("each rule must be an object")
        unknown = set(d) - self.FIELDS
        if unknown:
            raise ValueError(f"unknown rule fields: {sorted(unknown)}")
        self.raw = d
        self.index = index
        self.path = d.get("path", "*")
        if not isinstance(self.path, str):
            raise ValueError("path must be a glob string")
        self.method = (d.get("method") or "*").upper()
        self.probability = float(d.get("probability", 1.0))
        self.times = d.get("times")
        self.delay = float(d.get("delay_ms", 0)) / 1000.0
        self.action = d.get("action") or ("error" if "status" in d else "delay")
        if self.action not in ACTIONS:
            raise ValueError(f"action must be one of {ACTIONS}")
        self.status = int(d.get("status", 503))
        self.body = d.get("body")
        self.headers = dict(d.get("headers") or {})
        if d.get("retry_after") is not None:
            self.headers["Retry-After"] = str(d["retry_after"])
        self.truncate_bytes = d.get("truncate_bytes")
        self.stall_seconds = float(d.get("stall_seconds", 30))
        self.content_type = d.get("content_type")
        self.hits = 0

    def matches(self, request):
        if self.method != "*" and self.method != request.method:
            return False
        if self.times is not None and self.hits >= int(self.times):
            return False
        path = request.path
        if not (fnmatch.fnmatchcase(path, self.path) or fnmatch.fnmatchcase(request.raw_path, self.path)):
            return False
        return self.probability >= 1.0 or random.random() < self.probability

    def describe(self):
        return dict(self.raw, hits=self.hits)


def route_name(request):
    try:
        canonical = request.match_info.route.resource.canonical
    except Exception:
        canonical = "(unmatched)"
    return f"{request.method} {canonical}"


def hard_reset(request):
    """Close the connection with RST instead of FIN: the client sees 'connection reset by peer'."""
    transport = request.transport
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    transport.abort()


def error_response(rule, request):
    body = rule.body
    headers = dict(rule.headers)
    if body is None:
        if request.path.startswith("/unsplash") and rule.status in (403, 429):
            return web.Response(status=rule.status, text="Rate Limit Exceeded", headers=headers)
        body = {"message": f"devstack injected fault ({rule.status})", "code": "devstack_fault"}
    if isinstance(body, str):
        return web.Response(status=rule.status, text=body, headers=headers,
                            content_type=rule.content_type or "text/plain")
    return json_response(body, rule.status, headers=headers)


async def send_partial(request, response, rule):
    """Send the status line, headers (with the full Content-Length) and part of the body, then
    stall or cut the connection."""
    body = response.body if isinstance(response.body, (bytes, bytearray)) else b""
    full = len(body)
    if rule.action == "truncate":
        n = rule.truncate_bytes if rule.truncate_bytes is not None else full // 2
    else:
        n = rule.truncate_bytes if rule.truncate_bytes is not None else min(full // 2, 1024)
    n = max(0, min(int(n), max(full - 1, 0)))
    sr = web.StreamResponse(status=response.status, headers=response.headers)
    sr.content_length = full
    await sr.prepare(request)
    if n:
        await sr.write(bytes(body[:n]))
    if rule.action == "stall":
        await asyncio.sleep(rule.stall_seconds)
        await sr.write(bytes(body[n:]))
        await sr.write_eof()
        return sr
    await sr.drain()
    transport = request.transport
    if transport is not None:
        transport.close()
    return sr


@web.middleware
async def fault_and_count_middleware(request, handler):
    st = state(request)
    if request.path.startswith("/_devstack"):
        return await handler(request)
    name = route_name(request)
    st.counters.requests[name] += 1
    st.counters.requests_by_path[f"{request.method} {request.path}"] += 1
    rule = next((r for r in st.faults if r.matches(request)), None)
    if rule is not None:
        rule.hits += 1
        st.counters.faults[f"{rule.index}:{rule.action}"] += 1
        if rule.delay:
            await asyncio.sleep(rule.delay)
        if rule.action == "error":
            resp = error_response(rule, request)
            st.counters.status[resp.status] += 1
            return resp
        if rule.action == "reset":
            hard_reset(request)
            raise asyncio.CancelledError()
    try:
        resp = await handler(request)
    except web.HTTPException as e:
        st.counters.status[e.status] += 1
        raise
    st.counters.status[resp.status] += 1
    if rule is not None and rule.action == "lose_answer":
        # The request took effect; its answer is lost with the connection. The status line goes out
        # first, so that no client takes the reset for a dead kept-alive connection and quietly
        # sends the request again (libcurl does, when nothing at all came back).
        sr = web.StreamResponse(status=resp.status, headers=resp.headers)
        body = getattr(resp, "body", None)
        sr.content_length = len(body) + 1 if isinstance(body, (bytes, bytearray)) else 1
        await sr.prepare(request)
        await sr.drain()
        hard_reset(request)
        raise asyncio.CancelledError()
    body = getattr(resp, "body", None)
    if isinstance(body, (bytes, bytearray)):
        st.counters.bytes[name] += len(body)
        # Counted with the bytes, once the answer is made (requests_by_path counts a request as it comes).
        st.counters.bytes_by_path[f"{request.method} {request.path}"] += len(body)
        st.counters.answered_by_path[f"{request.method} {request.path}"] += 1
    if rule is not None and rule.action in ("truncate", "stall"):
        return await send_partial(request, resp, rule)
    return resp


# ------------------------------------------------------------------ /_devstack handlers

async def health(request):
    return json_response({"ok": True})


async def get_faults(request):
    return json_response([r.describe() for r in state(request).faults])


async def set_faults(request):
    ok, body = await read_json(request)
    if not ok:
        return json_response({"error": "malformed JSON"}, 400)
    if isinstance(body, dict):
        body = body.get("rules", [body])
    if body is None:
        body = []
    if not isinstance(body, list):
        return json_response({"error": "expected a JSON list of rules"}, 400)
    try:
        rules = [Rule(d, i) for i, d in enumerate(body)]
    except (ValueError, TypeError) as e:
        return json_response({"error": str(e)}, 400)
    state(request).faults = rules
    return json_response([r.describe() for r in rules])


async def clear_faults(request):
    state(request).faults = []
    return json_response([])


async def get_counters(request):
    st = state(request)
    snap = st.counters.snapshot()
    snap["unsplash_rate"] = st.unsplash_rate_snapshot()
    return json_response(snap)


async def get_knobs(request):
    return json_response(state(request).knobs)


async def set_knobs(request):
    ok, body = await read_json(request)
    if not ok or not isinstance(body, dict):
        return json_response({"error": "expected a JSON object"}, 400)
    st = state(request)
    unknown = set(body) - set(DEFAULT_KNOBS)
    if unknown:
        return json_response({"error": f"unknown knobs: {sorted(unknown)}",
                              "knobs": sorted(DEFAULT_KNOBS)}, 400)
    for k, v in body.items():
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
            return json_response({"error": f"{k} must be a non-negative number"}, 400)
        st.knobs[k] = v
    if "unsplash_hourly_budget" in body:
        st.unsplash_window.clear()
    if "auth_token_rate_limit" in body:
        st.token_windows.clear()
    return json_response(st.knobs)


async def reset(request):
    ok, body = await read_json(request)
    body = body if ok and isinstance(body, dict) else {}
    st = state(request)
    st.faults = []
    st.counters.clear()
    st.knobs = dict(DEFAULT_KNOBS)
    st.unsplash_window.clear()
    st.token_windows.clear()
    st.flow_states.clear()
    if hasattr(st, "google"):
        del st.google
    if body.get("database"):
        async with st.admin_pool.acquire() as conn:
            await conn.execute("delete from storage.objects; delete from auth.users;")
        st.storage_wipe()
    return json_response({"ok": True, "knobs": st.knobs})


async def revoke_sessions(request):
    ok, body = await read_json(request)
    if not ok or not isinstance(body, dict) or not (body.get("email") or body.get("user_id")):
        return json_response({"error": 'expected {"email": ...} or {"user_id": ...}'}, 400)
    st = state(request)
    mode = body.get("mode", "delete")
    async with st.admin_pool.acquire() as conn:
        if body.get("user_id"):
            uid = await conn.fetchval("select id from auth.users where id::text = $1", str(body["user_id"]))
        else:
            uid = await conn.fetchval("select id from auth.users where lower(email) = lower($1)",
                                      str(body["email"]))
        if uid is None:
            return json_response({"error": "user not found"}, 404)
        if mode == "revoke":
            n = await conn.fetchval(
                "with r as (update auth.refresh_tokens set revoked = true, updated_at = now() "
                "where user_id = $1 and not revoked returning 1) select count(*) from r", str(uid))
        else:
            n = await conn.fetchval(
                "with d as (delete from auth.sessions where user_id = $1 returning 1) select count(*) from d", uid)
    return json_response({"user_id": str(uid), "mode": mode, "count": n})


async def env(request):
    return web.Response(text=state(request).env_text())


def add_routes(app):
    r = app.router
    r.add_get("/_devstack/health", health)
    r.add_get("/_devstack/env", env)
    r.add_get("/_devstack/faults", get_faults)
    r.add_post("/_devstack/faults", set_faults)
    r.add_delete("/_devstack/faults", clear_faults)
    r.add_get("/_devstack/counters", get_counters)
    r.add_get("/_devstack/knobs", get_knobs)
    r.add_post("/_devstack/knobs", set_knobs)
    r.add_post("/_devstack/reset", reset)
    r.add_post("/_devstack/revoke_sessions", revoke_sessions)
