"""/unsplash, /nasa and /cdn: shapes from reference/photo-apis.md, paging, rate limits, image bytes."""
import re

import requests


def test_client_id_required(env):
    base = env["SPLASHD_UNSPLASH_API_URL"]
    r = requests.get(base + "/photos")
    assert r.status_code == 401 and r.json() == {"errors": ["OAuth error: The access token is invalid"]}
    r = requests.get(base + "/photos", headers={"Authorization": "Client-ID wrong"})
    assert r.status_code == 401
    r = requests.get(base + "/photos", params={"client_id": env["SPLASHD_UNSPLASH_ACCESS_KEY"]})
    assert r.status_code == 200


def test_search_shape_paging_and_links(unsplash):
    r = unsplash.get("/search/photos", params={"query": "mountain", "per_page": 5, "page": 2})
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"total", "total_pages", "results"}
    assert body["total"] > 5 and len(body["results"]) == 5
    assert int(r.headers["X-Total"]) == body["total"] and r.headers["X-Per-Page"] == "5"
    links = dict((rel, url) for url, rel in re.findall(r'<([^>]+)>; rel="(\w+)"', r.headers["Link"]))
    assert set(links) >= {"first", "prev", "next", "last"} and "page=3" in links["next"]
    p = body["results"][0]
    for key in ("id", "created_at", "updated_at", "promoted_at", "width", "height", "color", "blur_hash",
                "description", "alt_description", "likes", "liked_by_user", "urls", "links", "user"):
        assert key in p, key
    assert set(p["urls"]) == {"raw", "full", "regular", "small", "thumb"}
    assert set(p["links"]) == {"self", "html", "download", "download_location"}
    assert re.match(r"^#[0-9A-F]{6}$", p["color"])
    assert {"id", "username", "name", "profile_image", "links"} <= set(p["user"])
    r = unsplash.get("/search/photos", params={"query": "mountain lake forest city", "per_page": 100})
    assert len(r.json()["results"]) == 30
    assert unsplash.get("/search/photos").status_code == 400


def test_search_filters_and_order(unsplash):
    r = unsplash.get("/search/photos", params={"query": "lake sky", "orientation": "portrait", "per_page": 30})
    assert all(p["height"] > p["width"] for p in r.json()["results"])
    blue = unsplash.get("/search/photos", params={"query": "lake", "color": "blue", "per_page": 30}).json()
    assert blue["results"] and blue["total"] < unsplash.get("/search/photos", params={"query": "lake"}).json()["total"]
    latest = unsplash.get("/search/photos", params={"query": "city", "order_by": "latest", "per_page": 30}).json()
    dates = [p["created_at"] for p in latest["results"]]
    assert dates == sorted(dates, reverse=True)
    assert unsplash.get("/search/photos", params={"query": "x", "color": "chartreuse"}).status_code == 400


def test_photos_random_topics_detail_statistics(unsplash, control):
    r = unsplash.get("/photos", params={"per_page": 3})
    assert r.status_code == 200 and isinstance(r.json(), list) and len(r.json()) == 3
    assert isinstance(unsplash.get("/photos/random").json(), dict)
    one = unsplash.get("/photos/random", params={"count": 1}).json()
    assert isinstance(one, list) and len(one) == 1
    assert len(unsplash.get("/photos/random", params={"count": 30}).json()) == 30
    assert unsplash.get("/photos/random", params={"count": 31}).status_code == 400
    topics = unsplash.get("/topics").json()
    assert topics and {"id", "slug", "title", "description", "total_photos", "cover_photo", "links"} <= set(topics[0])
    t = topics[0]
    assert unsplash.get(f"/topics/{t['slug']}").json()["id"] == t["id"]
    tp = unsplash.get(f"/topics/{t['id']}/photos", params={"per_page": 4})
    assert tp.status_code == 200 and len(tp.json()) == 4
    assert unsplash.get("/topics/no-such-topic/photos").status_code == 404
    pid = r.json()[0]["id"]
    d = unsplash.get(f"/photos/{pid}").json()
    assert {"exif", "location", "downloads", "tags"} <= set(d)
    r404 = unsplash.get("/photos/doesnotexist")
    assert r404.status_code == 404 and r404.json() == {"errors": ["Couldn't find Photo"]}
    s = unsplash.get(f"/photos/{pid}/statistics").json()
    assert s["id"] == pid and len(s["downloads"]["historical"]["values"]) == 30
    assert s["views"]["historical"]["resolution"] == "days"
    assert re.match(r"^\d{4}-\d{2}-\d{2}$", s["downloads"]["historical"]["values"][0]["date"])
    # download tracking: follow links.download_location with authorization, counted by devstack
    loc = d["links"]["download_location"]
    r = unsplash.s.get(loc)
    assert r.status_code == 200 and "url" in r.json()
    c = control.get("/_devstack/counters").json()
    assert c["download_tracking"] == {pid: 1} and c["download_tracking_total"] == 1


def test_rate_limit_budget(unsplash, control):
    assert control.post("/_devstack/knobs", json={"unsplash_hourly_budget": 3}).status_code == 200
    remaining = [unsplash.get("/photos").headers["X-Ratelimit-Remaining"] for _ in range(3)]
    assert remaining == ["2", "1", "0"]
    r = unsplash.get("/photos")
    assert r.status_code == 403 and r.text == "Rate Limit Exceeded"
    assert r.headers["X-Ratelimit-Limit"] == "3" and r.headers["X-Ratelimit-Remaining"] == "0"
    control.post("/_devstack/knobs", json={"unsplash_over_limit_status": 429})
    assert unsplash.get("/photos").status_code == 429
    # CDN bytes do not count against the budget
    assert requests.get(control.base + "/cdn/profile/someone?w=32").status_code == 200


def test_catalogue_is_deterministic(unsplash):
    a = [p["id"] for p in unsplash.get("/photos", params={"per_page": 30, "order_by": "oldest"}).json()]
    b = [p["id"] for p in unsplash.get("/photos", params={"per_page": 30, "order_by": "oldest"}).json()]
    assert a == b and len(set(a)) == 30


def test_nasa_search_and_assets(nasa):
    r = nasa.get("/search")
    assert r.status_code == 400 and r.json() == {"reason": "Expected 'q' text search parameter or other keywords."}
    r = nasa.get("/search", params={"q": "moon", "media_type": "image", "page_size": 5})
    assert r.status_code == 200
    c = r.json()["collection"]
    assert c["version"] == "1.0" and c["metadata"]["total_hits"] > 5 and len(c["items"]) == 5
    assert any(l["rel"] == "next" for l in c["links"])
    it = c["items"][0]
    assert {"center", "title", "nasa_id", "date_created", "media_type"} <= set(it["data"][0])
    assert it["links"][0]["rel"] == "preview" and it["href"].endswith("collection.json")
    r = nasa.get("/search", params={"q": "moon", "year_start": 2000, "year_end": 2001})
    assert all(i["data"][0]["date_created"][:4] in ("2000", "2001") for i in r.json()["collection"]["items"])
    nid = it["data"][0]["nasa_id"]
    a = nasa.get(f"/asset/{nid}").json()["collection"]["items"]
    assert [x["href"].rsplit("~", 1)[-1] for x in a[:5]] == ["orig.jpg", "large.jpg", "medium.jpg", "small.jpg", "thumb.jpg"]
    assert a[-1]["href"].endswith("metadata.json")
    r = nasa.get("/asset/NOPE123")
    assert r.status_code == 404 and r.json() == {"reason": "No AssetDB records for nasaid=NOPE123"}
    spaced = nasa.get("/search", params={"nasa_id": "Apollo 11 Mission"}).json()["collection"]["items"]
    assert spaced, "the catalogue has ids with spaces"
    sid = spaced[0]["data"][0]["nasa_id"]
    assert " " in sid and nasa.get(f"/asset/{sid}").status_code == 200
    thumb = requests.get(spaced[0]["links"][0]["href"])
    assert thumb.status_code == 200 and thumb.content[:2] == b"\xff\xd8"


def test_cdn_jpegs_etag_range(unsplash):
    p = unsplash.get("/photos", params={"per_page": 1}).json()[0]
    thumb = requests.get(p["urls"]["thumb"])
    assert thumb.status_code == 200 and thumb.headers["Content-Type"] == "image/jpeg"
    assert thumb.content[:3] == b"\xff\xd8\xff" and 8_000 < len(thumb.content) < 40_000
    assert int(thumb.headers["Content-Length"]) == len(thumb.content)
    etag = thumb.headers["ETag"]
    again = requests.get(p["urls"]["thumb"])
    assert again.content == thumb.content and again.headers["ETag"] == etag
    assert requests.get(p["urls"]["thumb"], headers={"If-None-Match": etag}).status_code == 304
    part = requests.get(p["urls"]["thumb"], headers={"Range": "bytes=100-199"})
    assert part.status_code == 206 and part.content == thumb.content[100:200]
    assert part.headers["Content-Range"] == f"bytes 100-199/{len(thumb.content)}"
    tail = requests.get(p["urls"]["thumb"], headers={"Range": "bytes=-10"})
    assert tail.content == thumb.content[-10:]
    r = requests.get(p["urls"]["thumb"], headers={"Range": f"bytes={len(thumb.content) + 5}-"})
    assert r.status_code == 416
    full = requests.get(p["urls"]["full"])
    assert full.status_code == 200 and 1_000_000 < len(full.content) < 3_000_000
    regular = requests.get(p["urls"]["regular"])
    assert len(thumb.content) < len(regular.content) < len(full.content)
    assert requests.get(p["urls"]["raw"].replace(p["id"], "missing")).status_code == 404
