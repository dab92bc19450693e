"""/cdn: the bytes behind every image url. Real JPEGs, generated deterministically from the photo's id
and colour on first request and cached on disk in the instance directory (thumb ~15-20 KB, full ~2 MB)."""
import asyncio
import hashlib
import io
import os
import random
import urllib.parse

from aiohttp import web
from PIL import Image, ImageDraw, ImageOps

from .common import serve_bytes, state

FULL_LONG_SIDE = 2400
NASA_VARIANTS = {"thumb": 200, "small": 640, "medium": 1280, "large": 1920, "orig": 2400}
QUALITY = 90
NOISE = 0.35


def render(seed, w, h, rgb):
    rng = random.Random(seed)
    tile = Image.frombytes("L", (256, 256), rng.randbytes(256 * 256))
    noise = Image.new("L", (w, h))
    for x in range(0, w, 256):
        for y in range(0, h, 256):
            noise.paste(tile, (x, y))
    base = ImageOps.colorize(Image.linear_gradient("L").resize((w, h)), tuple(rgb), tuple(255 - c for c in rgb))
    draw = ImageDraw.Draw(base)
    for _ in range(6):
        x0, y0 = rng.randrange(w), rng.randrange(h)
        r = rng.randrange(max(w, h) // 10 + 1, max(w, h) // 3 + 2)
        draw.ellipse([x0 - r, y0 - r, x0 + r, y0 + r], fill=tuple(rng.randrange(256) for _ in range(3)))
    img = Image.blend(base, Image.merge("RGB", (noise, noise, noise)), NOISE)
    out = io.BytesIO()
    img.save(out, "JPEG", quality=QUALITY)
    return out.getvalue()


def fit(width, height, long_side):
    scale = min(1.0, long_side / max(width, height))
    return max(1, round(width * scale)), max(1, round(height * scale))


async def image_bytes(st, key, seed, w, h, rgb):
    """Cached on disk; generated once per key even under concurrent requests."""
    name = hashlib.sha1(key.encode()).hexdigest() + ".jpg"
    path = os.path.join(st.cdn_dir, name)
    lock = st.cdn_locks.setdefault(name, asyncio.Lock())
    async with lock:
        if not os.path.exists(path):
            data = await asyncio.get_running_loop().run_in_executor(None, render, seed, w, h, rgb)
            tmp = path + ".tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
    st.cdn_locks.pop(name, None)
    with open(path, "rb") as f:
        data = f.read()
    return data, '"' + name[:20] + '"'


def size_param(request, name):
    v = request.query.get(name)
    if v is None:
        return None
    try:
        n = int(v)
    except ValueError:
        raise web.HTTPBadRequest(text=f"invalid {name}")
    return max(8, min(n, FULL_LONG_SIDE))


def jpeg(request, data, etag):
    return serve_bytes(request, data, "image/jpeg", etag, {"Cache-Control": "public, max-age=31536000, immutable"})


async def unsplash_image(request):
    st = state(request)
    name = request.match_info["name"]
    p = st.unsplash.by_id.get(name[len("photo-"):]) if name.startswith("photo-") else None
    if p is None:
        return web.Response(status=404, text="Not Found")
    fw, fh = fit(p["width"], p["height"], FULL_LONG_SIDE)
    w, h = size_param(request, "w"), size_param(request, "h")
    if w and h and request.query.get("fit") == "crop":
        pass
    elif w:
        w, h = min(w, fw), max(1, round(min(w, fw) * p["height"] / p["width"]))
    elif h:
        w, h = max(1, round(min(h, fh) * p["width"] / p["height"])), min(h, fh)
    else:
        w, h = fw, fh
    data, etag = await image_bytes(st, f"unsplash:{st.seed}:{p['id']}:{w}x{h}", f"{st.seed}:{p['id']}", w, h, p["rgb"])
    return jpeg(request, data, etag)


async def nasa_image(request):
    st = state(request)
    nid = request.match_info["nasa_id"]
    fname = request.match_info["file"]
    it = st.nasa.by_id.get(nid)
    prefix = nid + "~"
    if it is None or not fname.startswith(prefix) or not fname.endswith(".jpg"):
        return web.Response(status=404, text="Not Found")
    variant = fname[len(prefix):-4]
    if variant not in NASA_VARIANTS:
        return web.Response(status=404, text="Not Found")
    w, h = fit(it["width"], it["height"], NASA_VARIANTS[variant])
    data, etag = await image_bytes(st, f"nasa:{st.seed}:{nid}:{w}x{h}", f"{st.seed}:nasa:{nid}", w, h, it["rgb"])
    return jpeg(request, data, etag)


async def profile_image(request):
    st = state(request)
    user = urllib.parse.unquote(request.match_info["username"])
    w = size_param(request, "w") or 64
    rgb = tuple(hashlib.sha1(user.encode()).digest()[:3])
    data, etag = await image_bytes(st, f"profile:{user}:{w}", f"profile:{user}", w, w, rgb)
    return jpeg(request, data, etag)


def add_routes(app):
    r = app.router
    r.add_get("/cdn/unsplash/{name}", unsplash_image)
    r.add_get("/cdn/nasa/image/{nasa_id}/{file}", nasa_image)
    r.add_get("/cdn/profile/{username}", profile_image)
