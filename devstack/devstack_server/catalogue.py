"""Deterministic, seeded catalogues of Unsplash-like and NASA-like photos. Photo i is a pure function of
(seed, i), so the same DEVSTACK_SEED and DEVSTACK_PHOTOS give the same ids, words and images."""
import datetime as dt
import random

WORDS = ("mountain lake forest city night sky ocean beach desert snow flower cat dog street bridge sunset "
         "sunrise river waterfall architecture portrait coffee book car train autumn winter spring summer "
         "rain fog star moon aurora canyon island harbor tower garden meadow valley glacier volcano cliff "
         "market festival lantern skyline window door staircase library bicycle boat").split()
ADJ = "quiet golden misty bright dark blue green red calm wild old tiny vast warm cold".split()
COLORS = {  # Unsplash's color filter values and a representative hex for each
    "black_and_white": (128, 128, 128), "black": (20, 20, 24), "white": (236, 236, 232),
    "yellow": (226, 196, 40), "orange": (230, 128, 32), "red": (200, 40, 40), "purple": (120, 60, 160),
    "magenta": (200, 40, 140), "green": (60, 150, 70), "teal": (30, 140, 140), "blue": (40, 90, 200)}
TOPICS = [("wallpapers", "Wallpapers"), ("nature", "Nature"), ("architecture-interior", "Architecture & Interiors"),
          ("travel", "Travel"), ("animals", "Animals"), ("street-photography", "Street Photography"),
          ("film", "Film"), ("experimental", "Experimental")]
FIRST = "Ana Ben Chloe Dev Emil Fatima Gus Hana Ivan Jin Kofi Lena Mateo Nia Omar Pia Quinn Rosa Sami Tess".split()
LAST = "Okafor Lindqvist Tanaka Moreau Silva Novak Haddad Kim Rossi Mbeki Berg Costa Nowak Yilmaz Ortiz".split()
BLURHASHES = ["LEHV6nWB2yk8pyo0adR*.7kCMdnj", "LKO2?U%2Tw=w]~RBVZRi};RPxuwH", "L6PZfSi_.AyE_3t7t7R**0o#DgR4",
              "LGF5]+Yk^6#M@-5c,1J5@[or[Q6.", "L9AB*A%LPqys8_H=yDR5nMMeVXR5"]
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
EPOCH = dt.datetime(2019, 1, 1, tzinfo=dt.timezone.utc)
NASA_CENTERS = "JSC GSFC JPL KSC ARC MSFC HQ LaRC GRC AFRC".split()
NASA_WORDS = ("apollo moon mars earth nebula galaxy saturn jupiter hubble webb iss astronaut launch rocket "
              "shuttle orbit comet asteroid sun eclipse aurora rover crater cloud hurricane telescope "
              "spacewalk station satellite venus mercury").split()


def _rid(rng, n=11):
    return "".join(rng.choice(ALPHABET) for _ in range(n))


def ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


class Unsplash:
    def __init__(self, size, seed):
        self.seed = seed
        self.users = [self._user(k) for k in range(max(10, min(200, size // 10)))]
        self.photos = [self._photo(i) for i in range(size)]
        self.by_id = {p["id"]: p for p in self.photos}
        self.ordered_cache = {}  # order_by -> all photos in that order (for GET /photos)
        self.index = {}
        for i, p in enumerate(self.photos):
            for w in p["_words"]:
                self.index.setdefault(w, []).append(i)
        self.topics = []
        for k, (slug, title) in enumerate(TOPICS):
            rng = random.Random(f"{seed}:topic:{slug}")
            members = [i for i, p in enumerate(self.photos) if slug in p["_topics"]]
            self.topics.append({"id": _rid(rng), "slug": slug, "title": title, "position": k,
                                "featured": k < 5, "members": members,
                                "description": f"{title} photographs from the devstack catalogue.",
                                "published_at": ts(EPOCH + dt.timedelta(days=30 * k)),
                                "updated_at": ts(EPOCH + dt.timedelta(days=30 * k + 400))})
        self.topic_by = {t["id"]: t for t in self.topics}
        self.topic_by.update({t["slug"]: t for t in self.topics})

    def _user(self, k):
        rng = random.Random(f"{self.seed}:user:{k}")
        first, last = rng.choice(FIRST), rng.choice(LAST)
        return {"id": _rid(rng), "username": f"{first.lower()}{last.lower()}{k}", "first_name": first,
                "last_name": last, "name": f"{first} {last}", "bio": f"{first} photographs {rng.choice(WORDS)}s.",
                "location": rng.choice(["Oslo", "Lagos", "Kyoto", "Lima", "Lisbon", None]),
                "total_photos": rng.randint(10, 900), "total_likes": rng.randint(0, 3000)}

    def _photo(self, i):
        rng = random.Random(f"{self.seed}:unsplash:{i}")
        pid = _rid(rng)
        orient = rng.choices(["landscape", "portrait", "squarish"], [50, 35, 15])[0]
        long_side, short_side = rng.choice([(6000, 4000), (5472, 3648), (4032, 3024), (3000, 2000)])
        if orient == "landscape":
            w, h = long_side, short_side
        elif orient == "portrait":
            w, h = short_side, long_side
        else:
            w = h = short_side
        cname = rng.choice(list(COLORS))
        r, g, b = (max(0, min(255, c + rng.randint(-18, 18))) for c in COLORS[cname])
        if cname == "black_and_white":
            r = g = b
        words = rng.sample(WORDS, 3)
        adj = rng.choice(ADJ)
        created = EPOCH + dt.timedelta(seconds=rng.randint(0, 6 * 365 * 86400))
        topics = rng.sample([t[0] for t in TOPICS], rng.randint(1, 2))
        return {"id": pid, "i": i, "orientation": orient, "width": w, "height": h, "color_name": cname,
                "color": "#%02X%02X%02X" % (r, g, b), "rgb": (r, g, b),
                "description": f"A {adj} {words[0]} with {words[1]} and {words[2]}",
                "alt_description": f"{words[0]} and {words[1]} in {cname.replace('_', ' ')} tones",
                "_words": set(words) | {adj, cname}, "_topics": topics, "tags": words,
                "created": created, "likes": rng.randint(0, 5000), "downloads": rng.randint(0, 200000),
                "views": rng.randint(1000, 5000000), "user": rng.randrange(len(self.users)),
                "blur_hash": rng.choice(BLURHASHES),
                "exif": {"make": rng.choice(["Canon", "Nikon", "Sony", "FUJIFILM"]),
                         "model": rng.choice(["EOS R5", "Z 6", "ILCE-7M3", "X-T4"]),
                         "exposure_time": rng.choice(["1/125", "1/250", "1/60", "1/1000"]),
                         "aperture": rng.choice(["1.8", "2.8", "4.0", "8.0"]),
                         "focal_length": rng.choice(["24.0", "35.0", "50.0", "85.0"]),
                         "iso": rng.choice([100, 200, 400, 800, 1600])}}

    def search(self, query, orientation=None, color=None):
        terms = [t for t in query.lower().replace(",", " ").split() if t]
        scores = {}
        for t in terms:
            for i in self.index.get(t, ()):
                scores[i] = scores.get(i, 0) + 1
        hits = [self.photos[i] for i in sorted(scores, key=lambda i: (-scores[i], i))]
        return self.filter(hits, orientation, color)

    @staticmethod
    def filter(photos, orientation=None, color=None):
        if orientation:
            photos = [p for p in photos if p["orientation"] == orientation]
        if color:
            photos = [p for p in photos if p["color_name"] == color]
        return photos


class Nasa:
    def __init__(self, size, seed):
        self.items = [self._item(i, seed) for i in range(size)]
        self.by_id = {it["nasa_id"]: it for it in self.items}

    @staticmethod
    def _item(i, seed):
        rng = random.Random(f"{seed}:nasa:{i}")
        kind = rng.random()
        if kind < 0.5:
            nid = f"PIA{10000 + i:05d}"
        elif kind < 0.8:
            nid = f"iss0{rng.randint(10, 72)}e{rng.randint(1000, 999999):06d}"
        elif kind < 0.95:
            nid = f"GSFC_{2010 + rng.randint(0, 14)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}_{i:04d}"
        else:
            nid = f"Apollo 11 Mission image {i}"  # some real ids contain spaces
        words = rng.sample(NASA_WORDS, 3)
        date = dt.date(1965, 1, 1) + dt.timedelta(days=rng.randint(0, 60 * 365))
        d = {"center": rng.choice(NASA_CENTERS), "title": f"{words[0].title()} {words[1]} {i}",
             "keywords": words, "nasa_id": nid, "date_created": f"{date.isoformat()}T00:00:00Z",
             "media_type": "image", "description": f"An image of the {words[0]}, the {words[1]} and the {words[2]}."}
        if rng.random() < 0.5:
            d["photographer"] = f"NASA/{rng.choice(LAST)}"
        if rng.random() < 0.3:
            d["location"] = rng.choice(["Houston, TX", "Kennedy Space Center", "Pasadena, CA"])
        rgb = (rng.randint(0, 80), rng.randint(0, 80), rng.randint(40, 160))
        return dict(d, rgb=rgb, year=date.year, width=rng.choice([4000, 3000, 2400]), height=rng.choice([3000, 2400, 2000]))
