"""/google: Google's OAuth endpoints for a Desktop client and the Photos Picker API, as splashd uses them."""
import base64
import hashlib
import secrets
import time
from urllib.parse import parse_qs, urlencode, urlsplit

import requests

SCOPE = "https://www.googleapis.com/auth/photospicker.mediaitems.readonly"


def url(env, path):
    return env["DEVSTACK_URL"] + path


def connect(env, denies=False):
    """The whole Desktop flow: authorise (the fake person consents), then the code for tokens."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    redirect = "http://127.0.0.1:5555/callback"
    r = requests.get(url(env, "/google/o/oauth2/v2/auth?" + urlencode({
        "client_id": env["SPLASHD_GOOGLE_CLIENT_ID"], "redirect_uri": redirect, "response_type": "code", "scope": SCOPE,
        "code_challenge": challenge, "code_challenge_method": "S256", "state": "s1"})), allow_redirects=False)
    assert r.status_code == 302, r.text
    back = parse_qs(urlsplit(r.headers["Location"]).query)
    assert back["state"] == ["s1"]
    if denies:
        return back
    form = {"client_id": env["SPLASHD_GOOGLE_CLIENT_ID"], "client_secret": env["SPLASHD_GOOGLE_CLIENT_SECRET"],
            "code": back["code"][0], "code_verifier": verifier, "grant_type": "authorization_code", "redirect_uri": redirect}
    t = requests.post(env["SPLASHD_GOOGLE_TOKEN_URL"], data=form)
    assert t.status_code == 200, t.text
    again = requests.post(env["SPLASHD_GOOGLE_TOKEN_URL"], data=form)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant", "a code works once"
    return t.json()


def bearer(tokens):
    return {"Authorization": "Bearer " + tokens["access_token"]}


def test_connect_refresh_revoke(env, control):
    tokens = connect(env)
    assert tokens["refresh_token"] and tokens["scope"] == SCOPE and tokens["expires_in"] == 3599
    form = {"client_id": env["SPLASHD_GOOGLE_CLIENT_ID"], "client_secret": env["SPLASHD_GOOGLE_CLIENT_SECRET"],
            "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}
    fresh = requests.post(env["SPLASHD_GOOGLE_TOKEN_URL"], data=form)
    assert fresh.status_code == 200 and "refresh_token" not in fresh.json()
    no_secret = requests.post(env["SPLASHD_GOOGLE_TOKEN_URL"], data={k: v for k, v in form.items() if k != "client_secret"})
    assert no_secret.status_code == 400 and no_secret.json()["error_description"] == "client_secret is missing."
    assert requests.post(env["SPLASHD_GOOGLE_REVOKE_URL"], data={"token": tokens["refresh_token"]}).status_code == 200
    gone = requests.post(env["SPLASHD_GOOGLE_TOKEN_URL"], data=form)
    assert gone.status_code == 400 and gone.json()["error"] == "invalid_grant"
    s = requests.post(url(env, "/google/v1/sessions"), json={}, headers={"Authorization": "Bearer " + fresh.json()["access_token"]})
    assert s.status_code == 401, "revoking the refresh token revokes the grant's access tokens too"
    assert requests.post(env["SPLASHD_GOOGLE_REVOKE_URL"], data={"token": tokens["refresh_token"]}).status_code == 400
    control.post("/_devstack/knobs", json={"provider_denies": 1})
    assert connect(env, denies=True)["error"] == ["access_denied"]


def test_pick_list_in_pages_download(env, control):
    control.post("/_devstack/knobs", json={"picker_poll_interval": 0.2})
    tokens = connect(env)
    s = requests.post(url(env, "/google/v1/sessions"), json={}, headers=bearer(tokens)).json()
    assert s["mediaItemsSet"] is False and s["pollingConfig"]["pollInterval"] == "0.2s"
    early = requests.get(url(env, "/google/v1/mediaItems"), params={"sessionId": s["id"]}, headers=bearer(tokens))
    assert early.status_code == 400 and early.json()["error"]["status"] == "FAILED_PRECONDITION"
    assert requests.get(s["pickerUri"], params={"pick": 5, "videos": 1, "twin": 3}).status_code == 200
    assert requests.get(url(env, "/google/v1/sessions/" + s["id"]), headers=bearer(tokens)).json()["mediaItemsSet"] is True
    items, token = [], None
    while True:
        page = requests.get(url(env, "/google/v1/mediaItems"), headers=bearer(tokens),
                            params={"sessionId": s["id"], "pageSize": 2, **({"pageToken": token} if token else {})}).json()
        items += page["mediaItems"]
        token = page.get("nextPageToken")
        if not token:
            break
    assert [i["type"] for i in items] == ["PHOTO"] * 5 + ["VIDEO"]
    base = items[0]["mediaFile"]["baseUrl"]
    assert requests.get(base + "=d").status_code == 403, "the bearer token is required"
    photo = requests.get(base + "=d", headers=bearer(tokens))
    assert photo.status_code == 200 and photo.content[:2] == b"\xff\xd8"
    part = requests.get(base + "=d", headers={**bearer(tokens), "Range": "bytes=10-"})
    assert part.status_code == 206 and part.content == photo.content[10:]
    control.post("/_devstack/knobs", json={"picker_base_url_lifetime": 0})
    time.sleep(0.05)
    assert requests.get(base + "=d", headers=bearer(tokens)).status_code == 403, "a baseUrl expires"
    assert requests.delete(url(env, "/google/v1/sessions/" + s["id"]), headers=bearer(tokens)).status_code == 200
    assert requests.get(url(env, "/google/v1/sessions/" + s["id"]), headers=bearer(tokens)).status_code == 404
