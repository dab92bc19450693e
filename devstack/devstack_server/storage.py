"""/storage/v1: Supabase Storage's object API. Object rows live in storage.objects and every access
is a query run as the caller's role, so the project's RLS policies decide; bytes live on disk in the
instance directory, named by object id."""
import hashlib
import json
import os
import re
import uuid

import asyncpg

from .common import (JWTError, apikey_of, bearer, decode_jwt, in_role, iso, json_response, now,
                     read_json, serve_bytes, state)

KEY_RE = re.compile(r"^(\w|/|!|-|\.|\*|'|\(|\)| |&|\$|@|=|;|:|\+|,|\?)*$")


class StorageError(Exception):
    def __init__(self, status, code, error, message, http=None):
        super().__init__(message)
        self.status, self.code, self.error, self.message = status, code, error, message
        self.http = http if http is not None else (500 if status >= 500 else 400)

    def response(self):
        return json_response({"statusCode": str(self.status), "code": self.code, "error": self.error,
                              "message": self.message}, self.http)


def not_found():
    return StorageError(404, "NoSuchKey", "not_found", "Object not found")


def endpoint(fn):
    async def wrapped(request):
        try:
            return await fn(request)
        except StorageError as e:
            return e.response()
        except asyncpg.PostgresError as e:
            code = getattr(e, "sqlstate", "")
            if code == "42501":
                message = ("new row violates row-level security policy" if "row-level security" in str(e)
                           else str(e))
                return StorageError(403, "AccessDenied", "Unauthorized", message).response()
            if code == "23505":
                return StorageError(409, "KeyAlreadyExists", "Duplicate", "The resource already exists").response()
            if code == "22P02":
                return StorageError(400, "InvalidRequest", "Bad Request", str(e)).response()
            state(request).log.exception("storage")
            return StorageError(500, "DatabaseError", "internal", str(e)).response()
    return wrapped


def caller(request):
    st = state(request)
    present, tok = bearer(request)
    if not present:
        tok = apikey_of(request)
    if not tok:
        raise StorageError(400, "InvalidRequest", "Error", "headers must have required property 'authorization'")
    try:
        claims = decode_jwt(st.jwt_secret, tok)
    except JWTError as e:
        raise StorageError(403, "InvalidJWT", "Unauthorized", "jwt expired" if e.kind == "expired" else "invalid signature")
    return claims.get("role") or "anon", claims


async def bucket_row(request, bucket_id):
    async with state(request).admin_pool.acquire() as conn:
        b = await conn.fetchrow("select * from storage.buckets where id = $1", bucket_id)
    if b is None:
        raise StorageError(404, "NoSuchBucket", "Bucket not found", "Bucket not found")
    return b


def check_key(name):
    if not name or name.startswith("/") or "//" in name or not KEY_RE.match(name) or \
            any(seg in (".", "..") for seg in name.split("/")):
        raise StorageError(400, "InvalidKey", "Invalid Key", f"Invalid key: {name}")


def blob_path(st, oid):
    return os.path.join(st.storage_dir, str(oid))


async def read_upload(request):
    """(bytes, mimetype, cache_control) from a raw body or a multipart form (as storage3 sends)."""
    ctype = request.headers.get("Content-Type", "")
    cache = request.headers.get("Cache-Control") or request.headers.get("x-cache-control") or "no-cache"
    if ctype.startswith("multipart/form-data"):
        data, mt = None, None
        reader = await request.multipart()
        async for part in reader:
            if part.name == "cacheControl":
                cache = "max-age=" + (await part.text())
            elif part.filename is not None or part.name in ("", "file", None):
                data = await part.read(decode=False)
                mt = part.headers.get("Content-Type", "application/octet-stream")
            else:
                await part.read()
        if data is None:
            raise StorageError(400, "InvalidRequest", "Bad Request", "No file found in the request")
        return bytes(data), mt, cache
    data = await request.read()
    return data, (ctype.split(";")[0].strip() or "application/octet-stream"), cache


@endpoint
async def upload(request):
    st = state(request)
    role, claims = caller(request)
    bucket, name = request.match_info["bucket"], request.match_info["name"]
    check_key(name)
    b = await bucket_row(request, bucket)
    data, mimetype, cache = await read_upload(request)
    if b["file_size_limit"] is not None and len(data) > b["file_size_limit"]:
        raise StorageError(413, "EntityTooLarge", "Payload too large", "The object exceeded the maximum allowed size")
    if b["allowed_mime_types"] and mimetype not in b["allowed_mime_types"]:
        raise StorageError(415, "InvalidMimeType", "invalid_mime_type", f"mime type {mimetype} is not supported")
    etag = '"' + hashlib.md5(data).hexdigest() + '"'
    meta = json.dumps({"eTag": etag, "size": len(data), "mimetype": mimetype, "cacheControl": cache,
                       "lastModified": iso(now()), "contentLength": len(data), "httpStatusCode": 200})
    owner = claims.get("sub")
    upsert = request.headers.get("x-upsert", "").lower() == "true"
    tmp = os.path.join(st.storage_dir, f".upload-{uuid.uuid4()}")
    with open(tmp, "wb") as f:
        f.write(data)

    async def work(conn):
        if request.method == "PUT" and not upsert:
            oid = await conn.fetchval(
                "update storage.objects set metadata = $3::jsonb, updated_at = now(), owner = $4::uuid,"
                " owner_id = $4 where bucket_id = $1 and name = $2 returning id",
                bucket, name, meta, owner)
            if oid is None:
                raise not_found()
        elif upsert:
            oid = await conn.fetchval(
                "insert into storage.objects (bucket_id, name, owner, owner_id, metadata, version)"
                " values ($1, $2, $4::uuid, $4, $3::jsonb, gen_random_uuid()::text)"
                " on conflict (bucket_id, name) do update set metadata = excluded.metadata,"
                " owner = excluded.owner, owner_id = excluded.owner_id, version = excluded.version,"
                " updated_at = now() returning id", bucket, name, meta, owner)
        else:
            oid = await conn.fetchval(
                "insert into storage.objects (bucket_id, name, owner, owner_id, metadata, version)"
                " values ($1, $2, $4::uuid, $4, $3::jsonb, gen_random_uuid()::text) returning id",
                bucket, name, meta, owner)
        os.replace(tmp, blob_path(st, oid))
        return oid

    try:
        oid = await in_role(request, role, claims, work)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return json_response({"Id": str(oid), "Key": f"{bucket}/{name}"})


@endpoint
async def download(request):
    st = state(request)
    role, claims = caller(request)
    bucket, name = request.match_info["bucket"], request.match_info["name"]
    await bucket_row(request, bucket)

    async def work(conn):
        return await conn.fetchrow("select id, metadata, updated_at from storage.objects"
                                   " where bucket_id = $1 and name = $2", bucket, name)
    row = await in_role(request, role, claims, work, readonly=True)
    if row is None:
        raise not_found()
    try:
        with open(blob_path(st, row["id"]), "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise not_found()
    meta = json.loads(row["metadata"]) if row["metadata"] else {}
    return serve_bytes(request, data, meta.get("mimetype", "application/octet-stream"),
                       meta.get("eTag", '"' + hashlib.md5(data).hexdigest() + '"'),
                       {"Cache-Control": meta.get("cacheControl", "no-cache"),
                        "Last-Modified": row["updated_at"].strftime("%a, %d %b %Y %H:%M:%S GMT")})


def object_json(r):
    return {"name": r["name"], "bucket_id": r["bucket_id"], "owner": str(r["owner"]) if r["owner"] else None,
            "id": str(r["id"]), "updated_at": iso(r["updated_at"]), "created_at": iso(r["created_at"]),
            "last_accessed_at": iso(r["last_accessed_at"]),
            "metadata": json.loads(r["metadata"]) if r["metadata"] else None}


def unlink_quietly(st, oid):
    try:
        os.unlink(blob_path(st, oid))
    except FileNotFoundError:
        pass


@endpoint
async def delete_one(request):
    st = state(request)
    role, claims = caller(request)
    bucket, name = request.match_info["bucket"], request.match_info["name"]
    await bucket_row(request, bucket)

    async def work(conn):
        return await conn.fetchval("delete from storage.objects where bucket_id = $1 and name = $2 returning id",
                                   bucket, name)
    oid = await in_role(request, role, claims, work)
    if oid is None:
        raise not_found()
    unlink_quietly(st, oid)
    return json_response({"message": "Successfully deleted"})


@endpoint
async def delete_many(request):
    st = state(request)
    role, claims = caller(request)
    bucket = request.match_info["bucket"]
    await bucket_row(request, bucket)
    ok, body = await read_json(request)
    if not ok or not isinstance(body, dict) or not isinstance(body.get("prefixes"), list) \
            or not all(isinstance(p, str) for p in body["prefixes"]):
        raise StorageError(400, "InvalidRequest", "Bad Request", "body must have required property 'prefixes'")

    async def work(conn):
        return await conn.fetch("delete from storage.objects where bucket_id = $1 and name = any($2::text[])"
                                " returning *", bucket, body["prefixes"])
    rows = await in_role(request, role, claims, work)
    for r in rows:
        unlink_quietly(st, r["id"])
    return json_response([object_json(r) for r in rows])


@endpoint
async def list_objects(request):
    role, claims = caller(request)
    bucket = request.match_info["bucket"]
    await bucket_row(request, bucket)
    ok, body = await read_json(request)
    if not ok or not isinstance(body, dict):
        raise StorageError(400, "InvalidRequest", "Bad Request", "body must be object")
    prefix = body.get("prefix", "")
    if not isinstance(prefix, str):
        raise StorageError(400, "InvalidRequest", "Bad Request", "body/prefix must be string")
    prefix = prefix.strip("/")
    folder = prefix + "/" if prefix else ""
    try:
        limit = int(body.get("limit", 100))
        offset = int(body.get("offset", 0))
    except (TypeError, ValueError):
        raise StorageError(400, "InvalidRequest", "Bad Request", "limit and offset must be numbers")
    search = body.get("search") or ""
    sort = body.get("sortBy") or {}
    column = sort.get("column", "name") if isinstance(sort, dict) else "name"
    order = (sort.get("order", "asc") if isinstance(sort, dict) else "asc").lower()
    if column not in ("name", "updated_at", "created_at", "last_accessed_at") or order not in ("asc", "desc"):
        raise StorageError(400, "InvalidRequest", "Bad Request", "invalid sortBy")

    async def work(conn):
        return await conn.fetch("select * from storage.objects where bucket_id = $1 and left(name, length($2)) = $2",
                                bucket, folder)
    rows = await in_role(request, role, claims, work, readonly=True)
    entries, folders = [], set()
    for r in rows:
        rest = r["name"][len(folder):]
        if "/" in rest:
            fname = rest.split("/", 1)[0]
            if fname not in folders:
                folders.add(fname)
                entries.append({"name": fname, "id": None, "updated_at": None, "created_at": None,
                                "last_accessed_at": None, "metadata": None})
        else:
            o = object_json(r)
            o["name"] = rest
            entries.append({k: o[k] for k in ("name", "id", "updated_at", "created_at", "last_accessed_at",
                                               "metadata")})
    if search:
        entries = [e for e in entries if search.lower() in e["name"].lower()]
    folder_entries = sorted([e for e in entries if e["id"] is None], key=lambda e: e["name"],
                            reverse=order == "desc")
    files = sorted([e for e in entries if e["id"] is not None], key=lambda e: (e[column] or "", e["name"]),
                   reverse=order == "desc")
    entries = folder_entries + files
    return json_response(entries[offset:offset + limit])


def add_routes(app):
    r = app.router
    r.add_post("/storage/v1/object/list/{bucket}", list_objects)
    r.add_get("/storage/v1/object/authenticated/{bucket}/{name:.+}", download)
    r.add_get("/storage/v1/object/{bucket}/{name:.+}", download)
    r.add_post("/storage/v1/object/{bucket}/{name:.+}", upload)
    r.add_put("/storage/v1/object/{bucket}/{name:.+}", upload)
    r.add_delete("/storage/v1/object/{bucket}/{name:.+}", delete_one)
    r.add_delete("/storage/v1/object/{bucket}", delete_many)
