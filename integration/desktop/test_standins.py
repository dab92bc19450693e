"""The harness itself: what the stand-ins say and do, seen from a plain dbus-fast client (and
busctl), so that a failing desktop signals test is about splashd, not about its stand-ins."""
import asyncio
import os
import stat
import subprocess
import threading

import pytest
from dbus_fast import DBusError, Message, MessageType, Variant
from dbus_fast.aio import MessageBus

from buses import DesktopBuses
from splashtest.errors import Failure
from splashtest.waiting import wait_until
from standins import StandIns

PROPERTIES = "org.freedesktop.DBus.Properties"
NM = ("org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager", "org.freedesktop.NetworkManager")
UPOWER = ("org.freedesktop.UPower", "/org/freedesktop/UPower", "org.freedesktop.UPower")
PROFILES = ("org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles",
            "org.freedesktop.UPower.PowerProfiles")
LOGIN = ("org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager")
NOTIFICATIONS = ("org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications")
DBUS = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
# How long a test waits for something that takes milliseconds.
PATIENCE = 5.0


def run(scenario):
    """Runs an async test body on a loop of its own, bounded."""
    return asyncio.run(asyncio.wait_for(scenario, 60))


class Client:
    """A plain D-Bus client on one bus, as splashd is one."""

    def __init__(self, bus):
        self.bus = bus

    @classmethod
    async def connect(cls, address, negotiate_unix_fd=False):
        return cls(await MessageBus(bus_address=address, negotiate_unix_fd=negotiate_unix_fd).connect())

    async def call(self, service, member, signature="", body=(), interface=None):
        """Calls `member` on `service` (name, path, interface): the reply's body, or DBusError."""
        name, path, default_interface = service
        reply = await self.bus.call(Message(destination=name, path=path, interface=interface or default_interface,
                                            member=member, signature=signature, body=list(body)))
        if reply.message_type is MessageType.ERROR:
            raise DBusError(reply.error_name, reply.body[0] if reply.body else "")
        return reply

    async def get(self, service, prop):
        return (await self.call(service, "Get", "ss", [service[2], prop], interface=PROPERTIES)).body[0]

    async def get_all(self, service):
        return (await self.call(service, "GetAll", "s", [service[2]], interface=PROPERTIES)).body[0]

    async def owner(self, name):
        return (await self.call(DBUS, "GetNameOwner", "s", [name])).body[0]

    async def watch(self, interface, member, **match):
        """A queue of the signals `interface.member` (further match keys, e.g. path, arg0),
        subscribed on the bus before this returns."""
        rule = ",".join([f"type='signal',interface='{interface}',member='{member}'"]
                        + [f"{key}='{value}'" for key, value in match.items()])
        await self.call(DBUS, "AddMatch", "s", [rule])
        queue = asyncio.Queue()

        def handler(message):
            if (message.message_type is MessageType.SIGNAL and message.interface == interface
                    and message.member == member and match.get("path", message.path) == message.path
                    and match.get("arg0", message.body[0] if message.body else None)
                    == (message.body[0] if message.body else None)):
                queue.put_nowait(message)

        self.bus.add_message_handler(handler)
        return queue

    async def close(self):
        """Disconnects and waits until the connection's socket is closed."""
        self.bus.disconnect()
        await self.bus.wait_for_disconnect()


async def dbus_error(awaitable):
    """The name of the D-Bus error `awaitable` fails with (AssertionError if it does not)."""
    with pytest.raises(DBusError) as error:
        await awaitable
    return error.value.type


async def next_signal(queue):
    return await asyncio.wait_for(queue.get(), PATIENCE)


async def inhibit(client, what="sleep", mode="delay"):
    """logind's Inhibit, as splashd calls it: the descriptor that holds the inhibitor."""
    reply = await client.call(LOGIN, "Inhibit", "ssss", [what, "splashd", "a test holds it", mode])
    assert reply.signature == "h"
    return reply.unix_fds[reply.body[0]]


def notify(client, summary, replaces_id=0, hints=None):
    return client.call(NOTIFICATIONS, "Notify", "susssasa{sv}i",
                       ["splashd", replaces_id, "", summary, "a body", ["open", "Open"], hints or {}, -1])


def busctl(address, *arguments):
    return subprocess.run(["busctl", f"--address={address}", "--no-pager", *map(str, arguments)],
                          check=True, capture_output=True, text=True, timeout=30).stdout.strip()


def dbus_daemon_children():
    """Pids of this process's dbus-daemon children, from /proc."""
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                line = f.read()
        except OSError:
            continue  # gone meanwhile
        comm = line[line.index("(") + 1:line.rindex(")")]
        ppid = int(line[line.rindex(")") + 2:].split()[1])
        if comm == "dbus-daemon" and ppid == os.getpid():
            children.append(int(entry))
    return sorted(children)


def test_properties_have_their_initial_values_and_changes_are_signalled(buses, standins):
    async def scenario():
        client = await Client.connect(buses.system_address)
        assert await client.get(NM, "Metered") == Variant("u", 2)
        assert await client.get(UPOWER, "OnBattery") == Variant("b", False)
        assert await client.get(PROFILES, "ActiveProfile") == Variant("s", "balanced")
        assert await client.get_all(NM) == {"Metered": Variant("u", 2)}

        changes = await client.watch(PROPERTIES, "PropertiesChanged")
        standins.set_metered(1)
        standins.set_on_battery(True)
        standins.set_profile("power-saver")
        seen = [await next_signal(changes) for _ in range(3)]
        assert [(message.path, message.body) for message in seen] == [
            (NM[1], [NM[2], {"Metered": Variant("u", 1)}, []]),
            (UPOWER[1], [UPOWER[2], {"OnBattery": Variant("b", True)}, []]),
            (PROFILES[1], [PROFILES[2], {"ActiveProfile": Variant("s", "power-saver")}, []]),
        ]
        # Each from its own service's connection, as from the real, separate daemons.
        assert [message.sender for message in seen] == [await client.owner(NM[0]), await client.owner(UPOWER[0]),
                                                        await client.owner(PROFILES[0])]
        assert len({message.sender for message in seen}) == 3

        assert await client.get(NM, "Metered") == Variant("u", 1)
        assert await client.get(UPOWER, "OnBattery") == Variant("b", True)
        assert await client.get(PROFILES, "ActiveProfile") == Variant("s", "power-saver")
        await client.close()

    run(scenario())
    # A client that is not dbus-fast (sd-bus) reads the same.
    assert busctl(buses.system_address, "get-property", *NM, "Metered") == "u 1"


def test_inhibit_returns_a_descriptor_and_closing_it_releases_the_inhibitor(buses, standins):
    async def scenario():
        client = await Client.connect(buses.system_address, negotiate_unix_fd=True)
        descriptor = await inhibit(client)
        assert stat.S_ISFIFO(os.fstat(descriptor).st_mode)
        [held] = standins.inhibitors()
        assert {key: held[key] for key in ("what", "who", "why", "mode", "sender", "released_at")} == {
            "what": "sleep", "who": "splashd", "why": "a test holds it", "mode": "delay",
            "sender": client.bus.unique_name, "released_at": None}
        # A round trip through the stand-in's connection: an end-of-file already pending on the
        # pipe would have been read by now.
        await client.call(LOGIN, "Ping", interface="org.freedesktop.DBus.Peer")
        assert standins.inhibitors()[0]["released_at"] is None

        os.close(descriptor)
        wait_until("the inhibitor's release", lambda: standins.inhibitors()[0]["released_at"], timeout=PATIENCE)
        [released] = standins.inhibitors()
        assert released["taken_at"] <= released["released_at"]
        await client.close()

    run(scenario())
    # A process that exits releases its inhibitor with it, as splashd's would.
    assert busctl(buses.system_address, "call", *LOGIN, "Inhibit", "ssss", "shutdown", "busctl", "exits", "block") \
        .startswith("h ")
    wait_until("busctl's inhibitor's release", lambda: standins.inhibitors()[1]["released_at"], timeout=PATIENCE)
    assert standins.inhibitors()[1]["who"] == "busctl"


def test_prepare_for_sleep_is_signalled_and_the_release_timed(buses, standins):
    async def scenario():
        client = await Client.connect(buses.system_address, negotiate_unix_fd=True)
        descriptor = await inhibit(client)
        sleeps = await client.watch(LOGIN[2], "PrepareForSleep", path=LOGIN[1])

        standins.prepare_for_sleep(True)
        signal = await next_signal(sleeps)
        assert signal.body == [True]
        assert signal.sender == await client.owner(LOGIN[0])
        os.close(descriptor)
        held_for = standins.wait_released(PATIENCE)
        assert 0 <= held_for < PATIENCE
        [record] = standins.inhibitors()
        assert record["released_at"] is not None

        standins.prepare_for_sleep(False)
        assert (await next_signal(sleeps)).body == [False]
        await client.close()

    run(scenario())


def test_wait_released_fails_while_the_inhibitor_is_held(buses, standins):
    with pytest.raises(Failure, match="no PrepareForSleep"):
        standins.wait_released(PATIENCE)
    standins.prepare_for_sleep(True)
    with pytest.raises(Failure, match="no inhibitor was held"):
        standins.wait_released(PATIENCE)

    async def scenario():
        client = await Client.connect(buses.system_address, negotiate_unix_fd=True)
        descriptor = await inhibit(client)
        standins.prepare_for_sleep(True)
        with pytest.raises(Failure, match="still held"):
            standins.wait_released(0.3)
        os.close(descriptor)
        assert standins.wait_released(PATIENCE) >= 0
        await client.close()

    run(scenario())


def test_notify_is_recorded_and_numbered_and_the_server_signals(buses, standins):
    async def scenario():
        client = await Client.connect(buses.session_address)
        assert (await notify(client, "first", hints={"urgency": Variant("y", 1)})).body == [1]
        assert (await notify(client, "second")).body == [2]
        assert (await notify(client, "first again", replaces_id=1)).body == [1]
        assert (await client.call(NOTIFICATIONS, "GetCapabilities")).body == [["actions", "body"]]
        information = await client.call(NOTIFICATIONS, "GetServerInformation")
        assert information.signature == "ssss" and len(information.body) == 4

        calls = standins.notifications()
        assert [(call["id"], call["summary"], call["replaces_id"]) for call in calls] == [
            (1, "first", 0), (2, "second", 0), (1, "first again", 1)]
        assert calls[0]["hints"] == {"urgency": 1}
        assert calls[0]["actions"] == ["open", "Open"] and calls[0]["expire_timeout"] == -1
        assert {call["sender"] for call in calls} == {client.bus.unique_name}
        assert calls[0]["at"] <= calls[1]["at"] <= calls[2]["at"]

        actions = await client.watch(NOTIFICATIONS[2], "ActionInvoked")
        closings = await client.watch(NOTIFICATIONS[2], "NotificationClosed")
        standins.invoke_action(2, "open")
        assert (await next_signal(actions)).body == [2, "open"]
        await client.call(NOTIFICATIONS, "CloseNotification", "u", [2])
        assert (await next_signal(closings)).body == [2, 3]
        assert [call["closed_at"] is not None for call in standins.notifications()] == [False, True, False]
        await client.close()

    run(scenario())


def test_a_silent_notification_server_never_answers(buses, standins):
    async def scenario():
        client = await Client.connect(buses.session_address)
        standins.notifications_silent(True)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(notify(client, "unanswered"), 0.5)
        [call] = standins.notifications()
        assert call["summary"] == "unanswered" and call["id"] is None

        standins.notifications_silent(False)
        assert (await notify(client, "answered")).body == [1]
        await client.close()

    run(scenario())


def test_a_dropped_name_vanishes_and_returns_on_restore(buses, standins):
    async def scenario():
        client = await Client.connect(buses.system_address)
        owner = await client.owner(NM[0])
        owners = await client.watch(*DBUS[2:], "NameOwnerChanged", arg0=NM[0])

        standins.drop("NetworkManager")
        assert (await next_signal(owners)).body == [NM[0], owner, ""]
        assert await dbus_error(client.get(NM, "Metered")) == "org.freedesktop.DBus.Error.ServiceUnknown"
        assert await client.owner(UPOWER[0])  # the others stay

        standins.restore("NetworkManager")
        assert (await next_signal(owners)).body == [NM[0], "", owner]
        assert await client.get(NM, "Metered") == Variant("u", 2)
        await client.close()

        session = await Client.connect(buses.session_address)
        standins.drop(NOTIFICATIONS[0])
        assert await dbus_error(notify(session, "nobody there")) == "org.freedesktop.DBus.Error.ServiceUnknown"
        standins.restore(NOTIFICATIONS[0])
        assert (await notify(session, "back")).body == [1]
        await session.close()

    run(scenario())
    with pytest.raises(ValueError):
        standins.drop("ModemManager")


def test_metered_of_the_wrong_type(buses, standins):
    async def scenario():
        client = await Client.connect(buses.system_address)
        changes = await client.watch(PROPERTIES, "PropertiesChanged", path=NM[1])
        standins.set_metered_wrong_type()
        assert (await next_signal(changes)).body == [NM[2], {"Metered": Variant("s", "yes")}, []]
        assert await client.get(NM, "Metered") == Variant("s", "yes")
        assert await client.get_all(NM) == {"Metered": Variant("s", "yes")}

        standins.set_metered(1)
        assert (await next_signal(changes)).body == [NM[2], {"Metered": Variant("u", 1)}, []]
        assert await client.get(NM, "Metered") == Variant("u", 1)
        await client.close()

    run(scenario())


def test_flap_metered_toggles_with_a_signal_each(buses, standins):
    async def scenario():
        client = await Client.connect(buses.system_address)
        changes = await client.watch(PROPERTIES, "PropertiesChanged", path=NM[1])
        assert standins.flap_metered(5, 0.01) == 1
        values = [(await next_signal(changes)).body[1]["Metered"].value for _ in range(5)]
        assert values == [1, 2, 1, 2, 1]
        assert changes.empty()
        assert await client.get(NM, "Metered") == Variant("u", 1)
        await client.close()

    run(scenario())


def test_the_system_bus_restarts_and_the_services_come_back(buses, standins):
    async def scenario():
        standins.set_metered(1)
        standins.drop("UPower")
        before = await Client.connect(buses.system_address, negotiate_unix_fd=True)
        descriptor = await inhibit(before)
        session = await Client.connect(buses.session_address)
        pids = buses.pids

        buses.restart_system()
        assert buses.pids["system"] != pids["system"] and buses.pids["session"] == pids["session"]
        with pytest.raises((EOFError, ConnectionError)):  # the bus's end went away under it
            await asyncio.wait_for(before.bus.wait_for_disconnect(), PATIENCE)
        assert not before.bus.connected
        after = await Client.connect(buses.system_address)
        assert await dbus_error(after.owner(NM[0])) == "org.freedesktop.DBus.Error.NameHasNoOwner"

        standins.reconnect_system()
        assert await after.get(NM, "Metered") == Variant("u", 1)
        assert await after.get(PROFILES, "ActiveProfile") == Variant("s", "balanced")
        # Dropped before the restart, dropped still.
        assert await dbus_error(after.owner(UPOWER[0])) == "org.freedesktop.DBus.Error.NameHasNoOwner"
        changes = await after.watch(PROPERTIES, "PropertiesChanged", path=UPOWER[1])
        standins.restore("UPower")
        standins.set_on_battery(True)
        signal = await next_signal(changes)
        assert signal.body == [UPOWER[2], {"OnBattery": Variant("b", True)}, []]
        assert signal.sender == await after.owner(UPOWER[0])

        # An inhibitor taken before the restart is the stand-in's still, until its holder lets go.
        assert standins.inhibitors()[0]["released_at"] is None
        os.close(descriptor)
        wait_until("the old inhibitor's release", lambda: standins.inhibitors()[0]["released_at"], timeout=PATIENCE)
        assert (await notify(session, "the session bus stayed")).body == [1]
        await after.close()
        await session.close()

    run(scenario())


def test_stop_leaves_nothing_behind(tmp_path):
    descriptors = set(os.listdir("/proc/self/fd"))
    buses = DesktopBuses(tmp_path).start()
    standins = StandIns(buses.system_address, buses.session_address).start()
    try:
        async def hold():
            client = await Client.connect(buses.system_address, negotiate_unix_fd=True)
            descriptor = await inhibit(client)
            await client.close()
            return descriptor

        # Still held at stop(): the stand-in's side of it must be closed all the same.
        held = run(hold())
        buses.restart_system()
        standins.reconnect_system()
        assert dbus_daemon_children() == sorted(buses.pids.values())
        assert any(thread.name == "dbus-standins" for thread in threading.enumerate())
    finally:
        standins.stop()
        buses.stop()
    os.close(held)
    assert dbus_daemon_children() == []
    assert not any(thread.name == "dbus-standins" for thread in threading.enumerate())
    assert set(os.listdir("/proc/self/fd")) == descriptors
