"""Bad input across services: each answered in the real service's shape, and harmlessly."""
import time
import uuid

import requests

from conftest import Api

V = {"X-Supabase-Api-Version": "2024-01-01"}


def test_deleted_user_token(make_user, sql):
    u = make_user()
    sql("delete from auth.users where id = $1", uuid.UUID(u.id))
    r = u.api.get("/auth/v1/user", headers=V)
    assert r.status_code == 403 and r.json()["code"] == "user_not_found"
    r = Api(u.env).post("/auth/v1/token?grant_type=refresh_token",
                        json={"refresh_token": u.session["refresh_token"]}, headers=V)
    assert r.status_code == 400 and r.json()["code"] == "refresh_token_not_found"


def test_auth_token_rate_limit_knob(control, make_user, anon):
    u = make_user()
    control.post("/_devstack/knobs", json={"auth_token_rate_limit": 2})
    creds = {"email": u.email, "password": u.password}
    codes = [anon.post("/auth/v1/token?grant_type=password", json=creds, headers=V).status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    r = anon.post("/auth/v1/token?grant_type=password", json=creds, headers=V)
    assert r.json() == {"code": "over_request_rate_limit", "message": "Request rate limit reached"}
    control.post("/_devstack/knobs", json={"auth_token_rate_limit": 0})
    assert anon.post("/auth/v1/token?grant_type=password", json=creds).status_code == 200


def test_auth_rate_limit_can_be_injected(control, anon):
    control.post("/_devstack/faults", json=[{"path": "/auth/v1/token", "status": 429, "body": {
        "code": "over_request_rate_limit", "message": "Request rate limit reached"}}])
    r = anon.post("/auth/v1/token?grant_type=password", json={"email": "a@b.co", "password": "xxxxxx"})
    assert r.status_code == 429 and r.json()["code"] == "over_request_rate_limit"


def test_storage_expired_and_wrong_types(make_user, control, env):
    control.post("/_devstack/knobs", json={"access_token_lifetime": 1})
    u = make_user()
    time.sleep(2.1)
    r = u.api.get(f"/storage/v1/object/edits/{u.id}/x.jpg")
    assert r.status_code == 400 and r.json()["statusCode"] == "403" and r.json()["message"] == "jwt expired"
    r = Api(env, apikey="").get(f"/storage/v1/object/edits/{u.id}/x.jpg")
    assert r.status_code == 400 and r.json()["statusCode"] == "400"
    control.post("/_devstack/reset")
    u = make_user()
    r = u.api.delete("/storage/v1/object/edits", json={"prefixes": "not-a-list"})
    assert r.status_code == 400 and r.json()["statusCode"] == "400"
    r = u.api.post("/storage/v1/object/list/edits", json={"prefix": u.id, "sortBy": {"column": "id; drop"}})
    assert r.status_code == 400


def test_rest_wrong_json_types(make_user):
    u = make_user()
    r = u.api.post("/rest/v1/likes", json=[1, 2, 3])
    assert r.status_code == 400 and r.json()["code"] == "PGRST102"
    r = u.api.post("/rest/v1/likes", json={"photo_id": "unsplash:x", "liked_at": "yesterday-ish"})
    assert r.status_code == 400 and r.json()["code"] == "22007"
    r = u.api.patch("/rest/v1/likes?photo_id=eq.unsplash:x", json=["not", "an", "object"])
    assert r.status_code == 400 and r.json()["code"] == "PGRST102"
    r = u.api.post("/rest/v1/rpc/user_count", data="[", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "PGRST102"
    r = u.api.get("/rest/v1/likes?limit=ten")
    assert r.status_code == 400 and r.json()["code"] == "PGRST100"
    r = u.api.get("/rest/v1/likes?photo_id=in.unsplash:x")
    assert r.status_code == 400 and r.json()["code"] == "PGRST100"
    r = u.api.get("/rest/v1/likes?deleted_at=is.maybe")
    assert r.status_code == 400 and r.json()["code"] == "PGRST100"
    r = u.api.get("/rest/v1/likes?select=photo_id::text;drop")
    assert r.status_code == 400


def test_photo_apis_bad_params(unsplash, nasa):
    r = unsplash.get("/photos", params={"per_page": "many"})
    assert r.status_code == 400 and "errors" in r.json()
    r = unsplash.get("/search/photos", params={"query": "sky", "orientation": "round"})
    assert r.status_code == 400 and r.json()["errors"]
    r = unsplash.get("/photos/random", params={"count": "x"})
    assert r.status_code == 400
    r = unsplash.get("/search/photos", params={"query": "'; drop table photos; --"})
    assert r.status_code == 200 and r.json()["total"] == 0
    r = nasa.get("/search", params={"q": "moon", "page_size": "lots"})
    assert r.status_code == 400 and "reason" in r.json()
    r = nasa.get("/search", params={"q": "moon", "media_type": "hologram"})
    assert r.status_code == 400 and "reason" in r.json()
    assert requests.get(unsplash.base.replace("/unsplash", "/cdn/unsplash/photo-x") + "?w=abc").status_code in (400, 404)


def test_banned_user(make_user, sql, anon):
    u = make_user()
    sql("update auth.users set banned_until = now() + interval '1 hour' where id = $1", uuid.UUID(u.id))
    r = anon.post("/auth/v1/token?grant_type=password", json={"email": u.email, "password": u.password}, headers=V)
    assert r.status_code == 400 and r.json()["code"] == "user_banned"
    r = anon.post("/auth/v1/token?grant_type=refresh_token", json={"refresh_token": u.session["refresh_token"]},
                  headers=V)
    assert r.status_code == 400 and r.json()["code"] == "user_banned"
