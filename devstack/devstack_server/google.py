"""/google: stand-ins for Google's OAuth 2.0 endpoints (authorise, token, revoke) for a Desktop client, and
the Google Photos Picker API (sessions, media items, baseUrl downloads). In memory; see docs/devstack.md for
where they differ from Google's.

The person "picks" by opening the session's pickerUri: GET /google/picker/<id>?pick=N[&videos=K][&twin=I]
picks N photos (and K videos after them); with twin=I, photo I (0-based, I >= 1) is photo I-1 again,
re-encoded: a near-duplicate. Each photo is a real JPEG (cdn.render), made on first download."""
import asyncio
import base64
import hashlib
import secrets
import time
import urllib.parse
import uuid

from aiohttp import web

from .cdn import render
from .common import json_response, serve_bytes, state

CLIENT_ID = "devstack-desktop.apps.googleusercontent.com"
CLIENT_SECRET = "devstack-desktop-secret"
SCOPE = "https://www.googleapis.com/auth/photospicker.mediaitems.readonly"


class Google:
    def __init__(self):
        self.codes = {}      # authorisation code -> {redirect_uri, challenge, scope, issued}
        self.grants = {}     # grant id -> {revoked, scope}
        self.access = {}     # access token -> {grant, expires}
        self.refresh = {}    # refresh token -> grant id
        self.sessions = {}   # session id -> {grant, created, items (None until picked), deleted}
        self.media = {}      # baseUrl token -> {session, index, issued}
        self.bytes = {}      # (session id, index) -> JPEG bytes


def google(request):
    st = state(request)
    if not hasattr(st, "google"):
        st.google = Google()
    return st.google


def oauth_error(error, description, status=400):
    return json_response({"error": error, "error_description": description}, status)


def api_error(status, code, message):
    return json_response({"error": {"code": status, "message": message, "status": code}}, status)


def grant_of(request):
    """The live grant behind the request's Bearer token, or an error response."""
    g = google(request)
    header = request.headers.get("Authorization", "")
    token = header[7:] if header.startswith("Bearer ") else None
    entry = g.access.get(token) if token else None
    if entry is None or g.grants[entry["grant"]]["revoked"] or entry["expires"] < time.time():
        return None, api_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
    return entry["grant"], None


def issue_access(request, grant):
    g = google(request)
    lifetime = int(state(request).knobs["google_access_token_lifetime"])
    token = "ya29.devstack-" + secrets.token_urlsafe(24)
    g.access[token] = {"grant": grant, "expires": time.time() + lifetime}
    return token, lifetime


# ------------------------------------------------------------------ OAuth 2.0

async def authorize(request):
    """GET /google/o/oauth2/v2/auth: checked, then the person consents at once (or refuses with the
    provider_denies knob) and the browser goes back to redirect_uri."""
    g, q = google(request), request.query
    if q.get("client_id") != CLIENT_ID:
        return web.Response(status=400, text="Error 401: invalid_client. The OAuth client was not found.")
    redirect = q.get("redirect_uri", "")
    parts = urllib.parse.urlsplit(redirect)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "::1"):
        return web.Response(status=400, text="Error 400: redirect_uri_mismatch")
    if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
        return web.Response(status=400, text="Error 400: invalid_request")
    back = {"state": q["state"]} if "state" in q else {}
    if int(state(request).knobs["provider_denies"]):
        back["error"] = "access_denied"
    else:
        code = "4/devstack-" + secrets.token_urlsafe(24)
        g.codes[code] = {"redirect_uri": redirect, "challenge": q["code_challenge"], "scope": q.get("scope", ""),
                         "issued": time.time()}
        back.update(code=code, scope=q.get("scope", ""))
    sep = "&" if parts.query else "?"
    return web.Response(status=302, headers={"Location": redirect + sep + urllib.parse.urlencode(back)})


async def token(request):
    """POST /google/token, form-encoded: authorization_code (with the verifier) or refresh_token."""
    g = google(request)
    form = await request.post()
    if form.get("client_id") != CLIENT_ID:
        return oauth_error("invalid_client", "The OAuth client was not found.", 401)
    if not form.get("client_secret"):
        return oauth_error("invalid_request", "client_secret is missing.")
    if form.get("client_secret") != CLIENT_SECRET:
        return oauth_error("invalid_client", "Unauthorized", 401)
    kind = form.get("grant_type")
    if kind == "authorization_code":
        entry = g.codes.pop(form.get("code", ""), None)
        if entry is None or time.time() - entry["issued"] > 600:
            return oauth_error("invalid_grant", "Malformed auth code.")
        if entry["redirect_uri"] != form.get("redirect_uri"):
            return oauth_error("redirect_uri_mismatch", "Bad Request")
        digest = base64.urlsafe_b64encode(hashlib.sha256(form.get("code_verifier", "").encode()).digest()).rstrip(b"=").decode()
        if digest != entry["challenge"]:
            return oauth_error("invalid_grant", "Invalid code verifier.")
        grant = str(uuid.uuid4())
        g.grants[grant] = {"revoked": False, "scope": entry["scope"]}
        refresh = "1//devstack-" + secrets.token_urlsafe(32)
        g.refresh[refresh] = grant
        access, lifetime = issue_access(request, grant)
        return json_response({"access_token": access, "expires_in": lifetime, "refresh_token": refresh,
                              "scope": entry["scope"], "token_type": "Bearer"})
    if kind == "refresh_token":
        grant = g.refresh.get(form.get("refresh_token", ""))
        if grant is None or g.grants[grant]["revoked"]:
            return oauth_error("invalid_grant", "Token has been expired or revoked.")
        access, lifetime = issue_access(request, grant)
        return json_response({"access_token": access, "expires_in": lifetime, "scope": g.grants[grant]["scope"],
                              "token_type": "Bearer"})
    return oauth_error("unsupported_grant_type", "Invalid grant_type: " + str(kind))


async def revoke(request):
    """POST /google/revoke, form token=: an access or refresh token; the whole grant goes."""
    g = google(request)
    form = await request.post()
    tok = form.get("token", "")
    grant = g.refresh.get(tok) or (g.access.get(tok) or {}).get("grant")
    if grant is None or g.grants[grant]["revoked"]:
        return oauth_error("invalid_token", "Token expired or revoked")
    g.grants[grant]["revoked"] = True
    return web.Response(status=200)


# ------------------------------------------------------------------ the Picker API

def session_json(request, sid, s):
    knobs = state(request).knobs
    created = s["created"]
    timeout = float(knobs["picker_session_timeout"])
    return {"id": sid, "pickerUri": state(request).base_url + "/google/picker/" + sid,
            "pollingConfig": {"pollInterval": f"{float(knobs['picker_poll_interval'])}s",
                              "timeoutIn": f"{max(0.0, created + timeout - time.time()):.0f}s"},
            "expireTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created + timeout)),
            "mediaItemsSet": s["items"] is not None}


def live_session(request, sid):
    grant, denied = grant_of(request)
    if denied is not None:
        return None, denied
    s = google(request).sessions.get(sid)
    if s is None or s["deleted"] or s["grant"] != grant:
        return None, api_error(404, "NOT_FOUND", "Requested entity was not found.")
    return s, None


async def create_session(request):
    grant, denied = grant_of(request)
    if denied is not None:
        return denied
    g = google(request)
    if len([s for s in g.sessions.values() if s["grant"] == grant and not s["deleted"]]) >= 10:
        return api_error(429, "RESOURCE_EXHAUSTED", "Too many open picking sessions.")
    sid = str(uuid.uuid4())
    g.sessions[sid] = {"grant": grant, "created": time.time(), "items": None, "deleted": False}
    return json_response(session_json(request, sid, g.sessions[sid]))


async def get_session(request):
    s, denied = live_session(request, request.match_info["id"])
    return denied or json_response(session_json(request, request.match_info["id"], s))


async def delete_session(request):
    s, denied = live_session(request, request.match_info["id"])
    if denied is not None:
        return denied
    s["deleted"] = True
    return json_response({})


async def pick(request):
    """The person in Google Photos: picks what the query says, once."""
    g = google(request)
    s = g.sessions.get(request.match_info["id"])
    if s is None or s["deleted"]:
        return web.Response(status=404, text="This picking session has ended.")
    if time.time() > s["created"] + float(state(request).knobs["picker_session_timeout"]):
        return web.Response(status=410, text="This picking session has expired.")
    photos, videos = int(request.query.get("pick", "3")), int(request.query.get("videos", "0"))
    twin = int(request.query.get("twin", "0"))
    items = []
    for i in range(photos + videos):
        video = i >= photos
        items.append({"id": "AF1Qip" + secrets.token_urlsafe(18), "video": video,
                      "seed": f"picked:{request.match_info['id']}:{i - 1 if twin and i == twin else i}",
                      "quality": 75 if twin and i == twin else 90,
                      "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 86400 * (i + 1)))})
    s["items"] = items
    return web.Response(text="Done: splashd can see what you picked. You can close this tab.", content_type="text/plain")


async def list_media(request):
    g = google(request)
    sid = request.query.get("sessionId", "")
    s, denied = live_session(request, sid)
    if denied is not None:
        return denied
    if s["items"] is None:
        return api_error(400, "FAILED_PRECONDITION", "The user has not finished picking media items.")
    try:
        size = max(1, min(int(request.query.get("pageSize", "50")), 100))
        start = int(request.query.get("pageToken") or "0")
    except ValueError:
        return api_error(400, "INVALID_ARGUMENT", "Invalid page token or size.")
    page = s["items"][start:start + size]
    out = []
    for offset, item in enumerate(page):
        tok = secrets.token_urlsafe(24)
        g.media[tok] = {"session": sid, "index": start + offset, "issued": time.time()}
        media_file = {"baseUrl": state(request).base_url + "/google/media/" + tok,
                      "mimeType": "video/mp4" if item["video"] else "image/jpeg",
                      "filename": f"{'VID' if item['video'] else 'IMG'}_{start + offset:04d}.{'mp4' if item['video'] else 'jpg'}",
                      "mediaFileMetadata": {"width": 1600, "height": 1200, "cameraMake": "Devstack", "cameraModel": "Picker One"}}
        out.append({"id": item["id"], "createTime": item["created"], "type": "VIDEO" if item["video"] else "PHOTO",
                    "mediaFile": media_file})
    body = {"mediaItems": out}
    if start + size < len(s["items"]):
        body["nextPageToken"] = str(start + size)
    return json_response(body)


async def media_bytes(request):
    """GET <baseUrl>=d (or =wW-hH): the bytes, with the Bearer token; a baseUrl lives picker_base_url_lifetime."""
    g = google(request)
    tok, _, params = request.match_info["rest"].partition("=")
    entry = g.media.get(tok)
    grant, denied = grant_of(request)
    if denied is not None:
        return web.Response(status=403, text="Forbidden")
    if entry is None or time.time() - entry["issued"] > float(state(request).knobs["picker_base_url_lifetime"]):
        return web.Response(status=403, text="Forbidden: the URL has expired")
    s = g.sessions[entry["session"]]
    if s["grant"] != grant:
        return web.Response(status=403, text="Forbidden")
    item = s["items"][entry["index"]]
    if item["video"]:
        return serve_bytes(request, b"\x00\x00\x00\x18ftypmp42devstack-video", "video/mp4", '"video"')
    key = (entry["session"], entry["index"])
    if key not in g.bytes:
        rgb = tuple(int(hashlib.sha1(item["seed"].encode()).hexdigest()[i:i + 2], 16) for i in (0, 2, 4))
        data = await asyncio.get_running_loop().run_in_executor(None, render, item["seed"], 1600, 1200, rgb)
        if item["quality"] != 90:
            from io import BytesIO
            from PIL import Image
            out = BytesIO()
            Image.open(BytesIO(data)).save(out, "JPEG", quality=item["quality"])
            data = out.getvalue()
        g.bytes[key] = data
    data = g.bytes[key]
    return serve_bytes(request, data, "image/jpeg", '"' + hashlib.sha1(data).hexdigest()[:20] + '"')


def add_routes(app):
    r = app.router
    r.add_get("/google/o/oauth2/v2/auth", authorize)
    r.add_post("/google/token", token)
    r.add_post("/google/revoke", revoke)
    r.add_post("/google/v1/sessions", create_session)
    r.add_get("/google/v1/sessions/{id}", get_session)
    r.add_delete("/google/v1/sessions/{id}", delete_session)
    r.add_get("/google/v1/mediaItems", list_media)
    r.add_get("/google/picker/{id}", pick)
    r.add_get("/google/media/{rest}", media_bytes)
