"""11. The server at scale (issue 19, item 6): devstack's Postgres with 1,000,000 users and 10,000,000 likes,
generated in SQL, and the three requests every daemon makes of it timed as PostgREST runs them: as the role
`authenticated` under row level security, one transaction per request. No daemon runs here: the figures are
the database's own (psql's round trip on the cluster's Unix socket), not the HTTP layer's."""
import os
import re
import time
import urllib.parse

from benchlib import ROOT, log, pct, sh, summary

ID = 11
TITLE = "The server at scale: 1,000,000 users, 10,000,000 likes (Postgres, authenticated role under RLS)"
TARGET = "pull page (500 rows after a cursor) ≤ 5 ms, user_count ≤ 5 ms, recent_signups ≤ 5 ms, each an index scan"

PGBIN = "/usr/lib/postgresql/15/bin"
PSQL = os.path.join(PGBIN, "psql")
DATABASE = "splashd_scale"
USERS = 1_000_000          # users 1..USERS, plus user 0: the measured one
LIKES = 10_000_000         # spread over users 1..USERS, skewed
MEASURED_LIKES = 100_000   # user 0's
USER_BATCH = 1_000         # sign-ups per transaction (see load_users)
LIKE_CHUNK = 1_010_000     # like rows per INSERT statement (progress in the log)
DEEP_ROW = 90_000          # cursors: the measured user's row this far into its (updated_at, id) order
EARLY_ROW = 10_000
PAGE = 500                 # the daemon's pull page
WARMUP, RUNS = 10, 50      # transactions per request and form: not counted, counted

# The users' ids are md5('scale-user-<n>')::uuid, so the likes can name their owner without a join.
MEASURED = "md5('scale-user-0')::uuid"


def url_for(ctx, database):
    """DEVSTACK_DATABASE_URL (postgresql://postgres:…@/postgres?host=<socket dir>&port=…) for `database`."""
    parts = urllib.parse.urlsplit(ctx.devstack.env["DEVSTACK_DATABASE_URL"])
    return urllib.parse.urlunsplit(parts._replace(path="/" + database))


def psql(url, sql):
    """Runs an SQL script through psql as the cluster's superuser, stopping at the first error."""
    return sh([PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1", url], input=sql)


def psql_file(url, path, stop=True):
    return sh([PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=%d" % stop, "-f", path, url], check=stop)


def scalar(url, sql):
    return sh([PSQL, "-X", "-q", "-A", "-t", "-c", sql, url]).stdout.strip()


# ---------------------------------------------------------------- the database

def create_database(ctx):
    """A database of its own in devstack's cluster, set up as `devstack up` sets up `postgres`: the base
    (devstack/sql/supabase_base.sql) and then every migration in order.

    Not `postgres` itself: devstack's Realtime feed reads a logical replication slot on database `postgres`
    every 20 ms through wal2json, and 11 million rows written there would be decoded and held by the Python
    server. Logical slots are per database, so the changes made here are skipped by the decoder and never
    reach the server. The decoder still reads past their WAL: during the load the feed's backend used about
    half a core (seen in top), which slows the load, not the measurements (nothing is written then)."""
    admin = url_for(ctx, "postgres")
    psql(admin, f"drop database if exists {DATABASE} with (force);")
    psql(admin, f"create database {DATABASE};")
    url = url_for(ctx, DATABASE)
    # The roles are the cluster's, made when `postgres` got the base: their `create role` lines fail here, and
    # only those may (psql goes on after an error; every other error fails the scenario).
    r = psql_file(url, os.path.join(ROOT, "devstack", "sql", "supabase_base.sql"), stop=False)
    errors = [l for l in r.stderr.splitlines() if "ERROR:" in l]
    unexpected = [l for l in errors if not re.search(r'ERROR:  role "[a-z_]+" already exists', l)]
    if unexpected or r.returncode != 0:
        raise RuntimeError("supabase_base.sql in %s: %s" % (DATABASE, "; ".join(unexpected) or r.stderr[-500:]))
    migrations = sorted(f for f in os.listdir(os.path.join(ROOT, "supabase", "migrations")) if f.endswith(".sql"))
    for name in migrations:
        psql_file(url, os.path.join(ROOT, "supabase", "migrations", name))
    return url, migrations


def drop_database(ctx):
    admin = url_for(ctx, "postgres")
    try:
        psql(admin, f"drop database if exists {DATABASE} with (force);")
    except Exception as e:  # noqa: BLE001
        log("s11: dropping", DATABASE, "failed:", e)


def load_users(url):
    """USERS + 1 sign-ups straight into auth.users, so that the project's own triggers run for each:
    handle_new_user makes the profile, track_user_stats moves the counter. created_at goes back 30 s per
    user (about a year in all), so recent_signups has an order to follow.

    In batches of USER_BATCH, each committed: the counter is one row updated once per sign-up, and inside
    one transaction every version of it stays (none can be pruned before the commit), so each update walks
    further: 5,000 sign-ups in one statement took 0.47 s here, 20,000 took 4.4 s (quadratic); batches of
    1,000 cost 60 to 90 µs a sign-up whatever the total (1,000,001 in 91 s on a busy 2-core machine)."""
    sql = f"""
do $$
declare
  t0 constant timestamptz := now();
begin
  for b in 0 .. {USERS} / {USER_BATCH} loop
    insert into auth.users (id, email, raw_user_meta_data, created_at, email_confirmed_at)
    select md5('scale-user-' || n)::uuid, 'user' || n || '@scale.example',
           jsonb_build_object('username', case when n = 0 then 'measured' else 'user_' || n end),
           t0 - ({USERS} - n) * interval '30 seconds', t0 - ({USERS} - n) * interval '30 seconds'
      from generate_series(b * {USER_BATCH}, least((b + 1) * {USER_BATCH} - 1, {USERS})) n;
    commit;
  end loop;
end
$$;"""
    psql(url, sql)


def load_likes(url):
    """LIKES likes over users 1..USERS and MEASURED_LIKES for user 0, in the order they were made (3 s apart,
    about a year in all): every 101st row is the measured user's, so its rows are spread over the whole table
    as a real user's are (a pull page touches ~500 heap pages, not a few). The others' owner is
    1 + floor(USERS · random()³): skewed; in one load the busiest had 99,797, 25,653 and 18,232 likes, 195
    users had 1,000 or more, the median user 6, 79 % at most 10 and 1 % none. One in 20 is a tombstone
    (unliked). No photos rows: likes.photo_id has no foreign key (photos is a per-user copy of metadata).

    session_replication_role = replica (superuser, this session only) turns the table's triggers off for the
    load: likes_set_updated_at would stamp every row with its transaction's now(), so a year of history
    could not be written, and the foreign key's check (a trigger too) would look up auth.users 10 million
    times for ids taken from it."""
    total = LIKES + MEASURED_LIKES
    step = total // MEASURED_LIKES  # 101: every 101st row is the measured user's
    for start in range(1, total + 1, LIKE_CHUNK):
        end = min(start + LIKE_CHUNK - 1, total)
        t0 = time.time()
        psql(url, f"""
set session_replication_role = replica;
select setseed({start} / {total + 1}::float8);
insert into public.likes (id, user_id, photo_id, liked_at, updated_at, deleted_at)
select gen_random_uuid(), owner, 'unsplash:' || lpad(to_hex(i), 11, '0'),
       at - case when i % 20 = 7 then interval '3 days' else interval '0' end, at,
       case when i % 20 = 7 then at end
  from (select i, timestamptz '{BASE}' + i * interval '3 seconds' as at,
               case when i % {step} = 0 then {MEASURED}
                    else md5('scale-user-' || (1 + floor(random() ^ 3 * {USERS}))::int)::uuid end as owner
          from generate_series({start}, {end}) i) g;""")
        log(f"s11: likes {end:,} of {total:,} ({time.time() - t0:.0f} s)")


# Likes start here: their newest is ~a year later (a fixed base keeps the generated data the same each run).
BASE = "2025-01-01 00:00:00+00"


# ---------------------------------------------------------------- the requests

def claims(uid, role="authenticated"):
    return '{"sub": "%s", "role": "%s"}' % (uid, role) if uid else '{"role": "%s"}' % role


def as_role(role, uid):
    """What PostgREST does first in each request's transaction: the JWT's role and claims, local to it."""
    return (f"set local role {role} \\; select set_config('request.jwt.claims', '{claims(uid, role)}', true)")


BEFORE = "as splashd sent it before (or)"
NOW = "as splashd sends it (user_id=eq, updated_at=gte, or)"


def pull_sql(at, last_id, form, uid):
    """The statement PostgREST builds for the daemon's page request (its values inlined; RLS adds
    `(select auth.uid()) = user_id`). BEFORE:
    GET /rest/v1/likes?select=id,photo_id,liked_at,updated_at,deleted_at&or=(updated_at.gt."<at>",and(updated_at.eq."<at>",id.gt.<id>))&order=updated_at.asc,id.asc&limit=500
    NOW (SyncCursor.pageFilters): the same with user_id=eq.<uid>&updated_at=gte."<at>" before the `or`."""
    t = '"public"."likes"'
    where = f"({t}.\"updated_at\" > '{at}' OR ({t}.\"updated_at\" = '{at}' AND {t}.\"id\" > '{last_id}'))"
    if form == NOW:
        where = f"{t}.\"user_id\" = '{uid}' AND {t}.\"updated_at\" >= '{at}' AND {where}"
    return (f"WITH pgrst_source AS (SELECT {t}.\"id\", {t}.\"photo_id\", {t}.\"liked_at\", {t}.\"updated_at\", {t}.\"deleted_at\" "
            f"FROM {t} WHERE {where} ORDER BY {t}.\"updated_at\" ASC, {t}.\"id\" ASC LIMIT {PAGE} OFFSET 0) "
            "SELECT null::bigint AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total, "
            "coalesce(json_agg(_postgrest_t), '[]') AS body, "
            "nullif(current_setting('response.headers', true), '') AS response_headers, "
            "nullif(current_setting('response.status', true), '') AS response_status, '' AS response_inserted "
            "FROM (SELECT * FROM pgrst_source) _postgrest_t")


USER_COUNT = "SELECT public.user_count()"
RECENT = ("SELECT \"public\".\"recent_signups\".\"username\", \"public\".\"recent_signups\".\"created_at\" "
          "FROM \"public\".\"recent_signups\" ORDER BY \"public\".\"recent_signups\".\"created_at\" DESC, "
          "\"public\".\"recent_signups\".\"username\" ASC LIMIT 100")


def request_list(uid, deep, early):
    """(name, role, uid, sql, what the plan must show) for each request and form measured."""
    start = ("1970-01-01T00:00:00+00:00", "00000000-0000-0000-0000-000000000000")  # the daemon's first cursor
    likes_index = ("likes_user_updated_idx", "likes")
    return [
        (f"pull page, deep cursor (row {DEEP_ROW:,}), {BEFORE}", "authenticated", uid, pull_sql(*deep, BEFORE, uid), likes_index),
        (f"pull page, deep cursor (row {DEEP_ROW:,}), {NOW}", "authenticated", uid, pull_sql(*deep, NOW, uid), likes_index),
        (f"pull page, early cursor (row {EARLY_ROW:,}), {BEFORE}", "authenticated", uid, pull_sql(*early, BEFORE, uid), likes_index),
        (f"pull page, early cursor (row {EARLY_ROW:,}), {NOW}", "authenticated", uid, pull_sql(*early, NOW, uid), likes_index),
        (f"pull page, first (the daemon's start cursor), {BEFORE}", "authenticated", uid, pull_sql(*start, BEFORE, uid), likes_index),
        (f"pull page, first (the daemon's start cursor), {NOW}", "authenticated", uid, pull_sql(*start, NOW, uid), likes_index),
        ("user_count() as authenticated", "authenticated", uid, USER_COUNT, None),
        ("user_count() as anon", "anon", None, USER_COUNT, None),
        ("recent_signups (100, newest first)", "authenticated", uid, RECENT, ("profiles_created_at_username_idx", "profiles")),
    ]


def explain(url, role, uid, sql):
    """EXPLAIN (ANALYZE, BUFFERS) in the request's own transaction, with auto_explain's nested plans (the
    statement inside user_count() does not show in the outer plan); the plan text and the nested ones."""
    script = ("begin;\nload 'auto_explain';\nset local auto_explain.log_min_duration = 0;\n"
              "set local auto_explain.log_nested_statements = on;\nset local auto_explain.log_analyze = on;\n"
              "set local auto_explain.log_buffers = on;\nset local client_min_messages = log;\n"
              f"{as_role(role, uid)};\nexplain (analyze, buffers) {sql};\ncommit;\n")
    r = sh([PSQL, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url], input=script)
    plan = "\n".join(l for l in r.stdout.splitlines() if l.strip() and not l.startswith(("{", "SET", "LOAD")))
    nested = []
    for block in r.stderr.split("LOG:  duration:")[1:]:
        text = block.split("plan:", 1)[1]
        body = text.split("Query Text:", 1)[1]
        query, _, tree = body.partition("\n\n") if "\n\n" in body else body.partition("\n")
        if "user_stats" in query or ("select" in query.lower() and "set_config" not in query and "explain" not in query.lower()):
            nested.append(tree.strip())
    return plan, nested


def plan_verdict(plan, nested, want):
    """Does the plan read by index (and scan no big table from end to end)?"""
    text = plan + "\n" + "\n".join(nested)
    big_seq = re.findall(r"Seq Scan on (likes|profiles|users)\b", text)
    if big_seq:
        return False, "Seq Scan on " + ", ".join(sorted(set(big_seq)))
    if want:
        index, table = want
        m = re.search(rf"(Index Only Scan|Index Scan)( Backward)? using {index} on {table}", text)
        if not m:
            bitmap = re.search(rf"Bitmap Heap Scan on {table}\b.*?actual time=\S+ rows=(\d+)", text)
            if bitmap:
                return False, f"a bitmap scan of {int(bitmap.group(1)):,} rows and a sort, not an ordered scan of {index}"
            return False, f"no index scan using {index}"
        walked = re.search(r"Rows Removed by Filter: (\d+)", text)
        return True, m.group(0) + (f" (its filter dropped {int(walked.group(1)):,})" if walked else "")
    m = re.search(r"(Index Only Scan|Index Scan|Seq Scan)[^\n]*on user_stats", text)
    return (m is not None, (m.group(0) + " (the one-row counter)") if m else "user_stats not read")


def timings(url, items):
    """Round trips of each request's statement, interleaved (one transaction of each per round), WARMUP rounds
    not counted; psql's \\timing on the cluster's socket. Also the role-and-claims statement and the commit."""
    lines = ["\\timing on", "\\o /dev/null"]
    for _ in range(WARMUP + RUNS):
        for _, role, uid, sql, _ in items:
            lines += [f"begin \\; {as_role(role, uid)};", sql + ";", "commit;"]
    out = sh([PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1", url], input="\n".join(lines) + "\n").stdout
    times = [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms", out, re.M)]
    if len(times) != 3 * len(items) * (WARMUP + RUNS):
        raise RuntimeError(f"psql printed {len(times)} timings, expected {3 * len(items) * (WARMUP + RUNS)}")
    per = {name: {"query": [], "setup": [], "commit": []} for name, *_ in items}
    k = 0
    for round_ in range(WARMUP + RUNS):
        for name, *_ in items:
            if round_ >= WARMUP:
                per[name]["setup"].append(times[k])
                per[name]["query"].append(times[k + 1])
                per[name]["commit"].append(times[k + 2])
            k += 3
    return per


def key_lines(plan, nested):
    """The plan's nodes (without their cost estimates) and conditions, one string each."""
    keep = []
    for l in (plan + "\n" + "\n".join(nested)).splitlines():
        s = re.sub(r"\s*\(cost=[^)]*\)", "", l.strip().lstrip("-> ").strip())
        if s.startswith("Planning"):
            continue
        if re.search(r"Scan|Sort|Limit|Gather|Aggregate|Index Cond|Filter|Rows Removed|Heap Blocks|Execution Time|BitmapOr", s):
            keep.append(s)
    return keep


# ---------------------------------------------------------------- the scenario

def cursor_at(url, uid, n):
    """(updated_at, id) of the user's n-th like in pull order, the timestamp as PostgREST hands it back and the
    daemon keeps it (ISO 8601 with an offset)."""
    at, last_id = scalar(url, f"select to_json(updated_at) #>> '{{}}' || '|' || id from public.likes where user_id = '{uid}' "
                              f"order by updated_at, id offset {n - 1} limit 1").split("|")
    return at, last_id


def measure(url):
    """The measured user, its cursors, the data's sizes, and each request's plans and timings."""
    uid = scalar(url, f"select {MEASURED}")
    deep, early = cursor_at(url, uid, DEEP_ROW), cursor_at(url, uid, EARLY_ROW)
    sizes = scalar(url, "with c as (select user_id, count(*) n from public.likes group by user_id) "
                        "select (select count(*) from public.likes) || '|' || "
                        "pg_size_pretty(pg_total_relation_size('public.likes')) || '|' || "
                        f"(select n from c where user_id = '{uid}') || '|' || "
                        "(select string_agg(to_char(n, 'FM999,999,999'), ', ' order by n desc) from (select n from c order by n desc limit 4) t) || '|' || "
                        "(select percentile_cont(0.5) within group (order by n) from c) || '|' || "
                        f"(select count(*) from c where n >= 1000) || '|' || {USERS + 1} - (select count(*) from c)").split("|")
    items = request_list(uid, deep, early)
    plans = {}
    for name, role, who, sql, want in items:
        plan, nested = explain(url, role, who, sql)
        plans[name] = (plan, nested, plan_verdict(plan, nested, want))
    generic = generic_plans(url, uid, deep)
    log("s11: timing")
    per = timings(url, items)
    return uid, (deep, early), sizes, items, plans, generic, per


def run(ctx):
    setup = {}
    t0 = time.time()
    try:
        url, migrations = create_database(ctx)
        setup["database + base + migrations"] = time.time() - t0

        t = time.time()
        log(f"s11: {USERS + 1:,} sign-ups through auth.users' triggers, {USER_BATCH:,} per transaction")
        load_users(url)
        setup["users (auth.users → profiles, user_stats by trigger)"] = time.time() - t
        counted = scalar(url, "select public.user_count() || ' ' || (select count(*) from public.profiles)"
                              " || ' ' || (select count(*) from auth.users)").split()
        if len(set(counted)) != 1 or int(counted[0]) != USERS + 1:
            raise RuntimeError(f"user_count() {counted[0]}, profiles {counted[1]}, auth.users {counted[2]}: "
                               f"the counter is not exact (expected {USERS + 1:,} each)")

        t = time.time()
        load_likes(url)
        setup["likes"] = time.time() - t

        t = time.time()
        psql(url, "vacuum (analyze) auth.users; vacuum (analyze) public.profiles; vacuum (analyze) public.user_stats;"
                  " vacuum (analyze) public.likes;")
        setup["VACUUM (ANALYZE)"] = time.time() - t

        measured = measure(url)
    finally:
        drop_database(ctx)
    return result(setup, migrations, *measured)


def result(setup, migrations, uid, cursors, sizes, items, plans, generic, per):
    """The scenario's result dict (what report.py reads) from what run() loaded and measure() measured."""
    notes, splashd, verdict = [], {}, []
    for name, *_ in items:
        q = per[name]["query"]
        s = summary(q, "ms")
        s["p99"] = pct(q, 99)
        splashd[name + " — median"] = s
        p99 = summary([pct(q, 99)], "ms")
        splashd[name + " — p99"] = p99
    for name, *_ in items:
        if BEFORE in name:
            continue  # reported beside the form the daemon sends now, not in the verdict
        med = splashd[name + " — median"]["median"]
        ok, why = plans[name][2]
        verdict.append({"target": f"{name} ≤ 5 ms, index scan",
                        "value": f"median {med:.2f} ms, p99 {splashd[name + ' — p99']['median']:.2f} ms; {why}",
                        "met": med <= 5 and ok})
    setup_ms = [x for name, *_ in items for x in per[name]["setup"]]
    commit_ms = [x for name, *_ in items for x in per[name]["commit"]]
    notes.append("Setup (not measured figures): " + "; ".join(f"{k} {v:.0f} s" for k, v in setup.items())
                 + f". Migrations applied: {', '.join(migrations)}.")
    notes.append(f"Data: {int(sizes[0]):,} likes ({sizes[1]} with indexes); the measured user has {int(sizes[2]):,}, "
                 f"the busiest {sizes[3]}; {int(sizes[5]):,} users have 1,000 or more, the median user with likes "
                 f"{float(sizes[4]):.0f}, {int(sizes[6]):,} users none. "
                 f"{USERS + 1:,} users, user_count() = count(*) from profiles checked after the load. "
                 f"Cursors: the measured user's row {DEEP_ROW:,} ({', '.join(cursors[0])}) and row {EARLY_ROW:,} "
                 f"({', '.join(cursors[1])}) of its likes in (updated_at, id) order.")
    notes.append(f"Each figure: {RUNS} transactions after {WARMUP} not counted, interleaved with the other requests; "
                 "the time is psql's round trip (\\timing) for the request's statement alone. Around it, as PostgREST does, "
                 f"`begin; set local role …; select set_config('request.jwt.claims', …, true)` took median "
                 f"{pct(setup_ms, 50):.3f} ms and the commit {pct(commit_ms, 50):.3f} ms. Each metric's min–max is over the "
                 "transactions; a p99 row is one value.")
    notes.append("Postgres: devstack's cluster (shared_buffers 128MB, fsync off), a database of its own (see the scenario's "
                 "create_database for why not `postgres`), dropped afterwards; everything runs at the benchmark's niceness.")
    for name, (plan, nested, (ok, why)) in plans.items():
        body = plan + ("\n-- inside user_count():\n" + "\n".join(nested) if nested and "user_count" in name else "")
        notes.append(f"Plan, {name} ({'index scan' if ok else 'MISSED: ' + why}): `" + " · ".join(key_lines(plan, nested)) + "`"
                     + "\n\n  ```\n" + "\n".join("  " + l for l in body.splitlines()) + "\n  ```")
    for name, lines in generic.items():
        notes.append(f"Generic plan (PostgREST prepares its statements; after five runs Postgres may keep a generic plan), "
                     f"{name}, deep cursor: `" + " · ".join(lines) + "`")
    notes.append("Reading the pull's plans: RLS's `(select auth.uid()) = user_id` reaches the planner as a parameter, so it "
                 "sizes the user's likes by the table's average (the rows= estimates above), not by the measured user's "
                 f"{MEASURED_LIKES:,}. With the `or` filter alone the index range is bounded by the user only: the planner either "
                 "bitmap-scans every like after the cursor and sorts them, or walks the index from the user's first like "
                 "and filters. The daemon now also sends its own `user_id` (the planner then knows the user's row count) and "
                 "`updated_at >= <at>`, which starts the index range at the cursor, so a page reads about 500 entries.")
    return {"splashd": splashd, "verdict": verdict,
            "commands": [f"createdb {DATABASE}; psql -f devstack/sql/supabase_base.sql; psql -f supabase/migrations/*.sql",
                         "insert into auth.users … generate_series (1,000 per transaction; the triggers make profiles and user_stats)",
                         "set session_replication_role = replica; insert into public.likes … generate_series (10 statements)",
                         "vacuum (analyze) …",
                         "psql: begin; set local role authenticated; select set_config('request.jwt.claims', '{\"sub\": …}', true); "
                         "<PostgREST's statement>; commit   (\\timing, × 60 per request)"],
            "notes": notes}


def generic_plans(url, uid, cursor):
    """The pull's plan with its values as parameters and a generic plan forced (not timed)."""
    out = {}
    for name, form in ((f"pull page {BEFORE}", BEFORE), (f"pull page {NOW}", NOW)):
        sql = pull_sql("$1", "$2", form, uid).replace("'$1'", "$1").replace("'$2'", "$2")
        script = (f"begin;\nset local plan_cache_mode = force_generic_plan;\n{as_role('authenticated', uid)};\n"
                  f"prepare p(timestamptz, uuid) as {sql};\n"
                  f"explain (analyze, buffers) execute p('{cursor[0]}', '{cursor[1]}');\ncommit;\n")
        r = sh([PSQL, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url], input=script)
        out[name] = key_lines(r.stdout, [])
    return out
