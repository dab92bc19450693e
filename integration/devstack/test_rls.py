"""Row level security from the project's migrations, enforced by Postgres through /rest/v1 and
/storage/v1: user B can neither see, change nor delete user A's rows or objects; anon sees only
recent_signups and user_count."""
import uuid

import pytest

REP = {"Prefer": "return=representation"}
TABLES = ("likes", "edits", "photos", "profiles")


@pytest.fixture
def pair(make_user):
    a, b = make_user(), make_user()
    eid = str(uuid.uuid4())
    assert a.api.post("/rest/v1/likes", json={"photo_id": "unsplash:a"}).status_code == 201
    assert a.api.post("/rest/v1/photos", json={"photo_id": "unsplash:a", "title": "A's"}).status_code == 201
    assert a.api.post("/rest/v1/edits", json={"id": eid, "photo_id": "unsplash:a", "pipeline": [],
                                              "storage_path": f"{a.id}/{eid}.jpg"}).status_code == 201
    r = a.api.post(f"/storage/v1/object/edits/{a.id}/{eid}.jpg", data=b"\xff\xd8A's edit",
                   headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 200, r.text
    return a, b, eid


def counts(user):
    return {t: len(user.api.get(f"/rest/v1/{t}").json()) for t in TABLES}


def test_b_cannot_see_a(pair):
    a, b, eid = pair
    assert counts(a) == {"likes": 1, "edits": 1, "photos": 1, "profiles": 1}
    assert counts(b) == {"likes": 0, "edits": 0, "photos": 0, "profiles": 1}
    assert b.api.get(f"/rest/v1/profiles?id=eq.{a.id}").json() == []
    assert b.api.get(f"/rest/v1/edits?id=eq.{eid}").json() == []
    r = b.api.get("/rest/v1/likes", headers={"Prefer": "count=exact"})
    assert r.headers["Content-Range"] == "*/0"


def test_b_cannot_change_or_delete_a(pair):
    a, b, eid = pair
    for path, body in ((f"/rest/v1/likes?user_id=eq.{a.id}", {"deleted_at": "2025-01-01T00:00:00Z"}),
                       (f"/rest/v1/edits?id=eq.{eid}", {"pipeline": [{"op": "evil"}]}),
                       (f"/rest/v1/photos?user_id=eq.{a.id}", {"title": "pwned"}),
                       (f"/rest/v1/profiles?id=eq.{a.id}", {"username": "pwned"})):
        r = b.api.patch(path, json=body, headers=REP)
        assert r.status_code == 200 and r.json() == [], (path, r.text)
    for t, f in (("likes", f"user_id=eq.{a.id}"), ("edits", f"id=eq.{eid}"), ("photos", f"user_id=eq.{a.id}")):
        r = b.api.delete(f"/rest/v1/{t}?{f}", headers=REP)
        assert r.status_code == 200 and r.json() == []
    r = b.api.delete(f"/rest/v1/profiles?id=eq.{a.id}")
    assert r.status_code == 403  # no delete privilege on profiles at all
    assert counts(a) == {"likes": 1, "edits": 1, "photos": 1, "profiles": 1}
    assert a.api.get("/rest/v1/likes").json()[0]["deleted_at"] is None
    assert a.api.get("/rest/v1/profiles").json()[0]["username"] != "pwned"


def test_b_cannot_write_rows_owned_by_a(pair):
    a, b, eid = pair
    r = b.api.post("/rest/v1/likes", json={"user_id": a.id, "photo_id": "unsplash:b"})
    assert r.status_code == 403 and r.json()["code"] == "42501"
    r = b.api.post("/rest/v1/edits?on_conflict=id", json={"id": eid, "photo_id": "unsplash:x", "pipeline": []},
                   headers={"Prefer": "resolution=merge-duplicates"})
    assert r.status_code in (403, 409), r.text
    assert a.api.get("/rest/v1/edits").json()[0]["photo_id"] == "unsplash:a"
    # B cannot move its own row to A either (WITH CHECK).
    assert b.api.post("/rest/v1/likes", json={"photo_id": "unsplash:b"}).status_code == 201
    r = b.api.patch("/rest/v1/likes?photo_id=eq.unsplash:b", json={"user_id": a.id})
    assert r.status_code == 403 and r.json()["code"] == "42501"
    # An edit's storage path must sit in the owner's folder.
    r = b.api.post("/rest/v1/edits", json={"id": str(uuid.uuid4()), "photo_id": "unsplash:x",
                                           "storage_path": f"{a.id}/stolen.jpg"})
    assert r.status_code == 400 and r.json()["code"] == "23514"


def test_b_cannot_touch_a_storage_objects(pair):
    a, b, eid = pair
    key = f"{a.id}/{eid}.jpg"
    assert a.api.get(f"/storage/v1/object/edits/{key}").content == b"\xff\xd8A's edit"
    r = b.api.get(f"/storage/v1/object/edits/{key}")
    assert r.status_code == 400 and r.json()["statusCode"] == "404"
    r = b.api.get(f"/storage/v1/object/authenticated/edits/{key}")
    assert r.status_code == 400 and r.json()["statusCode"] == "404"
    r = b.api.post("/storage/v1/object/list/edits", json={"prefix": a.id})
    assert r.status_code == 200 and r.json() == []
    r = b.api.post(f"/storage/v1/object/edits/{key}", data=b"\xff\xd8evil",
                   headers={"Content-Type": "image/jpeg", "x-upsert": "true"})
    assert r.status_code == 400 and r.json()["statusCode"] == "403"
    r = b.api.delete(f"/storage/v1/object/edits/{key}")
    assert r.status_code == 400 and r.json()["statusCode"] == "404"
    r = b.api.delete("/storage/v1/object/edits", json={"prefixes": [key]})
    assert r.status_code == 200 and r.json() == []
    r = b.api.post(f"/storage/v1/object/edits/{a.id}/planted.jpg", data=b"\xff\xd8",
                   headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 400 and r.json()["statusCode"] == "403"
    assert a.api.get(f"/storage/v1/object/edits/{key}").content == b"\xff\xd8A's edit"


def test_anon_sees_only_recent_signups_and_user_count(pair, anon):
    a, b, _ = pair
    for t in TABLES:
        r = anon.get(f"/rest/v1/{t}")
        assert r.status_code == 401 and r.json()["code"] == "42501", t
        body = {"username": "anon_user"} if t == "profiles" else {"photo_id": "unsplash:z"}
        r = anon.post(f"/rest/v1/{t}", json=body)
        assert r.status_code == 401, t
    r = anon.get("/rest/v1/recent_signups")
    assert r.status_code == 200
    rows = r.json()
    assert rows and all(set(x) == {"username", "created_at"} for x in rows)
    assert [x["created_at"] for x in rows] == sorted((x["created_at"] for x in rows), reverse=True)
    r = anon.get("/rest/v1/recent_signups?select=email")
    assert r.status_code == 400
    r = anon.post("/rest/v1/recent_signups", json={"username": "hacker"})
    assert (r.status_code, r.json()["code"]) in ((400, "55000"), (401, "42501"))  # not updatable
    assert anon.post("/rest/v1/rpc/user_count").json() >= 2
    assert anon.get("/rest/v1/user_stats").status_code == 401
    stats = b.api.get("/rest/v1/user_stats").json()
    assert len(stats) == 1 and stats[0]["user_count"] == anon.post("/rest/v1/rpc/user_count").json()
    r = b.api.patch("/rest/v1/user_stats?id=eq.1", json={"user_count": 0})
    assert r.status_code in (401, 403) or r.json() == [], r.text
    r = anon.get(f"/storage/v1/object/edits/{a.id}/x.jpg")
    assert r.status_code == 400 and r.json()["statusCode"] == "404"
    r = anon.post(f"/storage/v1/object/edits/{a.id}/x.jpg", data=b"x", headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 400 and r.json()["statusCode"] == "403"


def test_rls_enabled_on_every_public_table(sql):
    rows = sql("select c.relname, c.relrowsecurity from pg_class c join pg_namespace n on n.oid = c.relnamespace"
               " where n.nspname = 'public' and c.relkind = 'r'")
    assert {r["relname"] for r in rows} >= {"profiles", "likes", "edits", "photos"}
    assert all(r["relrowsecurity"] for r in rows), rows
    b = sql("select public from storage.buckets where id = 'edits'")
    assert b and b[0]["public"] is False


def test_service_role_bypasses_rls(pair, service):
    a, b, _ = pair
    r = service.get("/rest/v1/likes", headers={"Prefer": "count=exact"})
    assert r.status_code == 200 and len(r.json()) >= 1
