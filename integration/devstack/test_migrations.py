"""The project's migrations as Postgres runs them: triggers, constraints, policies, grants."""
import uuid


def test_profile_created_by_trigger_with_fallback_username(sql):
    uid = uuid.uuid4()
    sql("insert into auth.users (id, email, raw_user_meta_data) values ($1, $2, '{}')", uid, "Jo@Example.com")
    p = sql("select username, email from public.profiles where id = $1", uid)[0]
    assert p["username"] == "jo_" and p["email"] == "Jo@Example.com"  # padded to 3 characters
    uid2 = uuid.uuid4()
    sql("insert into auth.users (id, email, raw_user_meta_data) values ($1, $2, $3::jsonb)", uid2,
        "x@example.com", '{"username": "A very long user name that exceeds thirty-two characters"}')
    name = sql("select username from public.profiles where id = $1", uid2)[0]["username"]
    assert len(name) <= 32 and all(c.isalnum() or c == "_" for c in name) and name == name.lower()


def test_sign_in_and_email_change_reach_profile(sql, make_user, anon):
    u = make_user()
    before = sql("select last_sign_in_at from public.profiles where id = $1", uuid.UUID(u.id))[0][0]
    assert anon.post("/auth/v1/token?grant_type=password",
                     json={"email": u.email, "password": u.password}).status_code == 200
    after = sql("select last_sign_in_at from public.profiles where id = $1", uuid.UUID(u.id))[0][0]
    assert after > before


def test_updated_at_is_server_time(make_user):
    u = make_user()
    r = u.api.post("/rest/v1/likes", json={"photo_id": "unsplash:t", "updated_at": "2001-01-01T00:00:00Z"},
                   headers={"Prefer": "return=representation"})
    assert r.status_code == 201 and not r.json()[0]["updated_at"].startswith("2001")


def test_deleting_a_user_cascades(sql, make_user):
    u = make_user()
    u.api.post("/rest/v1/likes", json={"photo_id": "unsplash:t"})
    sql("delete from auth.users where id = $1", uuid.UUID(u.id))
    assert sql("select count(*) from public.likes where user_id = $1", uuid.UUID(u.id))[0][0] == 0
    assert sql("select count(*) from public.profiles where id = $1", uuid.UUID(u.id))[0][0] == 0


def test_policies_are_to_authenticated_only(sql):
    rows = sql("select tablename, policyname, roles::text[] as roles from pg_policies"
               " where schemaname in ('public', 'storage')")
    assert len(rows) >= 14
    assert all(r["roles"] == ["authenticated"] for r in rows), rows
    fns = sql("select p.proname, p.prosecdef, p.proconfig from pg_proc p join pg_namespace n on n.oid = p.pronamespace"
              " where n.nspname = 'public' and p.prosecdef")
    assert {f["proname"] for f in fns} == {"handle_new_user", "handle_user_updated", "user_count", "track_user_stats"}
    assert all(f["proconfig"] == ["search_path=\"\""] for f in fns), fns


def test_a_removed_edit_stays_removed(make_user):
    u = make_user()
    eid = str(uuid.uuid4())
    row = {"id": eid, "photo_id": "unsplash:t", "pipeline": [], "deleted_at": None}
    upsert = {"Prefer": "resolution=merge-duplicates,return=representation"}
    assert u.api.post("/rest/v1/edits?on_conflict=id", json=[row], headers=upsert).status_code in (200, 201)
    removed = u.api.post("/rest/v1/edits?on_conflict=id", json=[dict(row, deleted_at="2026-01-01T00:00:00Z")],
                         headers=upsert)
    assert removed.json()[0]["deleted_at"] is not None
    before = removed.json()[0]["updated_at"]
    # The upload sent again after the removal: the tombstone stays, and updated_at moves so pulls read it.
    again = u.api.post("/rest/v1/edits?on_conflict=id", json=[row], headers=upsert)
    assert again.status_code in (200, 201)
    assert again.json()[0]["deleted_at"] is not None and again.json()[0]["updated_at"] > before


def test_recent_signups_reads_its_index(env):
    """recent_signups (what the daemon asks: newest 100 by created_at desc, username asc) is read from
    profiles_created_at_username_idx in that order, not by sorting every profile (issue 19: a million).

    The index must exist with that exact definition, and the planner must choose it on its own: 3,000
    sign-ups are made in a transaction that is rolled back (through auth.users, so the triggers make the
    profiles), and the plan of the daemon's query, as anon, must name the index and have no Sort. Turning
    enable_sort or enable_seqscan off would show only that the index *can* give the order; 3,000 rows are
    enough for a top-N sort to cost more than reading 100 entries, so the choice here is the planner's
    own, as it is at a million (bench scenario 11 measures that). The same transaction then drops the
    index and plans the query again: a Sort over a scan of profiles, so the check tells the two apart.
    No ANALYZE: it would write the in-transaction row count into pg_class for good (in place, not rolled
    back); the planner sizes the table from its pages anyway."""
    import asyncio

    import asyncpg

    query = ("select username, created_at from public.recent_signups"
             " order by created_at desc, username asc limit 100")

    async def go():
        conn = await asyncpg.connect(env["DEVSTACK_DATABASE_URL"])
        try:
            definition = await conn.fetchval(
                "select indexdef from pg_indexes where schemaname = 'public' and indexname = 'profiles_created_at_username_idx'")
            tr = conn.transaction()
            await tr.start()
            try:
                await conn.execute(
                    "insert into auth.users (id, email, raw_user_meta_data, created_at)"
                    " select gen_random_uuid(), 'idx' || n || '@example.com', jsonb_build_object('username', 'idx_' || n),"
                    "        now() + interval '1 day' - n * interval '1 minute' from generate_series(1, 3000) n")
                await conn.execute("set local role anon")
                with_index = "\n".join(r[0] for r in await conn.fetch("explain " + query))
                rows = await conn.fetch(query)
                await conn.execute("reset role")
                await conn.execute("drop index public.profiles_created_at_username_idx")
                await conn.execute("set local role anon")
                without = "\n".join(r[0] for r in await conn.fetch("explain " + query))
            finally:
                await tr.rollback()
            return definition, with_index, rows, without
        finally:
            await conn.close()

    definition, with_index, rows, without = asyncio.run(go())
    assert definition == ("CREATE INDEX profiles_created_at_username_idx ON public.profiles"
                          " USING btree (created_at DESC, username)"), definition
    assert ("Index Scan using profiles_created_at_username_idx on profiles" in with_index
            or "Index Only Scan using profiles_created_at_username_idx on profiles" in with_index), with_index
    assert "Sort" not in with_index, with_index
    assert [r["username"] for r in rows] == [f"idx_{n}" for n in range(1, 101)]  # a day ahead: the newest
    assert "Sort" in without and "profiles_created_at_username_idx" not in without, without


def test_google_photo_ids_are_accepted_and_other_sources_still_refused(make_user):
    u = make_user()
    ok = u.api.post("/rest/v1/likes", json={"photo_id": "google:AF1QipN-picked-item"})
    assert ok.status_code == 201, ok.text
    for bad in ("flickr:abc", "google:", "GOOGLE:x"):
        r = u.api.post("/rest/v1/likes", json={"photo_id": bad})
        assert r.status_code == 400 and "likes_photo_id_format" in r.text, (bad, r.text)


def _batch(n, prefix, device="device-a", width=400):
    photos = [{"photo_id": f"unsplash:{prefix}{i}", "title": f"Photo {i}", "description": None, "author_name": "A",
               "author_url": None, "color": "#112233", "width": width, "height": 300, "urls": {"regular": "http://x/y.jpg"},
               "original_sha256": None, "original_note": None} for i in range(n)]
    likes = [{"photo_id": f"unsplash:{prefix}{i}", "liked_at": "2026-11-29T10:00:00.000Z", "deleted_at": None,
              "acted_at": "2026-11-29T10:00:00.000Z", "acted_by": device} for i in range(n)]
    return {"device": device, "photo_rows": photos, "like_rows": likes}


def test_push_likes_writes_photos_then_likes_and_answers_the_likes_as_kept(make_user, sql):
    u = make_user()
    r = u.api.post("/rest/v1/rpc/push_likes?select=photo_id,acted_by,deleted_at", json=_batch(3, "pl"))
    assert r.status_code == 200 and r.json() == [], "every like stood as sent: nothing to answer"
    assert len(u.api.get("/rest/v1/likes").json()) == 3
    rows = sql("select photo_id, title, written_by from public.photos where user_id = $1 order by photo_id", uuid.UUID(u.id))
    assert [(x["title"], x["written_by"]) for x in rows] == [("Photo 0", "device-a"), ("Photo 1", "device-a"), ("Photo 2", "device-a")]
    # An earlier change than the row's stands aside: the answer is the row as kept. So is a moment in the
    # future, clamped to the server's now.
    older = _batch(1, "pl", device="device-b")
    older["like_rows"][0].update(deleted_at="2026-11-29T09:00:00.000Z", acted_at="2026-11-29T09:00:00.000Z")
    kept = u.api.post("/rest/v1/rpc/push_likes?select=photo_id,acted_by,deleted_at", json=older).json()
    assert kept == [{"photo_id": "unsplash:pl0", "acted_by": "device-a", "deleted_at": None}]
    future = _batch(1, "pl")
    future["like_rows"][0].update(acted_at="2999-01-01T00:00:00.000Z")
    clamped = u.api.post("/rest/v1/rpc/push_likes?select=photo_id,acted_at", json=future).json()
    assert [x["photo_id"] for x in clamped] == ["unsplash:pl0"] and not clamped[0]["acted_at"].startswith("2999")
    # A write of a photo's row any other way names no writer, whoever wrote it before.
    assert u.api.post("/rest/v1/photos?on_conflict=user_id,photo_id", json=[{"photo_id": "unsplash:pl1", "title": "Elsewhere"}],
                      headers={"Prefer": "resolution=merge-duplicates"}).status_code in (200, 201)
    assert sql("select written_by from public.photos where user_id = $1 and photo_id = 'unsplash:pl1'", uuid.UUID(u.id))[0][0] == ""


def test_push_likes_is_one_transaction_under_each_callers_policies(make_user, anon, sql):
    a, b = make_user(), make_user()
    # One refused photo (a check constraint) refuses the whole batch: no photo and no like lands.
    bad = _batch(3, "tx")
    bad["photo_rows"][2]["width"] = 0
    r = a.api.post("/rest/v1/rpc/push_likes", json=bad)
    assert r.status_code == 400 and r.json()["code"] == "23514", r.text
    for table in ("photos", "likes"):
        assert sql(f"select count(*) from public.{table} where user_id = $1", uuid.UUID(a.id))[0][0] == 0
    # Each caller writes its own rows only: the same photo ids from b are b's, and a's stay a's.
    assert a.api.post("/rest/v1/rpc/push_likes", json=_batch(2, "own")).status_code == 200
    assert b.api.post("/rest/v1/rpc/push_likes", json=_batch(2, "own", device="device-b")).status_code == 200
    owners = sql("select user_id::text, written_by from public.photos where photo_id = 'unsplash:own0' order by written_by")
    assert [(x[0], x[1]) for x in owners] == [(a.id, "device-a"), (b.id, "device-b")]
    # Nobody signed in may call it.
    assert anon.post("/rest/v1/rpc/push_likes", json=_batch(1, "anon")).status_code in (401, 403)
    grants = sql("select has_function_privilege('anon', 'public.push_likes(text, jsonb, jsonb)', 'execute'),"
                 " has_function_privilege('authenticated', 'public.push_likes(text, jsonb, jsonb)', 'execute')")[0]
    assert (grants[0], grants[1]) == (False, True)
