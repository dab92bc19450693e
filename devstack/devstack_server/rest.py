"""/rest/v1: the PostgREST subset splashd uses. Every request runs in one Postgres transaction as the
JWT's role with request.jwt.claims set, so the project's RLS policies decide what is visible. Filter
values, bodies and RPC arguments are always bound parameters; identifiers are quoted."""
import json
import re

import asyncpg
from aiohttp import web

from .common import (JWTError, bearer, check_apikey, decode_jwt, in_role, json_response, read_json,
                     state)

RESERVED = {"select", "order", "limit", "offset", "on_conflict", "columns", "or", "and", "not.or",
            "not.and", "apikey"}
OPS = {"eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=", "like": "LIKE",
       "ilike": "ILIKE", "match": "~", "imatch": "~*", "cs": "@>", "cd": "<@", "ov": "&&",
       "is": "IS", "in": "IN", "fts": "@@", "plfts": "@@", "phfts": "@@", "wfts": "@@"}
FTS_FN = {"fts": "to_tsquery", "plfts": "plainto_tsquery", "phfts": "phraseto_tsquery",
          "wfts": "websearch_to_tsquery"}
TYPE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_ ]*(\[\])?$")
OBJECT_MT = "application/vnd.pgrst.object+json"


class ApiError(Exception):
    def __init__(self, status, code, message, details=None, hint=None, headers=None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.details, self.hint, self.headers = details, hint, headers or {}

    def response(self):
        headers = dict(self.headers)
        if self.status == 401:
            headers.setdefault("WWW-Authenticate", "Bearer")
        return json_response({"code": self.code, "details": self.details, "hint": self.hint,
                              "message": self.message}, self.status, headers=headers)


def qi(name):
    return '"' + name.replace('"', '""') + '"'


# ------------------------------------------------------------------ schema cache

class Relation:
    def __init__(self, name, kind):
        self.name, self.kind = name, kind
        self.columns = {}  # name -> type text
        self.pk = []


class Function:
    def __init__(self, row):
        self.name = row["proname"]
        modes = row["modes"]
        names = list(row["names"] or [])
        types = list(row["types"] or [])
        if modes:
            names = [n for n, m in zip(names, modes) if m in ("i", "b", "v")]
        names = names[:len(types)]
        while len(names) < len(types):
            names.append("")
        self.args = list(zip(names, types))
        self.ndefaults = row["pronargdefaults"]
        self.retset = row["proretset"]
        self.rettype = row["rettype"]
        self.composite = row["typtype"] == "c"
        self.volatile = row["provolatile"] == "v"

    def required(self):
        return {n for n, _ in self.args[:len(self.args) - self.ndefaults]}


class SchemaCache:
    def __init__(self):
        self.relations, self.functions = {}, {}

    async def load(self, conn):
        rows = await conn.fetch("""
            select c.relname, c.relkind, a.attname, format_type(a.atttypid, a.atttypmod) as typ
              from pg_class c join pg_namespace n on n.oid = c.relnamespace
              join pg_attribute a on a.attrelid = c.oid
             where n.nspname = 'public' and c.relkind in ('r','v','m','p','f')
               and a.attnum > 0 and not a.attisdropped
             order by c.relname, a.attnum""")
        rels = {}
        for r in rows:
            rel = rels.setdefault(r["relname"], Relation(r["relname"], r["relkind"]))
            rel.columns[r["attname"]] = r["typ"]
        for r in await conn.fetch("""
            select c.relname, array_agg(a.attname order by k.ord) as cols
              from pg_index i join pg_class c on c.oid = i.indrelid
              join pg_namespace n on n.oid = c.relnamespace
              cross join lateral unnest(i.indkey) with ordinality k(attnum, ord)
              join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
             where n.nspname = 'public' and i.indisprimary group by c.relname"""):
            if r["relname"] in rels:
                rels[r["relname"]].pk = list(r["cols"])
        funcs = {}
        for r in await conn.fetch("""
            select p.proname, p.proargnames as names, p.proargmodes::text[] as modes,
                   array(select format_type(t, null) from unnest(p.proargtypes) t) as types,
                   p.pronargdefaults, p.proretset, format_type(p.prorettype, null) as rettype,
                   t.typtype, p.provolatile
              from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              join pg_type t on t.oid = p.prorettype
             where n.nspname = 'public' and p.prokind = 'f' and t.typname <> 'trigger'"""):
            funcs.setdefault(r["proname"], []).append(Function(r))
        self.relations, self.functions = rels, funcs


# ------------------------------------------------------------------ request parsing

def split_top(s, sep=","):
    """Split on sep outside parentheses and double quotes."""
    out, depth, quote, cur = [], 0, False, []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and quote and i + 1 < len(s):
            cur.append(s[i:i + 2]); i += 2; continue
        if ch == '"':
            quote = not quote
        elif not quote and ch == "(":
            depth += 1
        elif not quote and ch == ")":
            depth -= 1
        if ch == sep and depth == 0 and not quote:
            out.append("".join(cur)); cur = []
        else:
            cur.append(ch)
        i += 1
    out.append("".join(cur))
    return out


def unquote(v):
    if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
        return v[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return v


class Builder:
    """Collects bound parameters while SQL text is built."""

    def __init__(self, rel_alias, columns):
        self.params = []
        self.alias = rel_alias
        self.columns = columns  # name -> type (None when unknown, e.g. RPC results)

    def param(self, value):
        self.params.append(value)
        return f"${len(self.params)}"

    def field(self, spec):
        """'col', 'col->a->>b' -> (sql, type of the expression or None, output name)."""
        parts = re.split(r"(->>|->)", spec)
        col = parts[0].strip()
        if not col:
            raise ApiError(400, "PGRST100", f'"failed to parse field ({spec})"')
        sql = f"{qi(self.alias)}.{qi(col)}"
        typ = self.columns.get(col) if self.columns else None
        name = col
        for i in range(1, len(parts), 2):
            arrow, key = parts[i], parts[i + 1]
            if key.lstrip("-").isdigit():
                sql += f"{arrow}{int(key)}"
            else:
                sql += f"{arrow}{self.param(unquote(key))}::text"
            typ = "text" if arrow == "->>" else "jsonb"
            name = unquote(key)
        return sql, typ, name

    def cast_param(self, value, typ):
        p = self.param(value)
        return f"CAST({p}::text AS {typ})" if typ else p

    def condition(self, field, opspec, negate=False, in_logic=False):
        """One filter. In a logic tree a value may be double-quoted (so that it can hold ',', '.' or
        parentheses), and the quotes are not part of it, as PostgREST reads it."""
        if opspec.startswith("not."):
            negate, opspec = not negate, opspec[4:]
        op, _, value = opspec.partition(".")
        modifier = None
        m = re.match(r"^(\w+)\((any|all)\)$", op)
        if m:
            op, modifier = m.group(1), m.group(2)
        if op not in OPS or not _:
            raise ApiError(400, "PGRST100", f'"failed to parse filter ({opspec})" (line 1, column 1)',
                           f'unexpected "{op[:1]}" expecting operator')
        sql, typ, _name = self.field(field)
        if op == "is":
            v = value.lower()
            mapping = {"null": "IS NULL", "not_null": "IS NOT NULL", "true": "IS TRUE",
                       "false": "IS FALSE", "unknown": "IS UNKNOWN"}
            if v not in mapping:
                raise ApiError(400, "PGRST100", f'"failed to parse filter (is.{value})" (line 1, column 4)',
                               'unexpected "' + value[:1] + '" expecting null or trilean value')
            cond = f"{sql} {mapping[v]}"
        elif op == "in":
            if not (value.startswith("(") and value.endswith(")")):
                raise ApiError(400, "PGRST100", f'"failed to parse filter (in.{value})" (line 1, column 4)',
                               'unexpected end of input expecting "("')
            inner = value[1:-1]
            items = [unquote(x.strip()) for x in split_top(inner)] if inner.strip() else []
            p = self.param(items)
            cond = (f"{sql} = ANY(CAST({p}::text[] AS {typ}[]))" if typ else f"{sql}::text = ANY({p}::text[])")
        elif op in ("like", "ilike", "match", "imatch"):
            pattern = value.replace("*", "%") if op in ("like", "ilike") else value
            if modifier:
                items = [unquote(x.strip()) for x in split_top(value.strip("{}"))]
                items = [x.replace("*", "%") for x in items] if op in ("like", "ilike") else items
                cond = f"{sql}::text {OPS[op]} {modifier.upper()}({self.param(items)}::text[])"
            else:
                cond = f"{sql}::text {OPS[op]} {self.param(pattern)}::text"
        elif op in FTS_FN:
            cond = f"{sql} @@ {FTS_FN[op]}({self.param(value)}::text)"
        else:
            if modifier:
                items = [unquote(x.strip()) for x in split_top(value.strip("{}"))]
                cond = (f"{sql} {OPS[op]} {modifier.upper()}(CAST({self.param(items)}::text[] AS {typ}[]))"
                        if typ else f"{sql}::text {OPS[op]} {modifier.upper()}({self.param(items)}::text[])")
            else:
                cond = f"{sql} {OPS[op]} {self.cast_param(unquote(value) if in_logic else value, typ)}"
        return f"NOT ({cond})" if negate else cond

    def logic(self, key, value):
        """or=(a.eq.1,b.gt.2) and friends."""
        negate = key.startswith("not.")
        op = key[4:] if negate else key
        if not (value.startswith("(") and value.endswith(")")):
            raise ApiError(400, "PGRST100", f'"failed to parse logic tree ({value})" (line 1, column 1)',
                           'unexpected end of input expecting "("')
        parts = []
        for item in split_top(value[1:-1]):
            item = item.strip()
            m = re.match(r"^(not\.)?(and|or)(\(.*\))$", item, re.S)
            if m:
                parts.append(self.logic((m.group(1) or "") + m.group(2), m.group(3)))
                continue
            field, dot, rest = item.partition(".")
            if not dot:
                raise ApiError(400, "PGRST100", f'"failed to parse logic tree ({value})" (line 1, column 1)',
                               "unexpected end of input expecting operator")
            parts.append(self.condition(field, rest, in_logic=True))
        if not parts:
            return "TRUE"
        joined = "(" + f" {op.upper()} ".join(parts) + ")"
        return f"NOT {joined}" if negate else joined

    def where(self, query):
        conds = []
        for key, value in query.items():
            if key in ("or", "and", "not.or", "not.and"):
                conds.append(self.logic(key, value))
            elif key not in RESERVED:
                conds.append(self.condition(key, value))
        return conds

    def select_list(self, select):
        if select is None or select.strip() in ("", "*"):
            return "*" if self.alias is None else f"{qi(self.alias)}.*"
        items = []
        for raw in split_top(select):
            raw = raw.strip()
            if not raw:
                continue
            alias = None
            m = re.match(r"^([A-Za-z_][\w ]*):(?!:)(.*)$", raw)
            if m:
                alias, raw = m.group(1).strip(), m.group(2).strip()
            if "(" in raw:
                target = raw.split("(", 1)[0].split("!", 1)[0]
                raise ApiError(400, "PGRST200",
                               f"Could not find a relationship between '{self.alias}' and '{target}' in the schema cache",
                               "devstack does not implement resource embedding.", None)
            if raw == "*":
                items.append(f"{qi(self.alias)}.*")
                continue
            cast = None
            if "::" in raw:
                raw, cast = raw.split("::", 1)
                if not TYPE_NAME.match(cast):
                    raise ApiError(400, "PGRST100", f'"failed to parse select parameter ({select})"')
            sql, _typ, name = self.field(raw)
            if cast:
                sql = f"CAST({sql} AS {cast})"
            items.append(f"{sql} AS {qi(alias or name)}")
        return ", ".join(items) or f"{qi(self.alias)}.*"

    def order_by(self, order):
        if not order:
            return ""
        terms = []
        for term in split_top(order):
            bits = term.strip().split(".")
            col, mods = bits[0], bits[1:]
            direction, nulls = "", ""
            for m in mods:
                if m in ("asc", "desc"):
                    direction = " " + m.upper()
                elif m in ("nullsfirst", "nullslast"):
                    nulls = " NULLS " + m[5:].upper()
                else:
                    raise ApiError(400, "PGRST100", f'"failed to parse order ({order})" (line 1, column 1)',
                                   f'unexpected "{m[:1]}" expecting "asc", "desc", "nullsfirst" or "nullslast"')
            sql, _t, _n = self.field(col)
            terms.append(sql + direction + nulls)
        return " ORDER BY " + ", ".join(terms)


def parse_prefer(request):
    prefs = {}
    for h in request.headers.getall("Prefer", []):
        for item in h.split(","):
            k, _, v = item.strip().partition("=")
            if k:
                prefs[k.strip()] = v.strip()
    return prefs


def int_param(v, name):
    try:
        n = int(v)
        if n < 0:
            raise ValueError
        return n
    except (TypeError, ValueError):
        raise ApiError(400, "PGRST100", f'"failed to parse {name} ({v})"')


def paging(request):
    limit = offset = None
    rng = request.headers.get("Range")
    if rng and (request.headers.get("Range-Unit", "items") == "items"):
        m = re.match(r"^\s*(\d+)-(\d*)\s*$", rng)
        if m:
            offset = int(m.group(1))
            if m.group(2):
                limit = max(int(m.group(2)) - offset + 1, 0)
    if "limit" in request.query:
        limit = int_param(request.query["limit"], "limit")
    if "offset" in request.query:
        offset = int_param(request.query["offset"], "offset")
    return limit, offset or 0


# ------------------------------------------------------------------ execution

def resolve_role(request):
    st = state(request)
    present, tok = bearer(request)
    if not present:
        return "anon", {"role": "anon"}
    if not tok:
        raise ApiError(401, "PGRST301", "No suitable key or wrong key type",
                       headers={"WWW-Authenticate": 'Bearer error="invalid_token", '
                                                    'error_description="No suitable key or wrong key type"'})
    try:
        claims = decode_jwt(st.jwt_secret, tok)
    except JWTError as e:
        if e.kind == "expired":
            raise ApiError(401, "PGRST303", "JWT expired",
                           headers={"WWW-Authenticate": 'Bearer error="invalid_token", error_description="JWT expired"'})
        parts = tok.count(".") + 1
        msg = f"Expected 3 parts in JWT; got {parts}" if parts != 3 else "JWSError JWSInvalidSignature"
        raise ApiError(401, "PGRST301", msg,
                       headers={"WWW-Authenticate": f'Bearer error="invalid_token", error_description="{msg}"'})
    role = claims.get("role") or "anon"
    return role, claims


def pg_status(code, role):
    if code in ("23503", "23505"):
        return 409
    if code == "42501":
        return 401 if role == "anon" else 403
    if code in ("42P01", "42883"):
        return 404
    if code == "25006":
        return 405
    if code.startswith("PT") and code[2:].isdigit():
        return int(code[2:])
    if code[:2] in ("08", "53"):
        return 503
    if code[:2] == "54":
        return 413
    if code[:2] in ("57", "58", "XX", "F0", "HV", "P0") and code != "P0001":
        return 500
    return 400


async def run(request, role, claims, work, readonly=False):
    try:
        return await in_role(request, role, claims, work, readonly)
    except asyncpg.PostgresError as e:
        code = getattr(e, "sqlstate", None) or "XX000"
        if code in ("22023", "42704") and "role" in str(e):
            raise ApiError(401, "PGRST301", f"JWT role is not valid: {role}")
        raise ApiError(pg_status(code, role), code, getattr(e, "message", None) or str(e),
                       getattr(e, "detail", None), getattr(e, "hint", None))


def content_range(offset, n, total):
    t = "*" if total is None else str(total)
    return f"{offset}-{offset + n - 1}/{t}" if n else f"*/{t}"


def body_of(rows_json, singular, n):
    if singular:
        if n != 1:
            raise ApiError(406, "PGRST116", "JSON object requested, multiple (or no) rows returned",
                           f"The result contains {n} rows", None)
        return json.dumps(json.loads(rows_json)[0], separators=(",", ":"))
    return rows_json


def wants_object(request):
    return OBJECT_MT in request.headers.get("Accept", "")


def endpoint(fn):
    async def wrapped(request):
        denied = check_apikey(request)
        if denied is not None:
            return denied
        try:
            return await fn(request)
        except ApiError as e:
            return e.response()
    return wrapped


def relation(request):
    st = state(request)
    name = request.match_info["name"]
    rel = st.schema.relations.get(name)
    if rel is None:
        close = [n for n in st.schema.relations if n.rstrip("s") == name.rstrip("s") or name in n]
        hint = f"Perhaps you meant the table 'public.{close[0]}'" if close else None
        raise ApiError(404, "PGRST205", f"Could not find the table 'public.{name}' in the schema cache",
                       None, hint)
    return rel


def respond(request, status, body, headers, prefs_applied, singular=False):
    if prefs_applied:
        headers["Preference-Applied"] = ", ".join(prefs_applied)
    if request.method == "HEAD":
        return web.Response(status=status, headers=headers, content_type="application/json")
    if body is None:
        return web.Response(status=status, headers=headers)
    ct = OBJECT_MT if singular else "application/json"
    return web.Response(status=status, body=body.encode() if isinstance(body, str) else body,
                        headers=headers, content_type=ct, charset="utf-8")


@endpoint
async def read(request):
    rel = relation(request)
    role, claims = resolve_role(request)
    prefs = parse_prefer(request)
    b = Builder(rel.name, rel.columns)
    cols = b.select_list(request.query.get("select"))
    conds = b.where(request.query)
    where = (" WHERE " + " AND ".join(conds)) if conds else ""
    order = b.order_by(request.query.get("order"))
    limit, offset = paging(request)
    src = f"public.{qi(rel.name)} AS {qi(rel.name)}"
    lim = (f" LIMIT {limit}" if limit is not None else "") + (f" OFFSET {offset}" if offset else "")
    sql = (f"SELECT coalesce(json_agg(_s), '[]')::text AS body, count(*) AS n"
           f" FROM (SELECT {cols} FROM {src}{where}{order}{lim}) _s")
    count = prefs.get("count") in ("exact", "planned", "estimated")
    count_sql = f"SELECT count(*) FROM {src}{where}"

    async def work(conn):
        row = await conn.fetchrow(sql, *b.params)
        total = await conn.fetchval(count_sql, *b.params) if count else None
        return row["body"], row["n"], total

    body, n, total = await run(request, role, claims, work, readonly=True)
    applied = [f"count={prefs['count']}"] if count else []
    if total is not None and offset > total:
        raise ApiError(416, "PGRST103", "Requested range not satisfiable",
                       f"An offset of {offset} was requested, but there are only {total} rows.", None,
                       headers={"Content-Range": f"*/{total}"})
    status = 206 if (total is not None and n < total) else 200
    singular = wants_object(request)
    out = body_of(body, singular, n)
    return respond(request, status, out, {"Content-Range": content_range(offset, n, total)}, applied, singular)


async def json_payload(request):
    limit = state(request).knobs.get("rest_body_limit", 0)
    if limit and (request.content_length or 0) > limit:
        # What the API gateway in front of PostgREST answers for a body over its limit.
        raise ApiError(413, None, "Request size limit exceeded")
    ok, body = await read_json(request)
    if not ok:
        raise ApiError(400, "PGRST102", "Empty or invalid json", None, None)
    return body


def check_columns(rel, cols):
    for c in cols:
        if c not in rel.columns:
            raise ApiError(400, "PGRST204", f"Could not find the '{c}' column of '{rel.name}' in the schema cache")


@endpoint
async def insert(request):
    rel = relation(request)
    role, claims = resolve_role(request)
    prefs = parse_prefer(request)
    payload = await json_payload(request)
    rows = payload if isinstance(payload, list) else [payload]
    if payload is None or not all(isinstance(r, dict) for r in rows):
        raise ApiError(400, "PGRST102", "Empty or invalid json", None, None)
    if "columns" in request.query:
        cols = [c.strip().strip('"') for c in request.query["columns"].split(",") if c.strip()]
    else:
        cols = list(rows[0].keys()) if rows else []
        keys = set(cols)
        if any(set(r.keys()) != keys for r in rows):
            raise ApiError(400, "PGRST102", "All object keys must match", None, None)
    check_columns(rel, cols)
    applied = []
    resolution = prefs.get("resolution")
    conflict = ""
    if resolution in ("merge-duplicates", "ignore-duplicates"):
        applied.append(f"resolution={resolution}")
        target = ([c.strip() for c in request.query["on_conflict"].split(",") if c.strip()]
                  if "on_conflict" in request.query else rel.pk)
        if not target:
            raise ApiError(400, "PGRST100", "on_conflict is required for a relation without a primary key")
        tsql = ", ".join(qi(c) for c in target)
        if resolution == "ignore-duplicates":
            conflict = f" ON CONFLICT ({tsql}) DO NOTHING"
        else:
            sets = [f"{qi(c)} = EXCLUDED.{qi(c)}" for c in cols if c not in target]
            conflict = (f" ON CONFLICT ({tsql}) DO UPDATE SET " + ", ".join(sets)) if sets else \
                f" ON CONFLICT ({tsql}) DO NOTHING"
    if prefs.get("missing") == "default":
        applied.append("missing=default")
    ret = prefs.get("return", "minimal")
    b = Builder(rel.name, rel.columns)
    p = b.param(json.dumps(rows))
    colsql = ", ".join(qi(c) for c in cols)
    if not rows:
        return respond(request, 201, "[]" if ret == "representation" else None,
                       {"Content-Range": "*/*"}, applied)
    if cols:
        ins = (f"INSERT INTO public.{qi(rel.name)} AS {qi(rel.name)} ({colsql})"
               f" SELECT {colsql} FROM json_populate_recordset(NULL::public.{qi(rel.name)}, {p}::json){conflict}")
    else:
        ins = f"INSERT INTO public.{qi(rel.name)} AS {qi(rel.name)} DEFAULT VALUES{conflict}"
    return await write(request, rel, role, claims, b, ins, ret, applied, 201)


async def write(request, rel, role, claims, b, stmt, ret, applied, ok_status):
    singular = wants_object(request)
    if ret == "representation":
        applied.append("return=representation")
        cols = b.select_list(request.query.get("select"))
        sql = (f"WITH {qi(rel.name)} AS ({stmt} RETURNING {qi(rel.name)}.*) SELECT coalesce(json_agg(_s), '[]')::text AS body,"
               f" count(*) AS n FROM (SELECT {cols} FROM {qi(rel.name)}) _s")

        async def work(conn):
            row = await conn.fetchrow(sql, *b.params)
            return row["body"], row["n"]
        body, n = await run(request, role, claims, work)
        status = 200 if ok_status == 204 else ok_status
        return respond(request, status, body_of(body, singular, n),
                       {"Content-Range": content_range(0, n, None) if ok_status != 201 else "*/*"},
                       applied, singular)

    async def work(conn):
        tag = await conn.execute(stmt, *b.params)
        return int(tag.rsplit(" ", 1)[-1]) if tag and tag.rsplit(" ", 1)[-1].isdigit() else 0
    n = await run(request, role, claims, work)
    if singular and n != 1:
        raise ApiError(406, "PGRST116", "JSON object requested, multiple (or no) rows returned",
                       f"The result contains {n} rows", None)
    if ret == "minimal" and "return=minimal" in request.headers.get("Prefer", ""):
        applied.append("return=minimal")
    return respond(request, ok_status, None,
                   {"Content-Range": content_range(0, n, None) if ok_status != 201 else "*/*"}, applied)


@endpoint
async def update(request):
    rel = relation(request)
    role, claims = resolve_role(request)
    prefs = parse_prefer(request)
    payload = await json_payload(request)
    if not isinstance(payload, dict):
        raise ApiError(400, "PGRST102", "Empty or invalid json", None, None)
    cols = list(payload.keys())
    check_columns(rel, cols)
    b = Builder(rel.name, rel.columns)
    conds = b.where(request.query)
    if not conds:
        raise ApiError(400, "21000", "UPDATE requires a WHERE clause", None, None)
    ret = prefs.get("return", "minimal")
    if not cols:
        return respond(request, 200 if ret == "representation" else 204,
                       "[]" if ret == "representation" else None, {"Content-Range": "*/*"}, [])
    p = b.param(json.dumps(payload))
    sets = ", ".join(f"{qi(c)} = _body.{qi(c)}" for c in cols)
    stmt = (f"UPDATE public.{qi(rel.name)} AS {qi(rel.name)} SET {sets}"
            f" FROM (SELECT * FROM json_populate_record(NULL::public.{qi(rel.name)}, {p}::json)) _body"
            f" WHERE " + " AND ".join(conds))
    return await write(request, rel, role, claims, b, stmt, ret, [], 204)


@endpoint
async def delete(request):
    rel = relation(request)
    role, claims = resolve_role(request)
    prefs = parse_prefer(request)
    b = Builder(rel.name, rel.columns)
    conds = b.where(request.query)
    if not conds:
        raise ApiError(400, "21000", "DELETE requires a WHERE clause", None, None)
    stmt = f"DELETE FROM public.{qi(rel.name)} AS {qi(rel.name)} WHERE " + " AND ".join(conds)
    return await write(request, rel, role, claims, b, stmt, prefs.get("return", "minimal"), [], 204)


def find_function(st, name, argnames):
    cands = st.schema.functions.get(name, [])
    for f in cands:
        names = {n for n, _ in f.args}
        if argnames <= names and f.required() <= argnames:
            return f
    args = ", ".join(sorted(argnames))
    if argnames:
        msg = f"Could not find the function public.{name}({args}) in the schema cache"
        details = (f"Searched for the function public.{name} with parameters {args} or with a single unnamed "
                   f"json/jsonb parameter, but no matches were found in the schema cache.")
    else:
        msg = f"Could not find the function public.{name} without parameters in the schema cache"
        details = (f"Searched for the function public.{name} without parameters or with a single unnamed "
                   f"json/jsonb parameter, but no matches were found in the schema cache.")
    hint = "Perhaps you meant to call the function public." + cands[0].name if cands else None
    raise ApiError(404, "PGRST202", msg, details, hint)


@endpoint
async def rpc(request):
    st = state(request)
    role, claims = resolve_role(request)
    name = request.match_info["fn"]
    if request.method in ("GET", "HEAD"):
        names = {n for f in st.schema.functions.get(name, []) for n, _ in f.args}
        args = {k: v for k, v in request.query.items() if k in names}
        filters = {k: v for k, v in request.query.items() if k not in args}
    else:
        payload = await json_payload(request)
        if payload is None:
            payload = {}
        if not isinstance(payload, dict):
            raise ApiError(400, "PGRST102", "Empty or invalid json", None, None)
        args, filters = payload, dict(request.query)
    fn = find_function(st, name, set(args))
    b = Builder(name, None)
    pj = None
    call_args = []
    for an, at in fn.args:
        if an not in args:
            continue
        if pj is None:
            pj = b.param(json.dumps(args))
        k = b.param(an)
        if at in ("json", "jsonb"):
            expr = f"CAST({pj}::json->{k}::text AS {at})"
        elif at.endswith("[]") and isinstance(args[an], list):
            expr = f"CAST(ARRAY(SELECT json_array_elements_text({pj}::json->{k}::text)) AS {at})"
        else:
            expr = f"CAST({pj}::json->>{k}::text AS {at})"
        call_args.append(f"{qi(an)} := {expr}")
    call = f"public.{qi(name)}({', '.join(call_args)})"
    readonly = request.method in ("GET", "HEAD")
    singular = wants_object(request)
    if fn.retset:
        conds = b.where(filters)
        where = (" WHERE " + " AND ".join(conds)) if conds else ""
        order = b.order_by(filters.get("order"))
        limit, offset = paging(request)
        lim = (f" LIMIT {limit}" if limit is not None else "") + (f" OFFSET {offset}" if offset else "")
        cols = b.select_list(filters.get("select"))
        sql = (f"SELECT coalesce(json_agg(_s), '[]')::text AS body, count(*) AS n FROM"
               f" (SELECT {cols} FROM {call} AS {qi(name)}{where}{order}{lim}) _s")

        async def work(conn):
            row = await conn.fetchrow(sql, *b.params)
            return row["body"], row["n"]
        body, n = await run(request, role, claims, work, readonly=readonly)
        return respond(request, 200, body_of(body, singular, n),
                       {"Content-Range": content_range(offset, n, None)}, [], singular)
    if fn.rettype == "void":
        async def work(conn):
            await conn.execute(f"SELECT {call}", *b.params)
        await run(request, role, claims, work, readonly=readonly)
        return respond(request, 204, None, {}, [])

    async def work(conn):
        return await conn.fetchval(f"SELECT to_json({call})::text", *b.params)
    body = await run(request, role, claims, work, readonly=readonly)
    return respond(request, 200, body if body is not None else "null", {}, [])


def add_routes(app):
    r = app.router
    r.add_get("/rest/v1/rpc/{fn}", rpc)
    r.add_route("POST", "/rest/v1/rpc/{fn}", rpc)
    r.add_get("/rest/v1/{name}", read)  # add_get also answers HEAD
    r.add_route("POST", "/rest/v1/{name}", insert)
    r.add_route("PATCH", "/rest/v1/{name}", update)
    r.add_route("DELETE", "/rest/v1/{name}", delete)
