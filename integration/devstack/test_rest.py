"""/rest/v1: the PostgREST subset, its status codes, headers and error bodies."""
import time
import uuid

from conftest import Api

REP = {"Prefer": "return=representation"}


def like_rows(user, *photo_ids):
    r = user.api.post("/rest/v1/likes", json=[{"photo_id": p} for p in photo_ids], headers=REP)
    assert r.status_code == 201, r.text
    return r.json()


def test_bulk_insert_minimal_and_representation(make_user):
    u = make_user()
    r = u.api.post("/rest/v1/likes", json=[{"photo_id": "unsplash:a"}, {"photo_id": "unsplash:b"}])
    assert r.status_code == 201 and r.text == ""
    rows = like_rows(u, "nasa:PIA00001")
    assert rows[0]["user_id"] == u.id and rows[0]["deleted_at"] is None
    assert r.headers.get("Preference-Applied") is None
    r = u.api.post("/rest/v1/likes", json=[{"photo_id": "unsplash:c"}, {"photo_id": "unsplash:d", "liked_at": None}])
    assert r.status_code == 400 and r.json()["code"] == "PGRST102"


def test_select_filters_order_limit(make_user):
    u = make_user()
    like_rows(u, "unsplash:a1", "unsplash:b2", "nasa:Apollo 11, frame 3", "nasa:PIA1")
    g = lambda q, **kw: u.api.get("/rest/v1/likes?" + q, **kw)
    assert [r["photo_id"] for r in g("select=photo_id&order=photo_id.asc").json()] == \
        ["nasa:Apollo 11, frame 3", "nasa:PIA1", "unsplash:a1", "unsplash:b2"]
    assert len(g("photo_id=eq.unsplash:a1").json()) == 1
    assert len(g("photo_id=neq.unsplash:a1").json()) == 3
    assert len(g('photo_id=in.("nasa:Apollo 11, frame 3",unsplash:b2)').json()) == 2
    assert len(g("photo_id=like.unsplash:*").json()) == 2
    assert len(g("photo_id=ilike.NASA:*").json()) == 2
    assert len(g("deleted_at=is.null").json()) == 4
    assert len(g("deleted_at=not.is.null").json()) == 0
    assert len(g("liked_at=gt.2000-01-01T00:00:00Z").json()) == 4
    assert len(g("or=(photo_id.eq.unsplash:a1,photo_id.eq.nasa:PIA1)").json()) == 2
    assert len(g("photo_id=like.unsplash:*&or=(photo_id.eq.unsplash:a1,photo_id.eq.nasa:PIA1)").json()) == 1
    # In a logic tree a double-quoted value may hold ',', '.' and '(', and its quotes are not part of it.
    from urllib.parse import quote
    assert [r["photo_id"] for r in g("select=photo_id&or=" + quote('(photo_id.eq."nasa:Apollo 11, frame 3")')).json()] == \
        ["nasa:Apollo 11, frame 3"]
    assert len(g("or=" + quote('(photo_id.gt."nasa:PIA1",and(photo_id.eq."x",photo_id.eq."y"))')).json()) == 2
    r = g("select=photo_id&order=photo_id.desc.nullslast&limit=2&offset=1")
    assert [x["photo_id"] for x in r.json()] == ["unsplash:a1", "nasa:PIA1"]
    assert r.headers["Content-Range"] == "1-2/*"
    r = g("select=id,photo:photo_id&limit=1")
    assert set(r.json()[0]) == {"id", "photo"}


def test_count_exact_content_range_and_416(make_user):
    u = make_user()
    like_rows(u, *[f"unsplash:p{i}" for i in range(5)])
    r = u.api.get("/rest/v1/likes?limit=2", headers={"Prefer": "count=exact"})
    assert r.status_code == 206 and r.headers["Content-Range"] == "0-1/5"
    assert r.headers["Preference-Applied"] == "count=exact"
    r = u.api.get("/rest/v1/likes", headers={"Prefer": "count=exact"})
    assert r.status_code == 200 and r.headers["Content-Range"] == "0-4/5"
    r = u.api.get("/rest/v1/likes?photo_id=eq.none", headers={"Prefer": "count=exact"})
    assert r.status_code == 200 and r.headers["Content-Range"] == "*/0" and r.json() == []
    r = u.api.get("/rest/v1/likes?offset=10", headers={"Prefer": "count=exact"})
    assert r.status_code == 416 and r.json()["code"] == "PGRST103"
    r = u.api.request("HEAD", "/rest/v1/likes?limit=0", headers={"Prefer": "count=exact"})
    assert r.headers["Content-Range"] == "*/5" and r.text == ""
    r = u.api.get("/rest/v1/likes", headers={"Range": "1-2"})
    assert r.headers["Content-Range"] == "1-2/*" and len(r.json()) == 2


def test_singular_object(make_user):
    u = make_user()
    like_rows(u, "unsplash:x", "unsplash:y")
    obj = {"Accept": "application/vnd.pgrst.object+json"}
    r = u.api.get("/rest/v1/likes?photo_id=eq.unsplash:x", headers=obj)
    assert r.status_code == 200 and r.json()["photo_id"] == "unsplash:x"
    r = u.api.get("/rest/v1/likes", headers=obj)
    assert r.status_code == 406 and r.json()["code"] == "PGRST116"


def test_upsert_on_conflict_and_ignore(make_user):
    u = make_user()
    like_rows(u, "unsplash:x")
    when = "2024-05-01T10:00:00+00:00"
    r = u.api.post("/rest/v1/likes?on_conflict=user_id,photo_id",
                   json=[{"user_id": u.id, "photo_id": "unsplash:x", "liked_at": when, "deleted_at": when},
                         {"user_id": u.id, "photo_id": "unsplash:new", "liked_at": when, "deleted_at": None}],
                   headers={"Prefer": "resolution=merge-duplicates,return=representation"})
    assert r.status_code == 201, r.text
    assert "resolution=merge-duplicates" in r.headers["Preference-Applied"]
    rows = {x["photo_id"]: x for x in u.api.get("/rest/v1/likes").json()}
    assert len(rows) == 2 and rows["unsplash:x"]["deleted_at"] is not None
    # A plain insert of the same key conflicts: 409 23505.
    r = u.api.post("/rest/v1/likes", json={"photo_id": "unsplash:x"})
    assert r.status_code == 409 and r.json()["code"] == "23505"
    r = u.api.post("/rest/v1/likes?on_conflict=user_id,photo_id", json={"user_id": u.id, "photo_id": "unsplash:x"},
                   headers={"Prefer": "resolution=ignore-duplicates,return=representation"})
    assert r.status_code == 201 and r.json() == []
    # Edits: the client chooses the id, so a resend is harmless.
    eid = str(uuid.uuid4())
    body = {"id": eid, "photo_id": "unsplash:x", "pipeline": [{"op": "sepia", "amount": 0.4}],
            "storage_path": f"{u.id}/{eid}.jpg"}
    for _ in range(2):
        r = u.api.post("/rest/v1/edits", json=body, headers={"Prefer": "resolution=merge-duplicates"})
        assert r.status_code == 201, r.text
    assert u.api.get("/rest/v1/edits?select=id,pipeline").json() == [{"id": eid, "pipeline": body["pipeline"]}]


def test_patch_delete_and_updated_at(make_user):
    u = make_user()
    row = like_rows(u, "unsplash:x", "unsplash:y")[0]
    r = u.api.patch("/rest/v1/likes?photo_id=eq.unsplash:x", json={"deleted_at": "2025-01-01T00:00:00Z"},
                    headers=REP)
    assert r.status_code == 200 and r.json()[0]["deleted_at"].startswith("2025-01-01")
    assert r.json()[0]["updated_at"] > row["updated_at"]
    r = u.api.patch("/rest/v1/likes?photo_id=eq.unsplash:nothing", json={"deleted_at": None})
    assert r.status_code == 204
    r = u.api.delete("/rest/v1/likes?photo_id=eq.unsplash:y")
    assert r.status_code == 204
    assert [x["photo_id"] for x in u.api.get("/rest/v1/likes").json()] == ["unsplash:x"]
    r = u.api.delete("/rest/v1/likes")
    assert r.status_code == 400 and r.json()["code"] == "21000"
    r = u.api.delete("/rest/v1/likes?photo_id=eq.unsplash:x", headers=REP)
    assert r.status_code == 200 and len(r.json()) == 1


def test_rpc(make_user, anon):
    make_user()
    n = anon.post("/rest/v1/rpc/user_count", json={})
    assert n.status_code == 200 and isinstance(n.json(), int) and n.json() >= 1
    assert anon.get("/rest/v1/rpc/user_count").json() == n.json()
    r = anon.post("/rest/v1/rpc/no_such_fn", json={"a": 1})
    assert r.status_code == 404 and r.json()["code"] == "PGRST202"
    r = anon.post("/rest/v1/rpc/user_count", json={"unexpected": 1})
    assert r.status_code == 404 and r.json()["code"] == "PGRST202"
    r = anon.post("/rest/v1/rpc/handle_new_user", json={})
    assert r.status_code == 404


def test_the_schema_cache_reloads_on_notify(anon, sql):
    """As PostgREST: `NOTIFY pgrst, 'reload schema'` makes a function added or dropped since start known."""
    name = "devstack_reload_probe"

    def answer(until):
        """The function's answer once `until` holds of it: the reload runs beside the requests."""
        for _ in range(100):
            r = anon.post(f"/rest/v1/rpc/{name}", json={})
            if until(r):
                return r
            time.sleep(0.05)
        return r
    sql(f"create function public.{name}() returns int language sql as 'select 7'")
    try:
        assert anon.post(f"/rest/v1/rpc/{name}", json={}).status_code == 404, "not known before the notice"
        sql("notify pgrst, 'reload schema'")
        assert answer(lambda r: r.status_code == 200).json() == 7
    finally:
        sql(f"drop function public.{name}()")
        sql("notify pgrst, 'reload schema'")
    # Until the reload, the cached function is called and Postgres says it does not exist (42883).
    r = answer(lambda r: r.json().get("code") == "PGRST202")
    assert r.status_code == 404 and r.json()["code"] == "PGRST202"


def test_errors_unknown_table_column_bad_json(make_user):
    u = make_user()
    r = u.api.get("/rest/v1/nope")
    assert r.status_code == 404 and r.json()["code"] == "PGRST205"
    assert set(r.json()) == {"code", "message", "details", "hint"}
    r = u.api.get("/rest/v1/likes?select=nope")
    assert r.status_code == 400 and r.json()["code"] == "42703"
    r = u.api.get("/rest/v1/likes?nope=eq.1")
    assert r.status_code == 400 and r.json()["code"] == "42703"
    r = u.api.post("/rest/v1/likes", json={"photo_id": "unsplash:x", "nope": 1})
    assert r.status_code == 400 and r.json()["code"] == "PGRST204"
    r = u.api.post("/rest/v1/likes", data="{oops", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "PGRST102"
    r = u.api.get("/rest/v1/likes?photo_id=zz.1")
    assert r.status_code == 400 and r.json()["code"] == "PGRST100"
    r = u.api.get("/rest/v1/likes?order=photo_id.sideways")
    assert r.status_code == 400 and r.json()["code"] == "PGRST100"
    r = u.api.get("/rest/v1/likes?id=eq.not-a-uuid")
    assert r.status_code == 400 and r.json()["code"] == "22P02"
    r = u.api.post("/rest/v1/likes", json={"photo_id": "flickr:123"})
    assert r.status_code == 400 and r.json()["code"] == "23514"
    r = u.api.get("/rest/v1/likes?select=id,profiles(username)")
    assert r.status_code == 400 and r.json()["code"] == "PGRST200"


def test_filter_values_that_look_like_sql_are_harmless(make_user, sql):
    u = make_user()
    like_rows(u, "unsplash:x")
    for evil in ["unsplash:x' or '1'='1", "x; drop table public.likes; --", "x\\'); delete from likes; --"]:
        r = u.api.get("/rest/v1/likes", params={"photo_id": f"eq.{evil}"})
        assert r.status_code == 200 and r.json() == []
        r = u.api.get("/rest/v1/likes", params={"photo_id": f"in.({evil})"})
        assert r.status_code in (200, 400)
    r = u.api.get("/rest/v1/likes", params={"select": 'photo_id" from likes; drop table likes; --'})
    assert r.status_code == 400
    r = u.api.get('/rest/v1/likes"; drop table likes; --')
    assert r.status_code == 404
    assert len(u.api.get("/rest/v1/likes").json()) == 1
    assert sql("select count(*) from public.likes")[0][0] >= 1


def test_wrong_apikey_and_forged_jwt(make_user, env):
    u = make_user()
    r = Api(env, apikey="", token=u.session["access_token"]).get("/rest/v1/likes")
    assert r.status_code == 401 and r.json()["message"] == "No API key found in request"
    r = Api(env, apikey="wrong", token=u.session["access_token"]).get("/rest/v1/likes")
    assert r.status_code == 401 and r.json()["message"] == "Invalid API key"
    import jwt
    claims = jwt.decode(u.session["access_token"], options={"verify_signature": False})
    claims["role"] = "service_role"
    forged = jwt.encode(claims, "not-the-secret-not-the-secret-not-the-secret", algorithm="HS256")
    r = Api(env, token=forged).get("/rest/v1/likes")
    assert r.status_code == 401 and r.json()["code"] == "PGRST301"
    assert "WWW-Authenticate" in r.headers
    r = Api(env, token="a.b").get("/rest/v1/likes")
    assert r.status_code == 401 and r.json()["code"] == "PGRST301"


def test_profile_username_rules(make_user):
    a = make_user(username="Shared.Name")
    b = make_user(username="shared_name")
    pa = a.api.get("/rest/v1/profiles").json()[0]
    pb = b.api.get("/rest/v1/profiles").json()[0]
    assert pa["username"] == "shared_name"
    assert pb["username"] != pa["username"] and pb["username"].startswith("shared_name_")
    r = b.api.patch(f"/rest/v1/profiles?id=eq.{b.id}", json={"username": "shared_name"})
    assert r.status_code == 409 and r.json()["code"] == "23505"
    r = b.api.patch(f"/rest/v1/profiles?id=eq.{b.id}", json={"username": "No Spaces Allowed"})
    assert r.status_code == 400 and r.json()["code"] == "23514"
    r = b.api.patch(f"/rest/v1/profiles?id=eq.{b.id}", json={"username": "bee_2"}, headers=REP)
    assert r.status_code == 200 and r.json()[0]["username"] == "bee_2"
    assert r.json()[0]["updated_at"] > r.json()[0]["created_at"]
    r = b.api.patch(f"/rest/v1/profiles?id=eq.{b.id}", json={"email": "spoof@example.com"})
    assert r.status_code == 403 and r.json()["code"] == "42501"


def test_keyset_pull_cursor(make_user):
    """The pull cursor (updated_at, id) as a nested logic tree, the way sync pages through a table."""
    u = make_user()
    like_rows(u, *[f"unsplash:c{i}" for i in range(6)])
    seen, cursor = [], None
    while True:
        q = {"select": "id,updated_at", "order": "updated_at.asc,id.asc", "limit": "2"}
        if cursor:
            ts, rid = cursor
            q["or"] = f'(updated_at.gt."{ts}",and(updated_at.eq."{ts}",id.gt.{rid}))'
        page = u.api.get("/rest/v1/likes", params=q)
        assert page.status_code == 200, page.text
        rows = page.json()
        if not rows:
            break
        seen += [r["id"] for r in rows]
        cursor = (rows[-1]["updated_at"], rows[-1]["id"])
    assert len(seen) == 6 and len(set(seen)) == 6
