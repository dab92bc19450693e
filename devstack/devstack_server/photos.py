"""/unsplash and /nasa: the Unsplash API and NASA Image and Video Library over the seeded catalogues."""
import datetime as dt
import math
import random
import time
import urllib.parse

from aiohttp import web

from .catalogue import COLORS, ts
from .common import json_response, state

ORIENTATIONS = ("landscape", "portrait", "squarish")


# ------------------------------------------------------------------ Unsplash

def uerr(status, *messages, headers=None):
    return json_response({"errors": list(messages)}, status, headers=headers)


def unsplash_endpoint(fn):
    async def wrapped(request):
        st = state(request)
        key = None
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Client-ID "):
            key = auth[len("Client-ID "):].strip()
        key = key or request.query.get("client_id")
        if key != st.unsplash_key:
            return uerr(401, "OAuth error: The access token is invalid")
        budget = int(st.knobs["unsplash_hourly_budget"])
        window = st.unsplash_window
        now_s = time.monotonic()
        while window and window[0] <= now_s - 3600:
            window.popleft()
        if len(window) >= budget:
            status = int(st.knobs["unsplash_over_limit_status"])
            return web.Response(status=status, text="Rate Limit Exceeded",
                                headers={"X-Ratelimit-Limit": str(budget), "X-Ratelimit-Remaining": "0"})
        window.append(now_s)
        try:
            resp = await fn(request)
        except ValueError as e:
            resp = uerr(400, str(e))
        resp.headers["X-Ratelimit-Limit"] = str(budget)
        resp.headers["X-Ratelimit-Remaining"] = str(max(budget - len(window), 0))
        resp.headers["Accept-Version"] = "v1"
        return resp
    return wrapped


def page_args(request, default_per_page=10, max_per_page=30):
    def num(name, default):
        v = request.query.get(name)
        if v in (None, ""):
            return default
        try:
            return int(v)
        except ValueError:
            raise ValueError(f"{name} must be an integer")
    page = max(num("page", 1), 1)
    per_page = min(max(num("per_page", default_per_page), 1), max_per_page)
    return page, per_page


def paged(request, items, page, per_page, total=None):
    total = len(items) if total is None else total
    last = max(1, math.ceil(total / per_page))
    chunk = items[(page - 1) * per_page: page * per_page]
    base = state(request).base_url
    links = []

    def link(p, rel):
        q = dict(request.query)
        q.pop("client_id", None)
        q["page"] = str(p)
        links.append(f'<{base}{request.path}?{urllib.parse.urlencode(q)}>; rel="{rel}"')
    if page > 1:
        link(1, "first")
        link(min(page - 1, last), "prev")
    if page < last:
        link(last, "last")
        link(page + 1, "next")
    headers = {"X-Total": str(total), "X-Per-Page": str(per_page)}
    if links:
        headers["Link"] = ", ".join(links)
    return chunk, headers, total, last


def user_json(st, u):
    base = st.base_url
    return {"id": u["id"], "updated_at": "2024-06-01T00:00:00Z", "username": u["username"], "name": u["name"],
            "first_name": u["first_name"], "last_name": u["last_name"], "twitter_username": None,
            "portfolio_url": None, "bio": u["bio"], "location": u["location"],
            "links": {"self": f"{base}/unsplash/users/{u['username']}",
                      "html": f"{base}/web/unsplash/@{u['username']}",
                      "photos": f"{base}/unsplash/users/{u['username']}/photos",
                      "likes": f"{base}/unsplash/users/{u['username']}/likes",
                      "portfolio": f"{base}/unsplash/users/{u['username']}/portfolio"},
            "profile_image": {s: f"{base}/cdn/profile/{u['username']}?w={px}&h={px}"
                              for s, px in (("small", 32), ("medium", 64), ("large", 128))},
            "instagram_username": None, "total_collections": 0, "total_likes": u["total_likes"],
            "total_photos": u["total_photos"], "accepted_tos": True, "for_hire": False}


def photo_json(st, p, detail=False):
    base = st.base_url
    raw = f"{base}/cdn/unsplash/photo-{p['id']}?ixid=devstack&ixlib=rb-4.0.3"
    out = {"id": p["id"], "slug": f"{p['description'].lower().replace(' ', '-')}-{p['id']}",
           "created_at": ts(p["created"]), "updated_at": ts(p["created"] + dt.timedelta(days=30)),
           "promoted_at": ts(p["created"] + dt.timedelta(days=2)) if p["i"] % 3 == 0 else None,
           "width": p["width"], "height": p["height"], "color": p["color"], "blur_hash": p["blur_hash"],
           "description": p["description"] if p["i"] % 4 else None, "alt_description": p["alt_description"],
           "urls": {"raw": raw, "full": raw + "&q=85&fm=jpg&cs=srgb",
                    "regular": raw + "&q=80&fm=jpg&cs=tinysrgb&w=1080&fit=max",
                    "small": raw + "&q=80&fm=jpg&cs=tinysrgb&w=400&fit=max",
                    "thumb": raw + "&q=80&fm=jpg&cs=tinysrgb&w=200&fit=max"},
           "links": {"self": f"{base}/unsplash/photos/{p['id']}",
                     "html": f"{base}/web/unsplash/photos/{p['id']}",
                     "download": f"{base}/web/unsplash/photos/{p['id']}/download",
                     "download_location": f"{base}/unsplash/photos/{p['id']}/download?ixid=devstack"},
           "likes": p["likes"], "liked_by_user": False, "current_user_collections": [],
           "topic_submissions": {}, "user": user_json(st, st.unsplash.users[p["user"]])}
    if detail:
        out.update({"exif": dict(p["exif"], name=f"{p['exif']['make']}, {p['exif']['model']}"),
                    "location": {"name": None, "city": None, "country": None,
                                 "position": {"latitude": None, "longitude": None}},
                    "views": p["views"], "downloads": p["downloads"],
                    "tags": [{"type": "search", "title": t} for t in p["tags"]],
                    "topics": [{"id": st.unsplash.topic_by[s]["id"], "slug": s,
                                "title": st.unsplash.topic_by[s]["title"]} for s in p["_topics"]]})
    return out


def check_choice(request, name, choices):
    v = request.query.get(name)
    if v in (None, ""):
        return None
    if v not in choices:
        raise ValueError(f"{name} is invalid")
    return v


@unsplash_endpoint
async def search_photos(request):
    st = state(request)
    query = request.query.get("query", "").strip()
    if not query:
        return uerr(400, "query is missing")
    page, per_page = page_args(request)
    order = check_choice(request, "order_by", ("relevant", "latest")) or "relevant"
    orientation = check_choice(request, "orientation", ORIENTATIONS)
    color = check_choice(request, "color", tuple(COLORS))
    check_choice(request, "content_filter", ("low", "high"))
    hits = st.unsplash.search(query, orientation, color)
    if order == "latest":
        hits = sorted(hits, key=lambda p: p["created"], reverse=True)
    chunk, headers, total, last = paged(request, hits, page, per_page)
    return json_response({"total": total, "total_pages": last if total else 0,
                          "results": [photo_json(st, p) for p in chunk]}, headers=headers)


def ordered(photos, order):
    if order == "oldest":
        return sorted(photos, key=lambda p: p["created"])
    if order == "popular":
        return sorted(photos, key=lambda p: (-p["likes"], p["i"]))
    return sorted(photos, key=lambda p: p["created"], reverse=True)


@unsplash_endpoint
async def list_photos(request):
    st = state(request)
    page, per_page = page_args(request)
    order = check_choice(request, "order_by", ("latest", "oldest", "popular")) or "latest"
    cache = st.unsplash.ordered_cache
    if order not in cache:
        cache[order] = ordered(st.unsplash.photos, order)
    chunk, headers, _, _ = paged(request, cache[order], page, per_page)
    return json_response([photo_json(st, p) for p in chunk], headers=headers)


@unsplash_endpoint
async def random_photo(request):
    st = state(request)
    count = request.query.get("count")
    if count is not None:
        try:
            n = int(count)
        except ValueError:
            return uerr(400, "count must be an integer")
        if not 1 <= n <= 30:
            return uerr(400, "count must be between 1 and 30")
    pool = st.unsplash.photos
    if request.query.get("query"):
        pool = st.unsplash.search(request.query["query"])
    if request.query.get("topics"):
        wanted = set()
        for t in request.query["topics"].split(","):
            topic = st.unsplash.topic_by.get(t.strip())
            if topic:
                wanted.update(topic["members"])
        pool = [p for p in pool if p["i"] in wanted]
    if request.query.get("username"):
        pool = [p for p in pool if st.unsplash.users[p["user"]]["username"] == request.query["username"]]
    pool = st.unsplash.filter(pool, check_choice(request, "orientation", ORIENTATIONS))
    if not pool:
        return uerr(404, "Couldn't find Photo")
    if count is None:
        return json_response(photo_json(st, random.choice(pool), detail=True))
    picks = random.sample(pool, min(n, len(pool)))
    return json_response([photo_json(st, p, detail=True) for p in picks])


@unsplash_endpoint
async def get_photo(request):
    st = state(request)
    p = st.unsplash.by_id.get(request.match_info["id"])
    if p is None:
        return uerr(404, "Couldn't find Photo")
    return json_response(photo_json(st, p, detail=True))


@unsplash_endpoint
async def photo_statistics(request):
    st = state(request)
    p = st.unsplash.by_id.get(request.match_info["id"])
    if p is None:
        return uerr(404, "Couldn't find Photo")
    if request.query.get("resolution", "days") != "days":
        return uerr(400, "resolution is invalid")
    try:
        quantity = int(request.query.get("quantity", 30))
    except ValueError:
        return uerr(400, "quantity is invalid")
    if not 1 <= quantity <= 30:
        return uerr(400, "quantity must be between 1 and 30")
    today = dt.datetime.now(dt.timezone.utc).date()

    def series(kind, total):
        rng = random.Random(f"{st.seed}:stats:{kind}:{p['id']}:{today.isoformat()}")
        values = [{"date": (today - dt.timedelta(days=quantity - 1 - k)).isoformat(),
                   "value": rng.randint(0, max(1, total // 500))} for k in range(quantity)]
        return {"total": total, "historical": {"change": sum(v["value"] for v in values),
                                               "resolution": "days", "quantity": quantity, "values": values}}
    return json_response({"id": p["id"], "downloads": series("downloads", p["downloads"]),
                          "views": series("views", p["views"])})


@unsplash_endpoint
async def track_download(request):
    st = state(request)
    p = st.unsplash.by_id.get(request.match_info["id"])
    if p is None:
        return uerr(404, "Couldn't find Photo")
    st.counters.download_tracking[p["id"]] += 1
    return json_response({"url": f"{st.base_url}/cdn/unsplash/photo-{p['id']}?ixid=devstack&ixlib=rb-4.0.3"})


def topic_json(st, t):
    cover = st.unsplash.photos[t["members"][0]] if t["members"] else None
    base = st.base_url
    return {"id": t["id"], "slug": t["slug"], "title": t["title"], "description": t["description"],
            "published_at": t["published_at"], "updated_at": t["updated_at"], "starts_at": t["published_at"],
            "ends_at": None, "only_submissions_after": None, "featured": t["featured"],
            "total_photos": len(t["members"]), "status": "open",
            "links": {"self": f"{base}/unsplash/topics/{t['slug']}", "html": f"{base}/web/unsplash/t/{t['slug']}",
                      "photos": f"{base}/unsplash/topics/{t['slug']}/photos"},
            "owners": [], "cover_photo": photo_json(st, cover) if cover else None,
            "preview_photos": [{"id": st.unsplash.photos[i]["id"],
                                "urls": photo_json(st, st.unsplash.photos[i])["urls"]} for i in t["members"][:4]]}


@unsplash_endpoint
async def list_topics(request):
    st = state(request)
    page, per_page = page_args(request)
    order = check_choice(request, "order_by", ("featured", "latest", "oldest", "position")) or "position"
    topics = list(st.unsplash.topics)
    if order == "featured":
        topics.sort(key=lambda t: (not t["featured"], t["position"]))
    elif order == "latest":
        topics.sort(key=lambda t: t["published_at"], reverse=True)
    elif order == "oldest":
        topics.sort(key=lambda t: t["published_at"])
    chunk, headers, _, _ = paged(request, topics, page, per_page)
    return json_response([topic_json(st, t) for t in chunk], headers=headers)


@unsplash_endpoint
async def get_topic(request):
    st = state(request)
    t = st.unsplash.topic_by.get(request.match_info["topic"])
    if t is None:
        return uerr(404, "Couldn't find Topic")
    return json_response(topic_json(st, t))


@unsplash_endpoint
async def topic_photos(request):
    st = state(request)
    t = st.unsplash.topic_by.get(request.match_info["topic"])
    if t is None:
        return uerr(404, "Couldn't find Topic")
    page, per_page = page_args(request)
    order = check_choice(request, "order_by", ("latest", "oldest", "popular")) or "latest"
    orientation = check_choice(request, "orientation", ORIENTATIONS)
    photos = st.unsplash.filter([st.unsplash.photos[i] for i in t["members"]], orientation)
    chunk, headers, _, _ = paged(request, ordered(photos, order), page, per_page)
    return json_response([photo_json(st, p) for p in chunk], headers=headers)


# ------------------------------------------------------------------ NASA

NASA_FIELDS = ("q", "center", "description", "description_508", "keywords", "location", "media_type",
               "nasa_id", "photographer", "secondary_creator", "title", "year_start", "year_end")


def nasa_asset_base(st, nid):
    return f"{st.base_url}/cdn/nasa/image/{urllib.parse.quote(nid)}/{urllib.parse.quote(nid)}"


def nasa_item(st, it):
    data = {k: it[k] for k in ("center", "title", "keywords", "nasa_id", "date_created", "media_type",
                               "description", "photographer", "location") if k in it}
    base = nasa_asset_base(st, it["nasa_id"])
    return {"href": f"{st.base_url}/cdn/nasa/image/{urllib.parse.quote(it['nasa_id'])}/collection.json",
            "data": [data],
            "links": [{"href": f"{base}~thumb.jpg", "rel": "preview", "render": "image"},
                      {"href": f"{base}~medium.jpg", "rel": "alternate", "render": "image"},
                      {"href": f"{base}~orig.jpg", "rel": "canonical", "render": "image"}]}


async def nasa_search(request):
    st = state(request)
    q = request.query
    if not any(q.get(k) for k in NASA_FIELDS):
        return json_response({"reason": "Expected 'q' text search parameter or other keywords."}, 400)
    try:
        page = int(q.get("page", 1))
        page_size = int(q.get("page_size", 100))
        ys = int(q["year_start"]) if q.get("year_start") else None
        ye = int(q["year_end"]) if q.get("year_end") else None
    except ValueError:
        return json_response({"reason": "Invalid page, page_size, year_start or year_end value."}, 400)
    if page < 1 or page_size < 1:
        return json_response({"reason": "Invalid page or page_size value."}, 400)
    items = st.nasa.items
    media = [m.strip() for m in q.get("media_type", "").split(",") if m.strip()]
    if media:
        if any(m not in ("image", "video", "audio") for m in media):
            return json_response({"reason": "Invalid media_type value."}, 400)
        items = [it for it in items if it["media_type"] in media]

    def text_match(it, needle, fields):
        needle = needle.lower()
        return any(needle in (" ".join(it[f]) if isinstance(it.get(f), list) else str(it.get(f, ""))).lower()
                   for f in fields)
    if q.get("q"):
        terms = q["q"].lower().split()
        items = [it for it in items if all(text_match(it, t, ("title", "description", "keywords", "nasa_id"))
                                           for t in terms)]
    for field in ("center", "title", "description", "location", "photographer", "nasa_id"):
        if q.get(field):
            items = [it for it in items if text_match(it, q[field], (field,))]
    if q.get("keywords"):
        kws = [k.strip().lower() for k in q["keywords"].split(",") if k.strip()]
        items = [it for it in items if all(k in it["keywords"] for k in kws)]
    if ys is not None:
        items = [it for it in items if it["year"] >= ys]
    if ye is not None:
        items = [it for it in items if it["year"] <= ye]
    total = len(items)
    chunk = items[(page - 1) * page_size: page * page_size]
    href = f"{st.base_url}{request.path_qs}"
    links = []

    def link(p, rel, prompt):
        args = dict(q)
        args["page"] = str(p)
        links.append({"rel": rel, "prompt": prompt,
                      "href": f"{st.base_url}{request.path}?{urllib.parse.urlencode(args)}"})
    if page > 1:
        link(page - 1, "prev", "Previous")
    if page * page_size < total:
        link(page + 1, "next", "Next")
    coll = {"version": "1.0", "href": href, "items": [nasa_item(st, it) for it in chunk],
            "metadata": {"total_hits": total}}
    if links:
        coll["links"] = links
    return json_response({"collection": coll})


async def nasa_asset(request):
    st = state(request)
    nid = request.match_info["nasa_id"]
    it = st.nasa.by_id.get(nid)
    if it is None:
        return json_response({"reason": f"No AssetDB records for nasaid={nid}"}, 404)
    base = nasa_asset_base(st, nid)
    items = [{"href": f"{base}~{v}.jpg"} for v in ("orig", "large", "medium", "small", "thumb")]
    items.append({"href": f"{st.base_url}/cdn/nasa/image/{urllib.parse.quote(nid)}/metadata.json"})
    return json_response({"collection": {"version": "1.0", "href": f"{st.base_url}{request.path_qs}",
                                         "items": items}})


async def nasa_metadata(request):
    st = state(request)
    nid = request.match_info["nasa_id"]
    it = st.nasa.by_id.get(nid)
    if it is None:
        return json_response({"reason": f"No AssetDB records for nasaid={nid}"}, 404)
    return json_response({"AVAIL:NASAID": nid, "AVAIL:Title": it["title"], "AVAIL:Center": it["center"],
                          "AVAIL:DateCreated": it["date_created"], "AVAIL:Keywords": it["keywords"],
                          "File:ImageWidth": it["width"], "File:ImageHeight": it["height"]})


async def nasa_collection(request):
    st = state(request)
    nid = request.match_info["nasa_id"]
    if nid not in st.nasa.by_id:
        return web.Response(status=404, text="Not Found")
    base = nasa_asset_base(st, nid)
    return json_response([f"{base}~{v}.jpg" for v in ("orig", "large", "medium", "small", "thumb")]
                         + [f"{st.base_url}/cdn/nasa/image/{urllib.parse.quote(nid)}/metadata.json"])


def add_routes(app):
    r = app.router
    r.add_get("/unsplash/search/photos", search_photos)
    r.add_get("/unsplash/photos", list_photos)
    r.add_get("/unsplash/photos/random", random_photo)
    r.add_get("/unsplash/photos/{id}", get_photo)
    r.add_get("/unsplash/photos/{id}/statistics", photo_statistics)
    r.add_get("/unsplash/photos/{id}/download", track_download)
    r.add_get("/unsplash/topics", list_topics)
    r.add_get("/unsplash/topics/{topic}", get_topic)
    r.add_get("/unsplash/topics/{topic}/photos", topic_photos)
    r.add_get("/nasa/search", nasa_search)
    r.add_get("/nasa/asset/{nasa_id}", nasa_asset)
    r.add_get("/cdn/nasa/image/{nasa_id}/metadata.json", nasa_metadata)
    r.add_get("/cdn/nasa/image/{nasa_id}/collection.json", nasa_collection)
