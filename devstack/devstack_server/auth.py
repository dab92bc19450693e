"""/auth/v1: the subset of Supabase Auth (GoTrue) that splashd uses, on auth.* tables in Postgres."""
import base64
import hashlib
import ipaddress
import json
import re
import secrets
import time
import urllib.parse
import uuid

import asyncpg
from aiohttp import web

from .common import (JWTError, bearer, check_apikey, decode_jwt, iso, json_response, make_jwt,
                     read_json, state)

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
API_VERSION_HEADER = "X-Supabase-Api-Version"


class AuthError(Exception):
    def __init__(self, status, code, message, extra=None):
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra or {}


class OAuthError(Exception):
    def __init__(self, error, description, status=400):
        super().__init__(description)
        self.status, self.error, self.description = status, error, description


def error_response(request, e):
    if isinstance(e, OAuthError):
        return json_response({"error": e.error, "error_description": e.description}, e.status)
    version = request.headers.get(API_VERSION_HEADER)
    if version:
        body = {"code": e.code, "message": e.message, **e.extra}
        return json_response(body, e.status, headers={API_VERSION_HEADER: version})
    body = {"code": e.status, "error_code": e.code, "msg": e.message, **e.extra}
    return json_response(body, e.status, headers={"x-sb-error-code": e.code})


def endpoint(fn):
    async def wrapped(request):
        denied = check_apikey(request)
        if denied is not None:
            return denied
        try:
            resp = await fn(request)
        except (AuthError, OAuthError) as e:
            resp = error_response(request, e)
        version = request.headers.get(API_VERSION_HEADER)
        if version and API_VERSION_HEADER not in resp.headers:
            resp.headers[API_VERSION_HEADER] = version
        return resp
    return wrapped


async def json_body(request):
    ok, body = await read_json(request)
    if not ok:
        raise AuthError(400, "bad_json", "Could not parse request body as JSON: invalid character")
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise AuthError(400, "bad_json", "Could not parse request body as JSON: expected an object")
    return body


def user_json(u):
    uid = str(u["id"])
    app_md = _jsonb(u["raw_app_meta_data"])
    user_md = _jsonb(u["raw_user_meta_data"])
    out = {
        "id": uid,
        "aud": u["aud"] or "authenticated",
        "role": u["role"] or "authenticated",
        "email": u["email"],
        "email_confirmed_at": iso(u["email_confirmed_at"]),
        "phone": u["phone"] or "",
        "confirmed_at": iso(u["confirmed_at"]),
        "last_sign_in_at": iso(u["last_sign_in_at"]),
        "app_metadata": app_md,
        "user_metadata": user_md,
        "identities": [{
            "identity_id": str(uuid.uuid5(uuid.NAMESPACE_URL, "identity:" + uid)),
            "id": uid, "user_id": uid,
            "identity_data": {"email": u["email"], "email_verified": True,
                              "phone_verified": False, "sub": uid},
            "provider": "email",
            "last_sign_in_at": iso(u["last_sign_in_at"]),
            "created_at": iso(u["created_at"]), "updated_at": iso(u["updated_at"]),
            "email": u["email"],
        }],
        "created_at": iso(u["created_at"]),
        "updated_at": iso(u["updated_at"]),
        "is_anonymous": bool(u["is_anonymous"]),
    }
    return {k: v for k, v in out.items() if v is not None or k in ("email",)}


def _jsonb(v):
    if v is None:
        return {}
    return json.loads(v) if isinstance(v, str) else v


def check_password(password):
    if not isinstance(password, str) or password == "":
        raise AuthError(400, "validation_failed", "Signup requires a valid password")
    if len(password) < 6:
        raise AuthError(422, "weak_password", "Password should be at least 6 characters.",
                        {"weak_password": {"reasons": ["length"]}})
    if len(password.encode()) > 72:
        raise AuthError(422, "validation_failed", "Password cannot be longer than 72 characters")


def check_email(email):
    if not isinstance(email, str) or not email:
        raise AuthError(400, "validation_failed", "To signup, please provide your email")
    if not EMAIL_RE.match(email) or len(email) > 255:
        raise AuthError(400, "validation_failed", "Unable to validate email address: invalid format")
    return email.strip().lower()


async def issue_session(request, conn, user, session_id, refresh_token, method="password"):
    st = state(request)
    lifetime = int(st.knobs["access_token_lifetime"])
    now_s = int(time.time())
    exp = now_s + lifetime
    claims = {
        "iss": st.base_url + "/auth/v1",
        "sub": str(user["id"]),
        "aud": ["authenticated"],
        "exp": exp,
        "iat": now_s,
        "email": user["email"],
        "phone": user["phone"] or "",
        "app_metadata": _jsonb(user["raw_app_meta_data"]),
        "user_metadata": _jsonb(user["raw_user_meta_data"]),
        "role": user["role"] or "authenticated",
        "aal": "aal1",
        "amr": [{"method": method, "timestamp": now_s}],
        "session_id": str(session_id),
        "is_anonymous": bool(user["is_anonymous"]),
    }
    return {
        "access_token": make_jwt(st.jwt_secret, claims),
        "token_type": "bearer",
        "expires_in": lifetime,
        "expires_at": exp,
        "refresh_token": refresh_token,
        "user": user_json(user),
    }


def banned(user):
    return user["banned_until"] is not None and user["banned_until"].timestamp() > time.time()


def new_refresh_token():
    return secrets.token_urlsafe(16)


async def new_session(conn, user_id):
    sid = uuid.uuid4()
    token = new_refresh_token()
    await conn.execute("insert into auth.sessions (id, user_id) values ($1, $2)", sid, user_id)
    await conn.execute("insert into auth.refresh_tokens (token, user_id, session_id) values ($1, $2, $3)",
                       token, str(user_id), sid)
    return sid, token


async def fetch_user(conn, uid):
    return await conn.fetchrow("select * from auth.users where id = $1", uid)


# ------------------------------------------------------------------ handlers

@endpoint
async def health(request):
    return json_response({"version": "devstack", "name": "GoTrue",
                          "description": "GoTrue stand-in of splashd devstack"})


@endpoint
async def settings(request):
    return json_response({"external": {"email": True, "phone": False, "anonymous_users": False},
                          "disable_signup": False, "mailer_autoconfirm": True,
                          "phone_autoconfirm": False, "sms_provider": "", "saml_enabled": False})


@endpoint
async def signup(request):
    body = await json_body(request)
    email = check_email(body.get("email"))
    check_password(body.get("password"))
    data = body.get("data") or {}
    if not isinstance(data, dict):
        raise AuthError(400, "validation_failed", "data must be an object")
    st = state(request)
    async with st.admin_pool.acquire() as conn:
        async with conn.transaction():
            if await conn.fetchval("select 1 from auth.users where lower(email) = $1", email):
                raise AuthError(422, "user_already_exists", "User already registered")
            try:
                async with conn.transaction():
                    user = await conn.fetchrow(
                        "insert into auth.users (aud, role, email, encrypted_password, email_confirmed_at,"
                        " last_sign_in_at, raw_app_meta_data, raw_user_meta_data)"
                        " values ('authenticated', 'authenticated', $1, extensions.crypt($2, extensions.gen_salt('bf', 6)), now(),"
                        " now(), $3::jsonb, $4::jsonb) returning *",
                        email, body["password"],
                        json.dumps({"provider": "email", "providers": ["email"]}), json.dumps(data))
            except asyncpg.UniqueViolationError:
                raise AuthError(422, "user_already_exists", "User already registered")
            except asyncpg.PostgresError as e:
                st.log.warning("signup trigger failed: %s", e)
                raise AuthError(500, "unexpected_failure", "Database error saving new user")
            sid, token = await new_session(conn, user["id"])
            return json_response(await issue_session(request, conn, user, sid, token))


def check_token_rate(request):
    """Auth's rate limit on /token (hosted default 150 per 5 minutes per IP); off unless the knob is set."""
    st = state(request)
    limit = int(st.knobs["auth_token_rate_limit"])
    if limit <= 0:
        return
    window = st.token_windows[request.remote or ""]
    now_s = time.monotonic()
    while window and window[0] <= now_s - 300:
        window.popleft()
    if len(window) >= limit:
        raise AuthError(429, "over_request_rate_limit", "Request rate limit reached")
    window.append(now_s)


@endpoint
async def token(request):
    check_token_rate(request)
    grant = request.query.get("grant_type")
    if grant == "password":
        return await password_grant(request)
    if grant == "refresh_token":
        return await refresh_grant(request)
    if grant == "pkce":
        return await pkce_grant(request)
    raise OAuthError("unsupported_grant_type", "")


async def password_grant(request):
    body = await json_body(request)
    email, password = body.get("email"), body.get("password")
    if not isinstance(email, str) or not isinstance(password, str) or not email or not password:
        raise AuthError(400, "invalid_credentials", "Invalid login credentials")
    st = state(request)
    async with st.admin_pool.acquire() as conn:
        async with conn.transaction():
            user = await conn.fetchrow(
                "select * from auth.users where lower(email) = lower($1) and deleted_at is null"
                " and encrypted_password = extensions.crypt($2, encrypted_password)", email, password)
            if user is None:
                raise AuthError(400, "invalid_credentials", "Invalid login credentials")
            if user["email_confirmed_at"] is None:
                raise AuthError(400, "email_not_confirmed", "Email not confirmed")
            if banned(user):
                raise AuthError(400, "user_banned", "User is banned")
            user = await conn.fetchrow(
                "update auth.users set last_sign_in_at = now(), updated_at = now() where id = $1 returning *",
                user["id"])
            sid, token = await new_session(conn, user["id"])
            return json_response(await issue_session(request, conn, user, sid, token))


async def refresh_grant(request):
    body = await json_body(request)
    presented = body.get("refresh_token")
    if not isinstance(presented, str) or not presented:
        raise OAuthError("invalid_request", "refresh_token required")
    st = state(request)
    failure = None
    async with st.admin_pool.acquire() as conn:
        async with conn.transaction():
            rt = await conn.fetchrow("select * from auth.refresh_tokens where token = $1 for update", presented)
            if rt is None:
                raise AuthError(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
            user = await fetch_user(conn, uuid.UUID(rt["user_id"]))
            if user is None:
                raise AuthError(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
            if banned(user):
                raise AuthError(400, "user_banned", "Invalid Refresh Token: User Banned")
            session = None
            if rt["session_id"] is not None:
                session = await conn.fetchrow("select * from auth.sessions where id = $1 for update",
                                              rt["session_id"])
            if session is None:
                raise AuthError(400, "session_not_found", "Invalid Refresh Token: No Valid Session Found")
            if session["not_after"] is not None and session["not_after"].timestamp() < time.time():
                raise AuthError(400, "session_expired", "Invalid Refresh Token: Session Expired")
            if rt["revoked"]:
                active = await conn.fetchrow(
                    "select * from auth.refresh_tokens where session_id = $1 and not revoked"
                    " order by id desc limit 1", session["id"])
                reuse = float(st.knobs["refresh_token_reuse_interval"])
                within = reuse > 0 and rt["updated_at"].timestamp() + reuse >= time.time()
                if active is not None and (active["parent"] == rt["token"] or within):
                    # The client lost the response of its last refresh: hand it the active child again.
                    return json_response(await issue_session(request, conn, user, session["id"], active["token"]))
                # Reuse of an old token: revoke the whole family.
                await conn.execute("update auth.refresh_tokens set revoked = true, updated_at = now()"
                                   " where session_id = $1 and not revoked", session["id"])
                failure = AuthError(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used")
            else:
                await conn.execute("update auth.refresh_tokens set revoked = true, updated_at = now() where id = $1",
                                   rt["id"])
                child = new_refresh_token()
                await conn.execute("insert into auth.refresh_tokens (token, user_id, session_id, parent)"
                                   " values ($1, $2, $3, $4)", child, rt["user_id"], session["id"], rt["token"])
                await conn.execute("update auth.sessions set refreshed_at = now() at time zone 'utc',"
                                   " updated_at = now() where id = $1", session["id"])
                return json_response(await issue_session(request, conn, user, session["id"], child))
    raise failure


# ------------------------------------------------------------------ OAuth sign-in with PKCE
# GoTrue's /authorize sends the browser to the provider, whose consent comes back to GoTrue's /callback,
# which redirects to redirect_to with ?code=. Here a fake provider consents at once (or refuses, with
# the provider_denies knob): /authorize answers the final redirect itself. The person is login_hint
# (Google passes it through; GoTrue forwards unknown parameters) or <provider>-user@devstack.test.

PROVIDERS = ("google", "github")
CHALLENGE_RE = re.compile(r"^[A-Za-z0-9._~-]{43,128}$")


def with_query(url, **params):
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True) + list(params.items())
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def redirect_allowed(url, site_url):
    """GoTrue's rule: the Site URL's scheme and host, or a loopback IP literal; anything else falls back
    to the Site URL without an error."""
    try:
        parts, site = urllib.parse.urlsplit(url), urllib.parse.urlsplit(site_url)
        host = parts.hostname or ""
    except ValueError:
        return False
    if parts.scheme == site.scheme and host == site.hostname:
        return True
    try:
        return parts.scheme in ("http", "https") and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def authorize(request):
    """GET /auth/v1/authorize: no apikey (the browser calls it). Bad input is a JSON 400, not a redirect."""
    st = state(request)
    q = request.query
    try:
        provider = q.get("provider", "")
        if provider not in PROVIDERS:
            raise AuthError(400, "validation_failed", "Unsupported provider: provider is not enabled")
        challenge, method = q.get("code_challenge", ""), q.get("code_challenge_method", "")
        if bool(challenge) != bool(method):
            raise AuthError(400, "validation_failed", "PKCE flow requires code_challenge_method and code_challenge")
        if not challenge:
            raise AuthError(400, "validation_failed", "devstack signs in with the PKCE flow only")
        if method.lower() not in ("s256", "plain"):
            raise AuthError(400, "validation_failed", "Code challenge method not supported")
        if not CHALLENGE_RE.match(challenge):
            raise AuthError(400, "validation_failed", "Code challenge has invalid format")
    except AuthError as e:
        return error_response(request, e)
    redirect = q.get("redirect_to", "")
    if not redirect_allowed(redirect, st.base_url):
        redirect = st.base_url
    if int(st.knobs["provider_denies"]):
        location = with_query(redirect, error="access_denied", error_code="provider_consent_denied",
                              error_description="The person refused to sign in with " + provider)
    else:
        code = str(uuid.uuid4())
        st.flow_states[code] = {"provider": provider, "email": q.get("login_hint") or f"{provider}-user@devstack.test",
                                "challenge": challenge, "method": method.lower(), "issued": time.time()}
        location = with_query(redirect, code=code)
    return web.Response(status=302, headers={"Location": location})


def verifier_matches(flow, verifier):
    if flow["method"] == "plain":
        return secrets.compare_digest(verifier, flow["challenge"])
    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return secrets.compare_digest(digest, flow["challenge"])


async def pkce_grant(request):
    """POST /token?grant_type=pkce {auth_code, code_verifier}: a code works once, for 300 s."""
    body = await json_body(request)
    code, verifier = body.get("auth_code"), body.get("code_verifier")
    if not isinstance(code, str) or not isinstance(verifier, str) or not code or not verifier:
        raise AuthError(400, "validation_failed", "invalid request: both auth code and code verifier should be non-empty")
    st = state(request)
    flow = st.flow_states.get(code)
    if flow is None:
        raise AuthError(404, "flow_state_not_found", "invalid flow state, no valid flow state found")
    if time.time() - flow["issued"] > float(st.knobs["pkce_code_lifetime"]):
        st.flow_states.pop(code, None)
        raise AuthError(422, "flow_state_expired", "invalid flow state, flow state has expired")
    if not verifier_matches(flow, verifier):
        raise AuthError(400, "bad_code_verifier", "code challenge does not match previously saved code verifier")
    st.flow_states.pop(code, None)
    provider, address = flow["provider"], flow["email"].lower()
    async with st.admin_pool.acquire() as conn:
        async with conn.transaction():
            user = await conn.fetchrow("select * from auth.users where lower(email) = $1 and deleted_at is null", address)
            if user is None:
                user = await conn.fetchrow(
                    "insert into auth.users (aud, role, email, email_confirmed_at, last_sign_in_at,"
                    " raw_app_meta_data, raw_user_meta_data)"
                    " values ('authenticated', 'authenticated', $1, now(), now(), $2::jsonb, $3::jsonb) returning *",
                    address, json.dumps({"provider": provider, "providers": [provider]}),
                    json.dumps({"email": address, "full_name": address.split("@")[0], "provider_id": address}))
            elif banned(user):
                raise AuthError(400, "user_banned", "User is banned")
            else:
                user = await conn.fetchrow(
                    "update auth.users set last_sign_in_at = now(), updated_at = now() where id = $1 returning *", user["id"])
            sid, token = await new_session(conn, user["id"])
            session = await issue_session(request, conn, user, sid, token, method="oauth")
    session["provider_token"] = "devstack-" + provider + "-" + secrets.token_urlsafe(12)
    session["provider_refresh_token"] = "devstack-" + provider + "-refresh-" + secrets.token_urlsafe(12)
    return json_response(session)


async def authenticated_user(request, conn):
    """The user and claims behind the request's bearer token, checked the way GoTrue checks them."""
    present, tok = bearer(request)
    if not present or not tok:
        raise AuthError(401, "no_authorization", "This endpoint requires a valid Bearer token")
    try:
        claims = decode_jwt(state(request).jwt_secret, tok)
    except JWTError as e:
        raise AuthError(403, "bad_jwt", f"invalid JWT: unable to parse or verify signature, {e.message}")
    sub = claims.get("sub")
    if not sub:
        raise AuthError(403, "bad_jwt", "invalid claim: missing sub claim")
    try:
        uid = uuid.UUID(str(sub))
    except ValueError:
        raise AuthError(400, "bad_jwt", "invalid claim: sub claim must be a UUID")
    user = await fetch_user(conn, uid)
    if user is None:
        raise AuthError(403, "user_not_found", "User from sub claim in JWT does not exist")
    sid = claims.get("session_id")
    if sid:
        exists = await conn.fetchval("select 1 from auth.sessions where id::text = $1", str(sid))
        if not exists:
            raise AuthError(403, "session_not_found", "Session from session_id claim in JWT does not exist")
    return user, claims


@endpoint
async def get_user(request):
    async with state(request).admin_pool.acquire() as conn:
        user, _ = await authenticated_user(request, conn)
        return json_response(user_json(user))


@endpoint
async def put_user(request):
    st = state(request)
    async with st.admin_pool.acquire() as conn:
        user, _ = await authenticated_user(request, conn)
        body = await json_body(request)
        async with conn.transaction():
            if "email" in body and body["email"] is not None:
                email = check_email(body["email"])
                if email != (user["email"] or "").lower():
                    taken = await conn.fetchval("select 1 from auth.users where lower(email) = $1 and id <> $2",
                                                email, user["id"])
                    if taken:
                        raise AuthError(422, "email_exists",
                                        "A user with this email address has already been registered")
                    await conn.execute("update auth.users set email = $1, updated_at = now() where id = $2",
                                       email, user["id"])
            if "password" in body and body["password"] is not None:
                check_password(body["password"])
                same = await conn.fetchval("select encrypted_password = extensions.crypt($1, encrypted_password)"
                                           " from auth.users where id = $2", body["password"], user["id"])
                if same:
                    raise AuthError(422, "same_password",
                                    "New password should be different from the old password.")
                await conn.execute("update auth.users set encrypted_password = extensions.crypt($1, extensions.gen_salt('bf', 6)),"
                                   " updated_at = now() where id = $2", body["password"], user["id"])
            if "data" in body and body["data"] is not None:
                if not isinstance(body["data"], dict):
                    raise AuthError(400, "validation_failed", "data must be an object")
                await conn.execute("update auth.users set raw_user_meta_data ="
                                   " coalesce(raw_user_meta_data, '{}'::jsonb) || $1::jsonb, updated_at = now()"
                                   " where id = $2", json.dumps(body["data"]), user["id"])
            user = await fetch_user(conn, user["id"])
        return json_response(user_json(user))


@endpoint
async def logout(request):
    scope = request.query.get("scope", "global")
    if scope not in ("global", "local", "others"):
        raise AuthError(400, "validation_failed", f"Unsupported logout scope {scope!r}")
    async with state(request).admin_pool.acquire() as conn:
        user, claims = await authenticated_user(request, conn)
        sid = claims.get("session_id")
        if scope == "global" or not sid:
            await conn.execute("delete from auth.sessions where user_id = $1", user["id"])
        elif scope == "local":
            await conn.execute("delete from auth.sessions where id::text = $1", str(sid))
        else:
            await conn.execute("delete from auth.sessions where user_id = $1 and id::text <> $2",
                               user["id"], str(sid))
    return web.Response(status=204)


def add_routes(app):
    r = app.router
    r.add_get("/auth/v1/health", health)
    r.add_get("/auth/v1/settings", settings)
    r.add_post("/auth/v1/signup", signup)
    r.add_post("/auth/v1/token", token)
    r.add_get("/auth/v1/authorize", authorize)
    r.add_get("/auth/v1/user", get_user)
    r.add_put("/auth/v1/user", put_user)
    r.add_post("/auth/v1/logout", logout)
