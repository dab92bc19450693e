"""Shared helpers: JSON responses, timestamps, JWTs, the gateway's apikey check."""
import datetime as dt
import json
import re
import time

import jwt
from aiohttp import web

STATE_KEY = web.AppKey("state", object)


def state(request):
    return request.app[STATE_KEY]


def dumps(data):
    return json.dumps(data, separators=(",", ":"), default=_default).encode()


def _default(o):
    if isinstance(o, (dt.datetime, dt.date)):
        return iso(o) if isinstance(o, dt.datetime) else o.isoformat()
    return str(o)


def json_response(data, status=200, headers=None, raw=False):
    """data is a Python value, or (raw=True) already-encoded JSON text/bytes."""
    body = data if raw else dumps(data)
    if isinstance(body, str):
        body = body.encode()
    return web.Response(body=body, status=status, headers=headers,
                        content_type="application/json", charset="utf-8")


def iso(t):
    """Timestamps the way Supabase Auth writes them: fractional seconds and an offset."""
    if t is None:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return t.astimezone(dt.timezone.utc).isoformat(timespec="microseconds")


def now():
    return dt.datetime.now(dt.timezone.utc)


def make_jwt(secret, claims):
    return jwt.encode(claims, secret, algorithm="HS256")


class JWTError(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind  # "expired" | "invalid"
        self.message = message


def decode_jwt(secret, token):
    try:
        return jwt.decode(token, secret, algorithms=["HS256"],
                          options={"verify_aud": False})
    except jwt.ExpiredSignatureError:
        try:
            claims = jwt.decode(token, secret, algorithms=["HS256"],
                                options={"verify_aud": False, "verify_exp": False})
            late = int(time.time() - claims.get("exp", 0))
        except Exception:
            late = 0
        raise JWTError("expired", f"token has invalid claims: token is expired by {late}s")
    except jwt.InvalidSignatureError:
        raise JWTError("invalid", "signature is invalid")
    except jwt.PyJWTError as e:
        raise JWTError("invalid", f"unable to parse or verify signature: {e}")


def bearer(request):
    """(present, token): present is False when no Authorization header was sent."""
    h = request.headers.get("Authorization")
    if h is None:
        return False, None
    parts = h.split(None, 1)
    if len(parts) == 2 and parts[0].lower() == "bearer" and parts[1].strip():
        return True, parts[1].strip()
    return True, None


def apikey_of(request):
    return request.headers.get("apikey") or request.query.get("apikey")


def check_apikey(request):
    """The API gateway in front of Auth and PostgREST: None when fine, else the 401 response."""
    st = state(request)
    key = apikey_of(request)
    if not key:
        return json_response({"message": "No API key found in request",
                              "hint": "No `apikey` request header or url param was found."}, 401)
    if key not in (st.anon_key, st.service_key):
        return json_response({"message": "Invalid API key",
                              "hint": "Double check your Supabase `anon` or `service_role` API key."}, 401)
    return None


async def read_json(request):
    """(ok, value). ok is False for a malformed body."""
    raw = await request.read()
    if not raw.strip():
        return True, None
    try:
        return True, json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return False, None


async def in_role(request, role, claims, work, readonly=False):
    """Run work(conn) in one transaction as `role` with request.jwt.claims set, like PostgREST."""
    st = state(request)
    async with st.api_pool.acquire() as conn:
        async with conn.transaction(readonly=readonly):
            await conn.execute(
                "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true),"
                " set_config('request.method', $3, true), set_config('request.path', $4, true)",
                role, json.dumps(claims), request.method, request.path)
            return await work(conn)


def serve_bytes(request, data, content_type, etag, headers=None):
    """200/206/304/416 for in-memory bytes, with ETag, Content-Length and single-range support."""
    h = dict(headers or {})
    h["ETag"] = etag
    h["Accept-Ranges"] = "bytes"
    inm = request.headers.get("If-None-Match")
    if inm and (inm.strip() == "*" or etag in [x.strip() for x in inm.split(",")]):
        return web.Response(status=304, headers=h)
    total = len(data)
    rng = request.headers.get("Range")
    if_range = request.headers.get("If-Range")
    if rng and (not if_range or if_range.strip() == etag):
        m = re.match(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$", rng)
        start = end = None
        if m and (m.group(1) or m.group(2)):
            if m.group(1):
                start = int(m.group(1))
                end = int(m.group(2)) if m.group(2) else total - 1
            else:
                n = int(m.group(2))
                start, end = max(total - n, 0), total - 1
            end = min(end, total - 1)
        if m and start is not None and start <= end and start < total:
            h["Content-Range"] = f"bytes {start}-{end}/{total}"
            return web.Response(status=206, body=data[start:end + 1], headers=h, content_type=content_type)
        if m:
            h["Content-Range"] = f"bytes */{total}"
            return web.Response(status=416, headers=h)
    return web.Response(status=200, body=data, headers=h, content_type=content_type)
