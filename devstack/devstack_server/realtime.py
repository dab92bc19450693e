"""Supabase Realtime at /realtime/v1/websocket: the Phoenix protocol (vsn 1.0.0) for
postgres_changes, fed by the real Postgres through logical decoding (wal2json, replication slot
`devstack_realtime`), each change delivered only where the subscriber's JWT may SELECT the row under
the project's row level security — checked in Postgres as that role with those claims, as Supabase
does. Only tables in the `supabase_realtime` publication are sent. Where this differs from hosted
Realtime: docs/devstack.md ("Realtime").

Faults: knobs `realtime_refuse_joins` (1: every join is refused), `realtime_silent_joins` (1: joins
get no answer at all), `realtime_close_after_join` (1: each join is answered, then the channel
closed), `realtime_ignore_heartbeats` (1: heartbeats get no answer) and `realtime_delay_ms` (changes
held that long before delivery); `POST /_devstack/realtime/drop` cuts every socket without a close
frame, as a network loss does; `POST /_devstack/realtime/send` sends every socket a frame of the
test's (`{"text": ...}` or `{"binary_bytes": n}`). `GET /_devstack/realtime` counts connections,
channels, deliveries, joins and heartbeats.
"""
import asyncio
import datetime as dt
import json
import random
import re
import time

from aiohttp import WSMsgType, web

from .common import STATE_KEY, JWTError, decode_jwt, json_response

SLOT = "devstack_realtime"
POLL_SECONDS = 0.02
MAX_FRAME = 1 << 20
KINDS = {"I": "INSERT", "U": "UPDATE", "D": "DELETE"}
FILTER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(eq|neq|lt|lte|gt|gte|in)\.(.*)$", re.S)
HUB_KEY = web.AppKey("realtime_hub", object)


class Binding:
    """One postgres_changes subscription of a channel, as joined."""

    def __init__(self, spec):
        if not isinstance(spec, dict):
            raise ValueError("a postgres_changes entry must be an object")
        self.event = spec.get("event", "*")
        if self.event not in ("*", "INSERT", "UPDATE", "DELETE"):
            raise ValueError(f"unknown event {self.event!r}")
        self.schema = spec.get("schema", "public")
        self.table = spec.get("table")
        if not isinstance(self.table, str) or not self.table:
            raise ValueError("a postgres_changes entry needs a table")
        self.filter = spec.get("filter")
        self.condition = None
        if self.filter is not None:
            match = FILTER.match(self.filter) if isinstance(self.filter, str) else None
            if not match:
                raise ValueError(f"unsupported filter {self.filter!r}")
            column, op, value = match.groups()
            values = value[1:-1].split(",") if op == "in" and value.startswith("(") and value.endswith(")") else [value]
            self.condition = (column, op, values)
        self.id = random.randrange(10_000_000, 99_999_999)

    def reply(self):
        return {"id": self.id, "event": self.event, "schema": self.schema, "table": self.table, "filter": self.filter}

    def wants(self, schema, table, kind):
        return self.schema == schema and self.table == table and self.event in ("*", kind)

    def accepts(self, row):
        """Whether `row` passes the filter; a row without the filter's column does not."""
        if self.condition is None:
            return True
        column, op, values = self.condition
        if column not in row or row[column] is None:
            return False
        actual = row[column]
        text = json.dumps(actual) if isinstance(actual, (dict, list)) else str(actual).lower() if isinstance(actual, bool) else str(actual)
        if op == "eq":
            return text == values[0]
        if op == "neq":
            return text != values[0]
        if op == "in":
            return text in values
        try:
            left, right = float(text), float(values[0])
        except ValueError:
            left, right = text, values[0]
        return {"lt": left < right, "lte": left <= right, "gt": left > right, "gte": left >= right}[op]


class Channel:
    def __init__(self, topic, join_ref, claims, bindings):
        self.topic, self.join_ref, self.claims, self.bindings = topic, join_ref, claims, bindings

    @property
    def role(self):
        role = self.claims.get("role")
        return role if role in ("anon", "authenticated", "service_role") else "anon"


class Connection:
    def __init__(self, request, ws, apikey):
        self.request, self.ws, self.apikey = request, ws, apikey
        self.channels = {}
        self.lock = asyncio.Lock()

    async def send(self, topic, event, payload, ref=None, join_ref=None):
        frame = json.dumps({"topic": topic, "event": event, "payload": payload, "ref": ref, "join_ref": join_ref})
        async with self.lock:
            await self.ws.send_str(frame)

    async def reply(self, message, status, response):
        await self.send(message["topic"], "phx_reply", {"status": status, "response": response},
                        ref=message.get("ref"), join_ref=message.get("join_ref"))

    def drop(self):
        transport = self.request.transport
        if transport is not None:
            transport.abort()


class Hub:
    def __init__(self):
        self.connections = set()
        self.delivered = 0
        self.expired = 0
        self.joins = 0
        self.heartbeats = 0
        self.task = None

    def snapshot(self):
        return {"connections": len(self.connections), "channels": sum(len(c.channels) for c in self.connections),
                "delivered": self.delivered, "expired": self.expired, "joins": self.joins, "heartbeats": self.heartbeats}


def commit_time(text):
    """wal2json's `2025-11-19 00:22:40.877+00` as Realtime's ISO 8601 `2025-11-19T00:22:40.877Z`."""
    if not text:
        return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    stamp = text if re.search(r"[+-]\d\d:\d\d$", text) else re.sub(r"([+-]\d\d)$", r"\1:00", text)
    when = dt.datetime.fromisoformat(stamp.replace(" ", "T")).astimezone(dt.timezone.utc)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def visible_row(st, channel, schema, table, keys):
    """The row as `to_jsonb` gives it, read as the channel's role and claims; None where RLS hides it
    (or it is gone)."""
    names = list(keys)
    where = " and ".join(f'"{name}"::text = ${i + 1}' for i, name in enumerate(names))
    async with st.api_pool.acquire() as conn:
        async with conn.transaction(readonly=True):
            await conn.execute("select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)",
                               channel.role, json.dumps(channel.claims))
            row = await conn.fetchval(f'select to_jsonb(t) from "{schema}"."{table}" t where {where}',
                                      *[str(keys[name]) for name in names])
    return json.loads(row) if row else None


async def visible_before_delete(st, channel, schema, table, old, pk):
    """Whether the channel could SELECT the row just before it was deleted: the old row (whole, the
    tables' replica identity is full) is put back in a transaction that is rolled back, and read as
    the channel's role and claims, so the table's own policies decide."""
    async with st.admin_pool.acquire() as conn:
        tr = conn.transaction()
        await tr.start()
        try:
            columns = [r["attname"] for r in await conn.fetch(
                "select attname from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped"
                " and attgenerated = ''", f'"{schema}"."{table}"') if r["attname"] in old]
            names = ", ".join(f'"{c}"' for c in columns)
            await conn.execute(f'insert into "{schema}"."{table}" ({names}) select {names}'
                               f' from jsonb_populate_record(null::"{schema}"."{table}", $1::jsonb)', json.dumps(old))
            await conn.execute("select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)",
                               channel.role, json.dumps(channel.claims))
            where = " and ".join(f'"{name}"::text = ${i + 1}' for i, name in enumerate(pk))
            return bool(await conn.fetchval(f'select count(*) from "{schema}"."{table}" where {where}', *[str(old[n]) for n in pk]))
        except Exception:  # noqa: BLE001 - a row that cannot be put back (its owner is gone) is nobody's to see
            return False
        finally:
            await tr.rollback()


async def deliver(st, hub, change):
    kind = KINDS.get(change.get("action"))
    if kind is None:
        return
    schema, table = change.get("schema"), change.get("table")
    pk = [c["name"] for c in change.get("pk") or []]
    new = {c["name"]: c.get("value") for c in change.get("columns") or []}
    old = {c["name"]: c.get("value") for c in change.get("identity") or []}
    keys = {name: (new if kind != "DELETE" else old).get(name) for name in pk}
    columns = [{"name": c["name"], "type": c.get("type", "")} for c in (change.get("columns") or change.get("identity") or [])]
    delay = float(st.knobs.get("realtime_delay_ms", 0)) / 1000
    if delay:
        await asyncio.sleep(delay)
    for connection in list(hub.connections):
        for channel in list(connection.channels.values()):
            bindings = [b for b in channel.bindings if b.wants(schema, table, kind)]
            if not bindings:
                continue
            if kind == "DELETE":
                if not pk or not await visible_before_delete(st, channel, schema, table, old, pk):
                    continue
                record, matched = None, [b for b in bindings if b.accepts(old)]
            else:
                if not keys or any(v is None for v in keys.values()):
                    continue
                # The filters first, on the change's own row (as Realtime evaluates them with the change):
                # a change no binding asks for costs no read under the channel's RLS.
                if not any(b.accepts(new) for b in bindings):
                    continue
                record = await visible_row(st, channel, schema, table, keys)
                if record is None:
                    continue
                matched = [b for b in bindings if b.accepts(record)]
            if not matched:
                continue
            data = {"schema": schema, "table": table, "commit_timestamp": commit_time(change.get("timestamp")), "type": kind,
                    "columns": columns, "errors": None}
            if record is not None:
                data["record"] = record
            if kind != "INSERT":
                # The key only, as hosted Realtime sends it for a table under RLS.
                data["old_record"] = {name: old.get(name) for name in pk}
            try:
                await connection.send(channel.topic, "postgres_changes", {"ids": [b.id for b in matched], "data": data})
                hub.delivered += 1
            except (ConnectionError, RuntimeError):
                pass


async def expire_channels(hub):
    """Closes every channel whose token has expired, as Realtime does: a `system` error, then
    `phx_close`. A client keeps a channel by pushing `access_token` before its token runs out."""
    now = time.time()
    for connection in list(hub.connections):
        for topic, channel in list(connection.channels.items()):
            exp = channel.claims.get("exp")
            if isinstance(exp, (int, float)) and exp <= now:
                connection.channels.pop(topic, None)
                hub.expired += 1
                try:
                    await connection.send(topic, "system", {"status": "error", "extension": "system", "channel": topic.split(":", 1)[-1],
                                                            "message": f"Token has expired {int(now - exp)} seconds ago"})
                    await connection.send(topic, "phx_close", {}, join_ref=channel.join_ref)
                except (ConnectionError, RuntimeError):
                    pass


async def feed(app):
    """Reads the replication slot every POLL_SECONDS for as long as the server runs (with nobody
    subscribed too: a slot nobody reads holds WAL back) and hands each change to `deliver`."""
    st, hub = app[STATE_KEY], app[HUB_KEY]
    while True:
        try:
            async with st.admin_pool.acquire() as conn:
                published = {(r["schemaname"], r["tablename"]) for r in await conn.fetch(
                    "select schemaname, tablename from pg_publication_tables where pubname = 'supabase_realtime'")}
                rows = await conn.fetch(
                    "select data from pg_logical_slot_get_changes($1, null, null, 'format-version', '2',"
                    " 'include-transaction', '0', 'include-timestamp', '1', 'include-pk', '1')", SLOT)
            await expire_channels(hub)
            for row in rows:
                change = json.loads(row["data"])
                if (change.get("schema"), change.get("table")) in published and hub.connections:
                    await deliver(st, hub, change)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a bad change or a restart of Postgres must not end the feed
            st.log.exception("realtime: reading the replication slot failed")
            await asyncio.sleep(1)
        await asyncio.sleep(POLL_SECONDS)


def claims_of(st, token):
    """(claims, None) or (None, the reason a join is refused), in Realtime's words."""
    if not token:
        return None, "Unauthorized: no access token"
    try:
        return decode_jwt(st.jwt_secret, token), None
    except JWTError as error:
        if error.kind == "expired":
            return None, f"InvalidJWTExpiration: {error.message}"
        return None, f"MalformedJWT: {error.message}"


async def join(st, hub, connection, message):
    hub.joins += 1
    payload = message.get("payload") if isinstance(message.get("payload"), dict) else {}
    if st.knobs.get("realtime_silent_joins"):
        return
    if st.knobs.get("realtime_refuse_joins"):
        return await connection.reply(message, "error", {"reason": "devstack refuses joins (knob realtime_refuse_joins)"})
    claims, refusal = claims_of(st, payload.get("access_token") or connection.apikey)
    if refusal:
        return await connection.reply(message, "error", {"reason": refusal})
    config = payload.get("config") if isinstance(payload.get("config"), dict) else {}
    try:
        bindings = [Binding(spec) for spec in config.get("postgres_changes") or []]
    except ValueError as error:
        return await connection.reply(message, "error", {"reason": f"invalid postgres_changes: {error}"})
    topic = message["topic"]
    connection.channels[topic] = Channel(topic, message.get("join_ref") or message.get("ref"), claims, bindings)
    await connection.reply(message, "ok", {"postgres_changes": [b.reply() for b in bindings]})
    if bindings:
        await connection.send(topic, "system", {"status": "ok", "extension": "postgres_changes", "message": "Subscribed to PostgreSQL",
                                                "channel": topic.split(":", 1)[-1]})
    if st.knobs.get("realtime_close_after_join"):
        connection.channels.pop(topic, None)
        await connection.send(topic, "phx_close", {}, join_ref=message.get("join_ref") or message.get("ref"))


async def handle(st, hub, connection, message):
    topic, event = message.get("topic"), message.get("event")
    if not isinstance(topic, str) or not isinstance(event, str):
        raise ValueError("a message needs a topic and an event")
    if topic == "phoenix" and event == "heartbeat":
        hub.heartbeats += 1
        if st.knobs.get("realtime_ignore_heartbeats"):
            return
        return await connection.reply(message, "ok", {})
    if event == "phx_join":
        return await join(st, hub, connection, message)
    channel = connection.channels.get(topic)
    if channel is None:
        return await connection.reply(message, "error", {"reason": "unmatched topic"})
    if event == "phx_leave":
        connection.channels.pop(topic, None)
        await connection.reply(message, "ok", {})
        return await connection.send(topic, "phx_close", {}, ref=message.get("ref"), join_ref=channel.join_ref)
    if event == "access_token":
        token = (message.get("payload") or {}).get("access_token")
        claims, refusal = claims_of(st, token)
        if refusal:
            connection.channels.pop(topic, None)
            await connection.send(topic, "system", {"status": "error", "extension": "system", "message": refusal,
                                                    "channel": topic.split(":", 1)[-1]})
            return await connection.send(topic, "phx_close", {}, join_ref=channel.join_ref)
        channel.claims = claims
        return
    # Broadcast and presence are not part of this stand-in; their messages are dropped.


async def websocket(request):
    st, hub = request.app[STATE_KEY], request.app[HUB_KEY]
    key = request.query.get("apikey")
    if key not in (st.anon_key, st.service_key):
        return json_response({"message": "Invalid API key"}, 401)
    if request.query.get("vsn", "1.0.0") != "1.0.0":
        return json_response({"message": "devstack speaks Realtime vsn 1.0.0 only"}, 400)
    ws = web.WebSocketResponse(max_msg_size=MAX_FRAME, heartbeat=None)
    await ws.prepare(request)
    connection = Connection(request, ws, key)
    hub.connections.add(connection)
    try:
        async for frame in ws:
            if frame.type != WSMsgType.TEXT:
                st.log.info("realtime: closing a socket that sent a %s frame", frame.type.name)
                break
            try:
                message = json.loads(frame.data)
                if not isinstance(message, dict):
                    raise ValueError("not an object")
                await handle(st, hub, connection, message)
            except (ValueError, TypeError) as error:
                st.log.info("realtime: closing a socket that sent an unreadable frame: %s", error)
                break
    finally:
        hub.connections.discard(connection)
        await ws.close()
    return ws


async def stats(request):
    return json_response(request.app[HUB_KEY].snapshot())


async def drop(request):
    hub = request.app[HUB_KEY]
    dropped = len(hub.connections)
    for connection in list(hub.connections):
        connection.drop()
    return json_response({"dropped": dropped})


async def start(app):
    """Creates the slot if this cluster has none, then starts the feed."""
    st = app[STATE_KEY]
    async with st.admin_pool.acquire() as conn:
        if not await conn.fetchval("select 1 from pg_replication_slots where slot_name = $1", SLOT):
            await conn.execute("select pg_create_logical_replication_slot($1, 'wal2json')", SLOT)
    app[HUB_KEY].task = asyncio.create_task(feed(app))


async def stop(app):
    hub = app[HUB_KEY]
    for connection in list(hub.connections):
        await connection.ws.close(code=1001, message=b"server shutting down")
    task = hub.task
    if task is not None:
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass


async def send_raw(request):
    """A frame of the test's to every socket: garbage, a forged change, or `binary_bytes` zeros."""
    hub = request.app[HUB_KEY]
    body = await request.json()
    sent = 0
    for connection in list(hub.connections):
        try:
            async with connection.lock:
                if "binary_bytes" in body:
                    await connection.ws.send_bytes(bytes(int(body["binary_bytes"])))
                else:
                    await connection.ws.send_str(str(body.get("text", "")))
            sent += 1
        except (ConnectionError, RuntimeError):
            pass
    return json_response({"sent": sent})


def add_routes(app):
    app[HUB_KEY] = Hub()
    app.router.add_get("/realtime/v1/websocket", websocket)
    app.router.add_get("/_devstack/realtime", stats)
    app.router.add_post("/_devstack/realtime/drop", drop)
    app.router.add_post("/_devstack/realtime/send", send_raw)
