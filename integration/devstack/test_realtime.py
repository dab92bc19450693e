"""Realtime against devstack with the official client (`realtime` on PyPI, the one supabase-py uses):
a subscriber gets the inserts, updates and deletes of its own rows as Postgres commits them, and
nothing of another user's — RLS decides, checked in Postgres as the subscriber."""
import asyncio
import uuid

import pytest

realtime = pytest.importorskip("realtime")
from realtime import AsyncRealtimeClient, RealtimeSubscribeStates  # noqa: E402

REP = {"Prefer": "return=representation"}


async def subscribe(env, token, table, filter_=None):
    """A connected client with one channel on `table`, joined with `token`; (client, queue of payloads)."""
    client = AsyncRealtimeClient(env["SPLASHD_BACKEND_URL"] + "/realtime/v1", token=env["SPLASHD_ANON_KEY"],
                                 params={"apikey": env["SPLASHD_ANON_KEY"]}, auto_reconnect=False)
    await client.connect()
    await client.set_auth(token)
    received = asyncio.Queue()
    channel = client.channel("test-" + uuid.uuid4().hex[:8])
    channel.on_postgres_changes("*", table=table, schema="public", filter=filter_, callback=received.put_nowait)
    joined = asyncio.get_running_loop().create_future()

    def state(status, error):
        if joined.done():
            return
        if status == RealtimeSubscribeStates.SUBSCRIBED:
            joined.set_result(None)
        elif error is not None or status != RealtimeSubscribeStates.SUBSCRIBED:
            joined.set_exception(RuntimeError(f"join ended {status}: {error}"))

    await channel.subscribe(state)
    await asyncio.wait_for(joined, 10)
    return client, received


async def rest(user, method, path, **kw):
    response = await asyncio.to_thread(user.api.request, method, path, **kw)
    assert response.status_code < 300, response.text
    return response.json() if response.text else None


async def next_change(queue, timeout=5):
    return (await asyncio.wait_for(queue.get(), timeout))["data"]


def test_own_rows_arrive_as_they_change_and_nothing_of_anyone_elses(env, make_user):
    ana, bea = make_user(), make_user()

    async def scenario():
        client, received = await subscribe(env, ana.session["access_token"], "likes", f"user_id=eq.{ana.id}")
        # Bea, joined with her own token but asking for Ana's rows: RLS hides every one of them.
        nosy, nosy_received = await subscribe(env, bea.session["access_token"], "likes", f"user_id=eq.{ana.id}")
        try:
            row = (await rest(ana, "POST", "/rest/v1/likes", json={"photo_id": "unsplash:rt1"}, headers=REP))[0]
            await rest(bea, "POST", "/rest/v1/likes", json={"photo_id": "unsplash:other"})
            inserted = await next_change(received)
            assert inserted["type"] == "INSERT" and inserted["table"] == "likes"
            assert inserted["record"]["id"] == row["id"] and inserted["record"]["user_id"] == ana.id
            assert inserted["commit_timestamp"].endswith("Z")

            await rest(ana, "PATCH", f"/rest/v1/likes?id=eq.{row['id']}", json={"deleted_at": "2030-01-01T00:00:00Z"})
            updated = await next_change(received)
            assert updated["type"] == "UPDATE" and updated["record"]["deleted_at"].startswith("2030-01-01")
            assert updated["old_record"]["id"] == row["id"]

            await rest(ana, "DELETE", f"/rest/v1/likes?id=eq.{row['id']}")
            deleted = await next_change(received)
            assert deleted["type"] == "DELETE" and deleted["old_record"]["id"] == row["id"]

            await asyncio.sleep(0.5)
            assert received.empty(), "Bea's like reached Ana"
            assert nosy_received.empty(), "Ana's rows reached Bea"
        finally:
            await client.close()
            await nosy.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_a_device_asking_for_others_changes_gets_none_of_its_own_and_nothing_of_anyone_elses(env, make_user):
    """splashd's channel asks for the likes acted on by other devices (`acted_by=neq.<device>`): its own
    pushes do not come back, another device's like of the same account does, and another user's rows
    stay hidden by RLS though the filter no longer names the user."""
    ana, bea = make_user(), make_user()

    async def scenario():
        client, received = await subscribe(env, ana.session["access_token"], "likes", "acted_by=neq.desk")
        try:
            call = {"device": "desk", "photo_rows": [], "like_rows": [
                {"photo_id": "unsplash:own", "liked_at": "2026-11-30T00:00:00Z", "deleted_at": None,
                 "acted_at": "2026-11-30T00:00:00Z", "acted_by": "desk"}]}
            await rest(ana, "POST", "/rest/v1/rpc/push_likes", json=call)
            laptop = dict(call, device="laptop", like_rows=[dict(call["like_rows"][0], photo_id="unsplash:laptop", acted_by="laptop")])
            await rest(ana, "POST", "/rest/v1/rpc/push_likes", json=laptop)
            await rest(bea, "POST", "/rest/v1/likes", json={"photo_id": "unsplash:bea", "acted_by": "laptop"})
            change = await next_change(received)
            assert change["record"]["photo_id"] == "unsplash:laptop" and change["record"]["acted_by"] == "laptop"
            await asyncio.sleep(0.5)
            assert received.empty(), "the device's own push, or Bea's like, reached it"
        finally:
            await client.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_a_bad_token_is_refused_and_joins_can_be_refused(env, make_user, control):
    ana = make_user()

    async def scenario():
        with pytest.raises(RuntimeError):
            await subscribe(env, "not-a-jwt", "likes")
        control.post("/_devstack/knobs", json={"realtime_refuse_joins": 1})
        with pytest.raises(RuntimeError):
            await subscribe(env, ana.session["access_token"], "likes")

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_a_dropped_socket_is_gone_from_the_server(env, make_user, control):
    ana = make_user()

    async def scenario():
        client, _ = await subscribe(env, ana.session["access_token"], "likes", f"user_id=eq.{ana.id}")
        assert (await asyncio.to_thread(control.get, "/_devstack/realtime")).json()["connections"] >= 1
        dropped = (await asyncio.to_thread(control.post, "/_devstack/realtime/drop")).json()
        assert dropped["dropped"] >= 1
        for _ in range(50):
            if (await asyncio.to_thread(control.get, "/_devstack/realtime")).json()["connections"] == 0:
                break
            await asyncio.sleep(0.1)
        assert (await asyncio.to_thread(control.get, "/_devstack/realtime")).json()["connections"] == 0
        await client.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))
