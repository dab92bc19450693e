"""The official Supabase Python client (supabase on PyPI) against devstack, used the way an app uses
hosted Supabase: auth, PostgREST queries and Storage."""
import uuid

import pytest

supabase = pytest.importorskip("supabase")
from supabase import ClientOptions, create_client  # noqa: E402


@pytest.fixture
def client(env):
    return create_client(env["SPLASHD_BACKEND_URL"], env["SPLASHD_ANON_KEY"],
                         options=ClientOptions(auto_refresh_token=False, persist_session=False))


def test_auth_flow(client):
    email = f"py{uuid.uuid4().hex[:10]}@example.com"
    res = client.auth.sign_up({"email": email, "password": "pa55word!", "options": {"data": {"username": "py_user"}}})
    assert res.session is not None and res.user.email == email
    assert res.user.user_metadata["username"] == "py_user"
    client.auth.sign_out()
    res = client.auth.sign_in_with_password({"email": email, "password": "pa55word!"})
    first = res.session
    assert first.access_token and first.expires_in == 3600
    refreshed = client.auth.refresh_session()
    assert refreshed.session.refresh_token != first.refresh_token
    assert client.auth.get_user().user.id == res.user.id
    client.auth.update_user({"data": {"theme": "dark"}})
    assert client.auth.get_user().user.user_metadata["theme"] == "dark"
    with pytest.raises(Exception) as e:
        client.auth.sign_in_with_password({"email": email, "password": "wrong-password"})
    assert "Invalid login credentials" in str(e.value)


def signed_in(client):
    email = f"py{uuid.uuid4().hex[:10]}@example.com"
    res = client.auth.sign_up({"email": email, "password": "pa55word!"})
    return res.user


def test_postgrest_queries(client):
    user = signed_in(client)
    t = client.table("likes")
    ins = t.insert([{"photo_id": f"unsplash:p{i}"} for i in range(5)]).execute()
    assert len(ins.data) == 5 and all(r["user_id"] == user.id for r in ins.data)
    res = t.select("photo_id, liked_at").like("photo_id", "unsplash:p*").order("photo_id", desc=True).limit(2).execute()
    assert [r["photo_id"] for r in res.data] == ["unsplash:p4", "unsplash:p3"]
    res = t.select("*", count="exact").in_("photo_id", ["unsplash:p1", "unsplash:p2"]).execute()
    assert res.count == 2 and len(res.data) == 2
    res = t.select("*", count="exact").limit(1).execute()
    assert res.count == 5 and len(res.data) == 1
    res = t.upsert({"user_id": user.id, "photo_id": "unsplash:p1", "deleted_at": "2025-02-02T00:00:00+00:00"},
                   on_conflict="user_id,photo_id").execute()
    assert res.data[0]["deleted_at"].startswith("2025-02-02")
    assert len(t.select("id").execute().data) == 5
    t.update({"deleted_at": None}).eq("photo_id", "unsplash:p1").execute()
    assert t.select("deleted_at").eq("photo_id", "unsplash:p1").single().execute().data["deleted_at"] is None
    t.delete().eq("photo_id", "unsplash:p0").execute()
    assert len(t.select("id").execute().data) == 4
    assert client.rpc("user_count").execute().data >= 1
    res = client.table("profiles").select("id, username").maybe_single().execute()
    assert res.data["id"] == user.id
    eid = str(uuid.uuid4())
    res = client.table("edits").upsert({"id": eid, "photo_id": "nasa:PIA00001",
                                         "pipeline": [{"op": "contrast", "amount": 1.2}],
                                         "storage_path": f"{user.id}/{eid}.jpg"}).execute()
    assert res.data[0]["pipeline"] == [{"op": "contrast", "amount": 1.2}]


def test_postgrest_errors(client):
    signed_in(client)
    with pytest.raises(Exception) as e:
        client.table("no_such_table").select("*").execute()
    assert "PGRST205" in str(e.value)
    with pytest.raises(Exception) as e:
        client.table("likes").insert({"photo_id": "bogus"}).execute()
    assert "23514" in str(e.value)


def test_storage(client):
    user = signed_in(client)
    bucket = client.storage.from_("edits")
    key = f"{user.id}/{uuid.uuid4()}.jpg"
    data = b"\xff\xd8\xff\xe0" + b"devstack" * 100
    bucket.upload(key, data, {"content-type": "image/jpeg"})
    assert bucket.download(key) == data
    bucket.upload(key, data + b"v2", {"content-type": "image/jpeg", "upsert": "true"})
    assert bucket.download(key) == data + b"v2"
    names = [o["name"] for o in bucket.list(user.id)]
    assert names == [key.split("/", 1)[1]]
    removed = bucket.remove([key])
    assert [o["name"] for o in removed] == [key]
    assert bucket.list(user.id) == []
    with pytest.raises(Exception):
        bucket.download(key)
    with pytest.raises(Exception):
        bucket.upload(f"{uuid.uuid4()}/not-mine.jpg", data, {"content-type": "image/jpeg"})
