"""/auth/v1: sessions, rotation, reuse detection, user endpoints, logout scopes, bad input."""
import time
import uuid

import jwt

from conftest import Api

V = {"X-Supabase-Api-Version": "2024-01-01"}


def email():
    return f"a{uuid.uuid4().hex[:12]}@example.com"


def test_health_needs_apikey(anon, env):
    assert anon.get("/auth/v1/health").status_code == 200
    r = Api(env, apikey="").get("/auth/v1/health")
    assert r.status_code == 401
    assert r.json()["message"] == "No API key found in request"
    r = Api(env, apikey="not-a-key").get("/auth/v1/health")
    assert r.status_code == 401 and r.json()["message"] == "Invalid API key"


def test_signup_returns_session_with_real_claims(anon, env):
    e = email()
    r = anon.post("/auth/v1/signup", json={"email": e, "password": "hunter22", "data": {"username": "zed"}})
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["token_type"] == "bearer" and s["expires_in"] == 3600
    assert abs(s["expires_at"] - (time.time() + 3600)) < 5
    assert s["refresh_token"]
    u = s["user"]
    for key in ("id", "aud", "role", "email", "phone", "app_metadata", "user_metadata", "identities",
                "created_at", "updated_at", "is_anonymous", "email_confirmed_at", "last_sign_in_at"):
        assert key in u, key
    assert u["email"] == e and u["user_metadata"] == {"username": "zed"}
    assert "." in u["created_at"] and u["created_at"].endswith("+00:00")
    claims = jwt.decode(s["access_token"], env["DEVSTACK_JWT_SECRET"], algorithms=["HS256"],
                        audience="authenticated")
    assert claims["sub"] == u["id"] and claims["role"] == "authenticated"
    assert claims["aud"] == ["authenticated"]
    for key in ("iat", "exp", "iss", "email", "phone", "app_metadata", "user_metadata", "is_anonymous",
                "session_id", "aal", "amr"):
        assert key in claims, key
    assert claims["exp"] - claims["iat"] == 3600


def test_signup_errors_both_shapes(anon):
    e = email()
    assert anon.post("/auth/v1/signup", json={"email": e, "password": "hunter22"}).status_code == 200
    r = anon.post("/auth/v1/signup", json={"email": e, "password": "hunter22"})
    assert r.status_code == 422
    assert r.json() == {"code": 422, "error_code": "user_already_exists", "msg": "User already registered"}
    assert r.headers["x-sb-error-code"] == "user_already_exists"
    r = anon.post("/auth/v1/signup", json={"email": e, "password": "hunter22"}, headers=V)
    assert r.status_code == 422
    assert r.json() == {"code": "user_already_exists", "message": "User already registered"}
    assert r.headers["X-Supabase-Api-Version"] == "2024-01-01"
    r = anon.post("/auth/v1/signup", json={"email": email(), "password": "abc"}, headers=V)
    assert r.status_code == 422 and r.json()["code"] == "weak_password"
    assert r.json()["weak_password"]["reasons"] == ["length"]
    r = anon.post("/auth/v1/signup", json={"email": email(), "password": ""}, headers=V)
    assert r.status_code == 400 and r.json()["code"] == "validation_failed"
    r = anon.post("/auth/v1/signup", json={"email": "not-an-email", "password": "hunter22"}, headers=V)
    assert r.status_code == 400 and r.json()["code"] == "validation_failed"


def test_malformed_json_body(anon):
    r = anon.post("/auth/v1/signup", data="{not json", headers={"Content-Type": "application/json", **V})
    assert r.status_code == 400 and r.json()["code"] == "bad_json"
    r = anon.post("/auth/v1/token?grant_type=password", data="[1,2", headers=V)
    assert r.status_code == 400 and r.json()["code"] == "bad_json"


def test_password_grant(make_user, anon):
    u = make_user()
    r = anon.post("/auth/v1/token?grant_type=password", json={"email": u.email, "password": u.password})
    assert r.status_code == 200 and r.json()["user"]["id"] == u.id
    r = anon.post("/auth/v1/token?grant_type=password", json={"email": u.email, "password": "wrong one"},
                  headers=V)
    assert r.status_code == 400
    assert r.json() == {"code": "invalid_credentials", "message": "Invalid login credentials"}
    r = anon.post("/auth/v1/token?grant_type=password", json={"email": "nobody@example.com", "password": "x"})
    assert r.status_code == 400 and r.json()["error_code"] == "invalid_credentials"


def test_oauth_style_errors(anon):
    r = anon.post("/auth/v1/token?grant_type=magic", json={})
    assert r.status_code == 400 and r.json()["error"] == "unsupported_grant_type"
    r = anon.post("/auth/v1/token?grant_type=refresh_token", json={"refresh_token": ""})
    assert r.status_code == 400 and r.json()["error"] == "invalid_request"
    assert "error_description" in r.json()


def refresh(anon, token):
    return anon.post("/auth/v1/token?grant_type=refresh_token", json={"refresh_token": token}, headers=V)


def test_refresh_rotation_parent_returns_child_and_reuse_revokes_family(make_user, anon):
    u = make_user()
    t0 = u.session["refresh_token"]
    r1 = refresh(anon, t0)
    assert r1.status_code == 200
    t1 = r1.json()["refresh_token"]
    assert t1 != t0
    # The client lost the response: the revoked parent yields the active child again.
    again = refresh(anon, t0)
    assert again.status_code == 200 and again.json()["refresh_token"] == t1
    t2 = refresh(anon, t1).json()["refresh_token"]
    # t0 is now a grandparent: reuse is detected and the whole family is revoked.
    r = refresh(anon, t0)
    assert r.status_code == 400 and r.json()["code"] == "refresh_token_already_used"
    r = refresh(anon, t2)
    assert r.status_code == 400 and r.json()["code"] == "refresh_token_already_used"
    assert refresh(anon, "no-such-token").json()["code"] == "refresh_token_not_found"


def test_get_and_put_user(make_user, env):
    u = make_user()
    r = u.api.get("/auth/v1/user")
    assert r.status_code == 200 and r.json()["id"] == u.id
    r = u.api.put("/auth/v1/user", json={"data": {"theme": "dark"}})
    assert r.status_code == 200 and r.json()["user_metadata"]["theme"] == "dark"
    new_email = email()
    r = u.api.put("/auth/v1/user", json={"email": new_email, "password": "a new password"})
    assert r.status_code == 200 and r.json()["email"] == new_email
    anon = Api(env)
    assert anon.post("/auth/v1/token?grant_type=password",
                     json={"email": new_email, "password": "a new password"}).status_code == 200
    prof = u.api.get("/rest/v1/profiles?select=email").json()
    assert prof == [{"email": new_email}]


def test_user_endpoint_token_errors(make_user, env):
    u = make_user()
    r = Api(env).get("/auth/v1/user", headers=V)  # no bearer
    assert r.status_code == 401 and r.json()["code"] == "no_authorization"
    forged = jwt.encode(jwt.decode(u.session["access_token"], options={"verify_signature": False}),
                        "some-other-secret-of-enough-length-000", algorithm="HS256")
    r = Api(env, token=forged).get("/auth/v1/user", headers=V)
    assert r.status_code == 403 and r.json()["code"] == "bad_jwt"
    r = Api(env, token="garbage").get("/auth/v1/user", headers=V)
    assert r.status_code == 403 and r.json()["code"] == "bad_jwt"
    r = Api(env, token=env["SPLASHD_ANON_KEY"]).get("/auth/v1/user", headers=V)
    assert r.status_code == 403 and r.json()["code"] == "bad_jwt"


def test_short_access_token_lifetime_expires(make_user, control, env):
    assert control.post("/_devstack/knobs", json={"access_token_lifetime": 1}).status_code == 200
    u = make_user()
    assert u.session["expires_in"] == 1
    time.sleep(2.1)
    r = u.api.get("/auth/v1/user", headers=V)
    assert r.status_code == 403 and r.json()["code"] == "bad_jwt"
    r = u.api.get("/rest/v1/likes")
    assert r.status_code == 401 and r.json()["code"] == "PGRST303"
    assert r.json()["message"] == "JWT expired"
    assert 'error="invalid_token"' in r.headers["WWW-Authenticate"]
    # Refreshing still works and gives a fresh token with the lifetime in force now.
    control.post("/_devstack/knobs", json={"access_token_lifetime": 60})
    s = refresh(Api(env), u.session["refresh_token"]).json()
    assert s["expires_in"] == 60 and Api(env, token=s["access_token"]).get("/rest/v1/likes").status_code == 200


def test_logout_scopes(make_user, anon, env):
    u = make_user()
    s2 = anon.post("/auth/v1/token?grant_type=password", json={"email": u.email, "password": u.password}).json()
    s3 = anon.post("/auth/v1/token?grant_type=password", json={"email": u.email, "password": u.password}).json()
    # others: s1 keeps its session, s2 and s3 lose theirs
    assert u.api.post("/auth/v1/logout?scope=others").status_code == 204
    assert refresh(anon, s2["refresh_token"]).json()["code"] in ("refresh_token_not_found", "session_not_found")
    r = Api(env, token=s3["access_token"]).get("/auth/v1/user", headers=V)
    assert r.status_code == 403 and r.json()["code"] == "session_not_found"
    assert u.api.get("/auth/v1/user").status_code == 200
    # access tokens stay valid for PostgREST until exp
    assert Api(env, token=s3["access_token"]).get("/rest/v1/likes").status_code == 200
    # local: only this session
    s4 = anon.post("/auth/v1/token?grant_type=password", json={"email": u.email, "password": u.password}).json()
    assert u.api.post("/auth/v1/logout?scope=local").status_code == 204
    assert u.api.get("/auth/v1/user").status_code == 403
    assert refresh(anon, s4["refresh_token"]).status_code == 200
    # global (default): everything
    assert Api(env, token=s4["access_token"]).post("/auth/v1/logout").status_code == 204
    assert refresh(anon, s4["refresh_token"]).status_code == 400
    assert u.api.post("/auth/v1/logout?scope=bogus", headers=V).status_code == 400


def test_revoke_sessions_knob_signs_out(make_user, anon, control):
    u = make_user()
    r = control.post("/_devstack/revoke_sessions", json={"email": u.email})
    assert r.status_code == 200 and r.json()["count"] == 1
    r = refresh(anon, u.session["refresh_token"])
    assert r.status_code == 400 and r.json()["code"] == "refresh_token_not_found"
    u2 = make_user()
    assert control.post("/_devstack/revoke_sessions", json={"user_id": u2.id, "mode": "revoke"}).status_code == 200
    assert refresh(anon, u2.session["refresh_token"]).json()["code"] == "refresh_token_already_used"
    assert control.post("/_devstack/revoke_sessions", json={"email": "nobody@x.org"}).status_code == 404


# ------------------------------------------------------------------ OAuth sign-in with PKCE (/authorize)

def pkce_pair():
    import base64
    import hashlib
    import secrets
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(64)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize(env, **params):
    from urllib.parse import urlencode
    return Api(env, apikey="").get("/auth/v1/authorize?" + urlencode(params), allow_redirects=False)


def code_of(location):
    from urllib.parse import parse_qs, urlsplit
    return parse_qs(urlsplit(location).query)


def test_authorize_redirects_with_a_code_that_works_once(env, anon):
    verifier, challenge = pkce_pair()
    hint = email()
    r = authorize(env, provider="google", redirect_to="http://127.0.0.1:4711/callback?state=xyz",
                  code_challenge=challenge, code_challenge_method="s256", login_hint=hint)
    assert r.status_code == 302, r.text
    location = r.headers["Location"]
    assert location.startswith("http://127.0.0.1:4711/callback?")
    query = code_of(location)
    assert query["state"] == ["xyz"] and len(query["code"]) == 1
    code = query["code"][0]
    s = anon.post("/auth/v1/token?grant_type=pkce", json={"auth_code": code, "code_verifier": verifier})
    assert s.status_code == 200, s.text
    session = s.json()
    assert session["user"]["email"] == hint and session["user"]["app_metadata"]["provider"] == "google"
    assert session["refresh_token"] and session["provider_token"]
    # Used once; the refresh token it gave works like a password session's.
    again = anon.post("/auth/v1/token?grant_type=pkce", json={"auth_code": code, "code_verifier": verifier})
    assert again.status_code == 404 and again.json()["error_code"] == "flow_state_not_found"
    assert anon.post("/auth/v1/token?grant_type=refresh_token", json={"refresh_token": session["refresh_token"]}).status_code == 200


def test_authorize_bad_input(env, anon, control):
    verifier, challenge = pkce_pair()
    assert authorize(env, provider="myspace", code_challenge=challenge, code_challenge_method="s256").status_code == 400
    assert authorize(env, provider="github", code_challenge=challenge).status_code == 400
    assert authorize(env, provider="github", code_challenge="short", code_challenge_method="s256").status_code == 400
    assert authorize(env, provider="github", code_challenge=challenge, code_challenge_method="md5").status_code == 400
    # A redirect that is neither the site nor loopback falls back to the site, silently.
    r = authorize(env, provider="github", redirect_to="https://evil.example/cb", code_challenge=challenge,
                  code_challenge_method="s256")
    assert r.status_code == 302 and r.headers["Location"].startswith(env["DEVSTACK_URL"] + "?code=")
    # A wrong verifier leaves the code usable; an expired code is gone.
    code = code_of(authorize(env, provider="github", redirect_to="http://127.0.0.1:1/cb", code_challenge=challenge,
                             code_challenge_method="s256").headers["Location"])["code"][0]
    bad = anon.post("/auth/v1/token?grant_type=pkce", json={"auth_code": code, "code_verifier": "x" * 43})
    assert bad.status_code == 400 and bad.json()["error_code"] == "bad_code_verifier"
    control.post("/_devstack/knobs", json={"pkce_code_lifetime": 0})
    time.sleep(0.05)
    gone = anon.post("/auth/v1/token?grant_type=pkce", json={"auth_code": code, "code_verifier": verifier})
    assert gone.status_code == 422 and gone.json()["error_code"] == "flow_state_expired"
    # The provider refusing: back to redirect_to with error=access_denied.
    control.post("/_devstack/knobs", json={"provider_denies": 1, "pkce_code_lifetime": 300})
    r = authorize(env, provider="google", redirect_to="http://127.0.0.1:1/cb", code_challenge=challenge,
                  code_challenge_method="s256")
    assert code_of(r.headers["Location"])["error"] == ["access_denied"] and "code" not in code_of(r.headers["Location"])
