"""splashd and the desktop's signals (docs/desktop.md): a real splashd on private buses, with
stand-ins for NetworkManager, UPower, power-profiles-daemon and logind; devstack for what needs an
account (a like reaching the server, the live channel, library downloads)."""
import os
import subprocess
import time

import pytest

from splashtest.daemon import Daemon
from splashtest.devstack import Devstack

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SPLASHD_BIN_DIR", os.path.join(ROOT, ".build", "debug"))


def wait_for(what, predicate, timeout):
    """Polls `predicate` until it returns something true; that value, or a failure naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.02)


def desktop(daemon):
    return daemon.call("daemon.status")["desktop"]


def status_lines(daemon):
    return [line[len("STATUS="):] for _, message in list(daemon.messages) for line in message.split("\n")
            if line.startswith("STATUS=")]


@pytest.fixture
def start_daemon(buses, tmp_path):
    """Starts splashd on the test's buses (`start_daemon(env=..., config=...)`); stopped after the test.
    `elsewhere`: another device of the account, on no bus (this machine's sleep is not its own)."""
    started = []

    def start(env=None, config=None, name="device", elsewhere=False):
        buses_env = {"DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={tmp_path}/no-bus"} if elsewhere else buses.env
        daemon = Daemon(str(tmp_path / f"{name}{len(started)}"), os.path.join(BIN, "splashd"),
                        env=dict(buses_env, **(env or {})), config=config)
        started.append(daemon)
        return daemon.start()

    yield start
    for daemon in started:
        daemon.stop()


def test_status_says_what_the_desktop_says_and_what_waits_for_it(standins, start_daemon):
    daemon = start_daemon()
    wait_for("the desktop heard", lambda: desktop(daemon).get("sleep_inhibitor"), 10)
    assert desktop(daemon) == {"bus": True, "metered": False, "on_battery": False, "power_saver": False,
                               "sleep_inhibitor": True}
    events = daemon.rpc(keep_events=True)
    events.call("events.subscribe", {"types": ["desktop.changed"]})

    standins.set_metered(3)  # guess-yes counts as yes
    event = events.next_event(5)
    assert event and event[1]["type"] == "desktop.changed", event
    assert event[1]["data"]["metered"] is True and event[1]["data"]["transfers_held"] == "metered"
    # STATUS= goes to the notify socket and the event to the RPC socket: nothing orders the two, and the
    # bus hands a change to its subscribers in no set order, so the line is waited for, not assumed.
    wait_for("STATUS= says downloads wait",
             lambda: any("downloads wait (metered network)" in line for line in status_lines(daemon)), 5)

    standins.set_on_battery(True)
    standins.set_profile("power-saver")
    wait_for("on battery holds background work",
             lambda: desktop(daemon).get("background_held") == "on_battery" and desktop(daemon)["power_saver"], 5)
    standins.set_on_battery(False)
    wait_for("power saver holds it on mains", lambda: desktop(daemon).get("background_held") == "power_saver", 5)

    text = subprocess.run([os.path.join(BIN, "splashctl"), "--socket", daemon.socket_path, "status"],
                          capture_output=True, text=True, timeout=30, env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}).stdout
    line = next(line for line in text.splitlines() if line.strip().startswith("this machine"))
    assert "metered network — downloads and uploads wait" in line and "on mains" in line \
        and "power saver on — background work waits" in line, text

    standins.set_metered(2)
    standins.set_profile("balanced")
    wait_for("nothing held", lambda: "transfers_held" not in desktop(daemon) and "background_held" not in desktop(daemon), 5)


def test_a_flapping_flag_is_heard_once_it_holds_still(standins, start_daemon):
    daemon = start_daemon()
    wait_for("the desktop heard", lambda: desktop(daemon).get("metered") is False, 10)
    events = daemon.rpc(keep_events=True)
    events.call("events.subscribe", {"types": ["desktop.changed"]})
    # Twenty-one changes at twenty a second, the last one to metered: one change of state.
    assert standins.flap_metered(21, 0.05) == 1
    wait_for("metered once still", lambda: desktop(daemon).get("metered") is True, 5)
    seen = []
    while (event := events.next_event(1.5)) is not None:
        seen.append(event[1]["data"]["metered"])
    # Undebounced, each change would be an event; a pause of the stand-in longer than the settle time
    # (half a second) could let one more through, never twenty.
    assert 1 <= len(seen) <= 3 and seen[-1] is True, seen


def test_a_property_of_the_wrong_type_is_ignored(standins, start_daemon):
    daemon = start_daemon()
    standins.set_metered(1)
    wait_for("metered", lambda: desktop(daemon).get("metered") is True, 10)
    standins.set_metered_wrong_type()
    wait_for("the wrong type seen and said", lambda: "of another type" in daemon.log_text(), 5)
    assert daemon.running() and desktop(daemon)["metered"] is True, "the last good reading stands"
    standins.set_metered(2)
    wait_for("a right one heard again", lambda: desktop(daemon).get("metered") is False, 5)


def test_services_and_the_bus_that_go_and_come_back(buses, standins, start_daemon):
    daemon = start_daemon()
    wait_for("the desktop heard", lambda: desktop(daemon).get("metered") is False, 10)
    standins.set_metered(1)
    standins.drop("NetworkManager")
    wait_for("NetworkManager gone: not known", lambda: "metered" not in desktop(daemon), 5)
    assert "transfers_held" not in desktop(daemon), "unknown is not metered"
    standins.restore("NetworkManager")
    wait_for("NetworkManager back", lambda: desktop(daemon).get("metered") is True, 5)

    buses.restart_system()
    wait_for("the bus gone", lambda: desktop(daemon) == {"bus": False, "sleep_inhibitor": False}, 5)
    standins.reconnect_system()
    # The first try again comes a second after the loss.
    back = wait_for("the bus and every service back",
                    lambda: (lambda d: d if d.get("metered") is True and d["sleep_inhibitor"] else None)(desktop(daemon)), 10)
    assert back["bus"] is True
    assert daemon.running()
    assert len([i for i in standins.inhibitors() if i["released_at"] is None]) == 1, "one inhibitor, taken again"


def test_no_bus_at_all_is_no_harm(tmp_path, start_daemon):
    daemon = start_daemon(env={"DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={tmp_path}/no-such-bus"})
    assert desktop(daemon) == {"bus": False, "sleep_inhibitor": False}
    assert daemon.call("photos.list", {"limit": 1})["total"] == 0
    time.sleep(2.5)  # two more tries, said once
    assert daemon.log_text().count("no system bus") == 1, daemon.log_text()


def test_an_inhibitor_is_taken_when_logind_comes(standins, start_daemon):
    standins.drop("login1")
    daemon = start_daemon()
    wait_for("the desktop heard", lambda: desktop(daemon).get("metered") is False, 10)
    assert desktop(daemon)["sleep_inhibitor"] is False
    standins.restore("login1")
    wait_for("the inhibitor taken", lambda: desktop(daemon)["sleep_inhibitor"], 5)
    taken = standins.inhibitors()
    assert [(i["what"], i["mode"], i["released_at"]) for i in taken] == [("sleep", "delay", None)], taken


# --- with an account: devstack


@pytest.fixture(scope="module")
def devstack():
    with Devstack(photos=60, prefix="splashd-devstack-desktop-") as stack:
        yield stack


def library_files(daemon):
    """Files whole in the library (a download in flight is a .download, with a .part beside it)."""
    return [f for f in daemon.library_files() if not f.endswith((".part", ".download"))]


def search(daemon, count):
    """`count` photos put into the daemon's store by searches of devstack's Unsplash; their ids."""
    ids = []
    for word in ("lake", "forest", "city", "night", "ocean", "mountain"):
        for photo in daemon.call("photos.search", {"query": word, "per_page": 30})["photos"]:
            if photo["id"] not in ids:
                ids.append(photo["id"])
        if len(ids) >= count:
            return ids[:count]
    raise AssertionError(f"only {len(ids)} photos found")


def test_sleep_closes_the_live_channel_and_a_wake_catches_up(devstack, standins, start_daemon):
    laptop = start_daemon(env=devstack.daemon_env(), name="laptop")
    email = laptop.signup()
    phone = start_daemon(env=devstack.daemon_env(), name="phone", elsewhere=True)
    phone.login(email)
    photo = search(phone, 1)[0]
    wait_for("the live channel up", lambda: laptop.call("daemon.status")["live"]["state"] == "live", 30)
    wait_for("the inhibitor held", lambda: desktop(laptop)["sleep_inhibitor"], 10)

    standins.prepare_for_sleep(True)
    released = standins.wait_released(5)
    assert released <= 1.0, f"the inhibitor was let go {released:.3f} s after PrepareForSleep(true)"
    assert laptop.call("daemon.status")["live"]["state"] != "live", "the channel closed before the sleep"
    assert "checkpoint" not in laptop.log_text(), "the store checkpointed without complaint"

    phone.call("photos.like", {"id": photo})  # made elsewhere while this machine sleeps
    phone.wait_drained(phone.rpc())
    woke = time.monotonic()
    standins.prepare_for_sleep(False)
    wait_for("rejoined and caught up",
             lambda: laptop.call("daemon.status")["live"]["state"] == "live" and photo in laptop.liked(), 2)
    print(f"live and caught up {time.monotonic() - woke:.2f} s after the wake")
    wait_for("the inhibitor taken again", lambda: desktop(laptop)["sleep_inhibitor"], 5)


def test_a_metered_network_holds_downloads_but_not_a_like(devstack, standins, start_daemon):
    # One download at a time, each held half a second by the CDN: the library's downloads take a while.
    devstack.faults([{"path": "/cdn/*", "delay_ms": 500}])
    try:
        daemon = start_daemon(env=devstack.daemon_env(), config="[images]\nconcurrency = 1\n")
        daemon.signup()
        photos = search(daemon, 16)
        events = daemon.rpc(keep_events=True)
        events.call("events.subscribe", {"types": ["images.changed"]})
        for photo in photos[:12]:
            daemon.call("photos.like", {"id": photo})
        wait_for("downloads running", lambda: (lambda e: e and e[1]["data"]["change"] == "started")(events.next_event(5)), 10)

        standins.set_metered(1)
        metered_at = time.monotonic()
        daemon.call("photos.like", {"id": photos[12]})
        started_late = []
        while time.monotonic() < metered_at + 4:
            event = events.next_event(0.2)
            if event and event[1]["data"]["change"] == "started" and time.monotonic() > metered_at + 1.0:
                started_late.append(event[1]["data"]["photo"])
        assert started_late == [], f"downloads started after the network became metered: {started_late}"
        likes, _ = devstack.server_likes(daemon.email)
        assert likes.get(photos[12]) is True, "the like made on the metered network reached the server"
        assert desktop(daemon)["transfers_held"] == "metered"
        missing = 13 - len(library_files(daemon))
        assert missing > 0, "downloads were held with files still to come"

        standins.set_metered(2)
        wait_for("every file once unmetered", lambda: len(library_files(daemon)) == 13, 60)
    finally:
        devstack.clear_faults()


def test_pause_on_metered_queues_a_like_as_offline(devstack, standins, start_daemon):
    daemon = start_daemon(env=devstack.daemon_env(), config='[network]\non_metered = "pause"\n')
    daemon.signup()
    photo = search(daemon, 1)[0]
    standins.set_metered(1)
    wait_for("sync held", lambda: desktop(daemon).get("sync_held") == "metered", 5)
    daemon.call("photos.like", {"id": photo})
    time.sleep(2)
    assert daemon.call("daemon.status")["outbox"]["pending"] == 1, "the like waits as it would offline"
    assert photo not in devstack.server_likes(daemon.email)[0]
    standins.set_metered(2)
    wait_for("the like sent once unmetered", lambda: devstack.server_likes(daemon.email)[0].get(photo) is True, 10)


def splashctl(daemon, *words):
    return subprocess.run([os.path.join(BIN, "splashctl"), "--socket", daemon.socket_path, *words], capture_output=True,
                          text=True, timeout=30, env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"})


def test_a_pause_survives_kill_9_and_queues_a_like_as_offline(devstack, start_daemon):
    daemon = start_daemon(env=devstack.daemon_env())
    daemon.signup()
    photo = search(daemon, 1)[0]
    for bad in ("-5m", "forever", "0m", "45d"):
        refused = splashctl(daemon, "pause", "--for", bad)
        assert refused.returncode != 0 and f"'{bad}'" in refused.stderr, (bad, refused.stderr)
    assert daemon.call("daemon.status")["pause"] == {"paused": False, "downloads_only": False}, "a refused pause pauses nothing"

    answer = splashctl(daemon, "pause", "--for", "2h")
    assert answer.returncode == 0 and "sync paused until" in answer.stdout, answer
    paused = daemon.call("daemon.status")["pause"]
    assert paused["paused"] and paused["until"]
    wait_for("STATUS= says paused", lambda: any(" paused until " in line for line in status_lines(daemon)), 5)
    daemon.call("photos.like", {"id": photo})

    daemon.kill9()
    daemon.start()
    assert daemon.call("daemon.status")["pause"] == paused, "the pause as it was answered, after kill -9"
    assert "pause" in splashctl(daemon, "status").stdout
    time.sleep(1.5)  # the push would have sent it by now
    assert daemon.call("daemon.status")["outbox"]["pending"] == 1 and photo not in devstack.server_likes(daemon.email)[0]

    assert "sync running" in splashctl(daemon, "resume").stdout
    wait_for("the like sent once resumed", lambda: devstack.server_likes(daemon.email)[0].get(photo) is True, 10)


def test_a_session_the_server_ends_raises_one_notification_and_its_click_opens_the_gallery(
        buses, devstack, standins, start_daemon, tmp_path):
    # xdg-open as the desktop's: it writes down the address it was asked to open.
    opened = tmp_path / "opened"
    stand_in = tmp_path / "bin" / "xdg-open"
    stand_in.parent.mkdir()
    stand_in.write_text(f"#!/bin/sh\necho \"$1\" >> {opened}\n")
    stand_in.chmod(0o755)
    daemon = start_daemon(env=dict(devstack.daemon_env(), PATH=f"{stand_in.parent}:/usr/bin:/bin"))
    email = daemon.signup()
    daemon.call("auth.logout")
    daemon.login(email)
    time.sleep(1)
    assert standins.notifications() == [], "a sign-out the person asked for is no news"

    devstack.knobs({"access_token_lifetime": 4})
    try:
        daemon.login(email)  # a short-lived session: its refresh comes in ~2 s, and the server has ended it
        devstack.revoke(email)
        wait_for("signed out by the server", lambda: daemon.call("daemon.status")["account"]["state"] == "signed_out", 60)
    finally:
        devstack.knobs({"access_token_lifetime": 3600})
    shown = wait_for("a notification", standins.notifications, 5)
    time.sleep(2)  # anything more would have come by now
    shown = standins.notifications()
    assert len(shown) == 1, shown
    note = shown[0]
    assert note["app_name"] == "splashd" and note["summary"] == "splashd: signed out", note
    assert "sign in again" in note["body"] and note["actions"][:2] == ["default", "Sign in"], note

    standins.invoke_action(note["id"], "default")
    address = wait_for("the gallery opened", lambda: opened.exists() and opened.read_text().strip(), 10)
    assert address.startswith("http://127.0.0.1:") and "?token=" in address and address.endswith("#/account"), address


def test_a_notification_server_that_never_answers_holds_nothing_up(devstack, standins, start_daemon):
    standins.notifications_silent(True)
    daemon = start_daemon(env=devstack.daemon_env())
    email = daemon.signup()
    devstack.knobs({"access_token_lifetime": 4})
    try:
        daemon.login(email)
        devstack.revoke(email)
        wait_for("signed out by the server", lambda: daemon.call("daemon.status")["account"]["state"] == "signed_out", 60)
    finally:
        devstack.knobs({"access_token_lifetime": 3600})
    wait_for("the Notify asked", standins.notifications, 5)
    daemon.login(email)  # the daemon answers meanwhile
    wait_for("the unanswered call said", lambda: "did not answer" in daemon.log_text(), 10)
    assert daemon.call("daemon.status")["account"]["state"] == "signed_in"


def test_an_inhibitor_logind_refuses_is_said_and_a_sleep_still_goes_well(standins, start_daemon):
    standins.inhibit_refused(True)
    daemon = start_daemon()
    wait_for("the refusal said", lambda: "cannot delay a suspend" in daemon.log_text(), 10)
    assert desktop(daemon)["sleep_inhibitor"] is False
    standins.prepare_for_sleep(True)
    wait_for("the sleep heard", lambda: "about to sleep" in daemon.log_text(), 5)
    standins.inhibit_refused(False)
    standins.prepare_for_sleep(False)
    # After the wake it asks again, and gets it.
    wait_for("the inhibitor taken at the wake", lambda: desktop(daemon)["sleep_inhibitor"], 10)
    assert daemon.running()
