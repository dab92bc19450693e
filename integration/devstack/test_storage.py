"""/storage/v1: upload, upsert, download (with Range), list, delete; Supabase's error shape."""
from conftest import Api

JPEG = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 40


def up(user, key, data=JPEG, upsert=False, ctype="image/jpeg"):
    h = {"Content-Type": ctype}
    if upsert:
        h["x-upsert"] = "true"
    return user.api.post(f"/storage/v1/object/edits/{key}", data=data, headers=h)


def test_upload_download_list_delete(make_user):
    u = make_user()
    r = up(u, f"{u.id}/one.jpg")
    assert r.status_code == 200 and r.json()["Key"] == f"edits/{u.id}/one.jpg" and r.json()["Id"]
    r = u.api.get(f"/storage/v1/object/edits/{u.id}/one.jpg")
    assert r.status_code == 200 and r.content == JPEG
    assert r.headers["Content-Type"] == "image/jpeg" and r.headers["ETag"]
    assert int(r.headers["Content-Length"]) == len(JPEG)
    r = u.api.get(f"/storage/v1/object/authenticated/edits/{u.id}/one.jpg", headers={"Range": "bytes=4-9"})
    assert r.status_code == 206 and r.content == JPEG[4:10]
    up(u, f"{u.id}/sub/two.jpg")
    r = u.api.post("/storage/v1/object/list/edits", json={"prefix": u.id, "limit": 100, "offset": 0,
                                                          "sortBy": {"column": "name", "order": "asc"}})
    assert r.status_code == 200
    names = [(e["name"], e["id"] is None) for e in r.json()]
    assert names == [("sub", True), ("one.jpg", False)]
    assert r.json()[1]["metadata"]["size"] == len(JPEG)
    assert r.json()[1]["metadata"]["mimetype"] == "image/jpeg"
    r = u.api.delete(f"/storage/v1/object/edits/{u.id}/one.jpg")
    assert r.status_code == 200 and r.json() == {"message": "Successfully deleted"}
    r = u.api.delete("/storage/v1/object/edits", json={"prefixes": [f"{u.id}/sub/two.jpg", f"{u.id}/none.jpg"]})
    assert r.status_code == 200 and [o["name"] for o in r.json()] == [f"{u.id}/sub/two.jpg"]
    assert u.api.post("/storage/v1/object/list/edits", json={"prefix": u.id}).json() == []


def test_duplicate_and_upsert(make_user):
    u = make_user()
    key = f"{u.id}/e.jpg"
    assert up(u, key).status_code == 200
    r = up(u, key, b"\xff\xd8second")
    assert r.status_code == 400
    assert r.json()["statusCode"] == "409" and r.json()["error"] == "Duplicate"
    r = up(u, key, b"\xff\xd8second", upsert=True)
    assert r.status_code == 200
    assert u.api.get(f"/storage/v1/object/edits/{key}").content == b"\xff\xd8second"
    r = u.api.put(f"/storage/v1/object/edits/{key}", data=b"\xff\xd8third", headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 200
    assert u.api.get(f"/storage/v1/object/edits/{key}").content == b"\xff\xd8third"


def test_errors(make_user, env):
    u = make_user()
    r = u.api.get(f"/storage/v1/object/edits/{u.id}/missing.jpg")
    assert r.status_code == 400
    assert r.json() == {"statusCode": "404", "code": "NoSuchKey", "error": "not_found", "message": "Object not found"}
    r = u.api.get("/storage/v1/object/nobucket/x.jpg")
    assert r.status_code == 400 and r.json()["statusCode"] == "404" and r.json()["error"] == "Bucket not found"
    r = up(u, f"{u.id}/x.txt", b"hello", ctype="text/plain")
    assert r.status_code == 400 and r.json()["statusCode"] == "415"
    r = up(u, f"{u.id}/../escape.jpg")
    assert r.status_code in (400, 404)
    r = Api(env, token="forged.jwt.value").get(f"/storage/v1/object/edits/{u.id}/x.jpg")
    assert r.status_code == 400 and r.json()["statusCode"] == "403"
    r = u.api.post("/storage/v1/object/list/edits", data="{bad", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["statusCode"] == "400"
