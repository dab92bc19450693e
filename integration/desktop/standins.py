"""Stand-ins for the desktop's D-Bus services, for the tests of what splashd does with their signals.

On the system bus: NetworkManager (Metered), UPower (OnBattery), power-profiles-daemon
(ActiveProfile) and logind (Inhibit, PrepareForSleep); on the session bus: the notification server.
Each service has a connection of its own, as the real ones do: a signal's sender is the owner of
that service's name only, and dropping one name leaves the others where they are.

The services run on an asyncio loop in a thread of their own; every public method is synchronous,
for the test's thread: it runs its work on that loop and waits for it.

    standins = StandIns(buses.system_address, buses.session_address).start()
    standins.set_metered(1)                  # PropertiesChanged(Metered=1) is on the bus when this returns
    standins.prepare_for_sleep(True)
    held_for = standins.wait_released(5)     # the daemon let go of its delay inhibitor this long after
    standins.stop()
"""
import asyncio
import concurrent.futures
import copy
import os
import threading
import time

from dbus_fast import (DBusError, ErrorType, Message, MessageFlag, MessageType, PropertyAccess,
                       RequestNameReply, Variant, unpack_variants)
from dbus_fast.aio import MessageBus
from dbus_fast.service import ServiceInterface, dbus_method, dbus_property, dbus_signal

from splashtest.errors import Failure

SYSTEM, SESSION = "system", "session"
PROPERTIES = "org.freedesktop.DBus.Properties"
NM_NAME, NM_PATH, NM_INTERFACE = ("org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager",
                                  "org.freedesktop.NetworkManager")
LOGIN_NAME, LOGIN_PATH, LOGIN_INTERFACE = ("org.freedesktop.login1", "/org/freedesktop/login1",
                                           "org.freedesktop.login1.Manager")
NOTIFY_NAME, NOTIFY_PATH, NOTIFY_INTERFACE = ("org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                                              "org.freedesktop.Notifications")
NOTIFY_SIGNATURE = "susssasa{sv}i"
# What one synchronous call may take on the loop before the test is told it hangs.
CALL_TIMEOUT = 10.0

# NetworkManager's NMMetered.
METERED_UNKNOWN, METERED_YES, METERED_NO, METERED_GUESS_YES, METERED_GUESS_NO = range(5)


class NetworkManager(ServiceInterface):
    def __init__(self):
        super().__init__(NM_INTERFACE)
        self.metered = METERED_NO

    @dbus_property(access=PropertyAccess.READ)
    def Metered(self) -> "u":
        return self.metered


class UPower(ServiceInterface):
    def __init__(self):
        super().__init__("org.freedesktop.UPower")
        self.on_battery = False

    @dbus_property(access=PropertyAccess.READ)
    def OnBattery(self) -> "b":
        return self.on_battery


class PowerProfiles(ServiceInterface):
    def __init__(self):
        super().__init__("org.freedesktop.UPower.PowerProfiles")
        self.active_profile = "balanced"

    @dbus_property(access=PropertyAccess.READ)
    def ActiveProfile(self) -> "s":
        return self.active_profile


class LoginManager(ServiceInterface):
    def __init__(self):
        super().__init__(LOGIN_INTERFACE)

    @dbus_method()
    def Inhibit(self, what: "s", who: "s", why: "s", mode: "s") -> "h":
        # Never called: StandIns._inhibit answers Inhibit first (a connection's message handlers run
        # before its exported interfaces), because only there is the moment known when the reply,
        # and with it the descriptor, has left, after which the stand-in closes its own copy.
        # Declared so that introspection lists Inhibit as logind's does.
        raise DBusError(ErrorType.FAILED, "Inhibit is answered by the stand-in's message handler")

    @dbus_signal()
    def PrepareForSleep(self, start) -> "b":
        return start


class Notifications(ServiceInterface):
    def __init__(self, standins):
        super().__init__(NOTIFY_INTERFACE)
        self._standins = standins

    @dbus_method()
    def Notify(self, app_name: "s", replaces_id: "u", app_icon: "s", summary: "s", body: "s",
               actions: "as", hints: "a{sv}", expire_timeout: "i") -> "u":
        # Never called: StandIns._notify answers Notify first, because only a message handler sees
        # the caller, and can leave a call unanswered without a task pending forever.
        # Declared so that introspection lists Notify.
        raise DBusError(ErrorType.FAILED, "Notify is answered by the stand-in's message handler")

    @dbus_method()
    def CloseNotification(self, id: "u"):
        self._standins._close_notification(id)

    @dbus_method()
    def GetCapabilities(self) -> "as":
        return ["actions", "body"]

    @dbus_method()
    def GetServerInformation(self) -> "ssss":
        return ["splashd-test-notifications", "splashd", "1.0", "1.2"]

    @dbus_signal()
    def ActionInvoked(self, id, action_key) -> "us":
        return [id, action_key]

    @dbus_signal()
    def NotificationClosed(self, id, reason) -> "uu":
        return [id, reason]


class _Service:
    """One stand-in service: its well-known name, object, bus and connection."""

    def __init__(self, name, bus, path, interface):
        self.name, self.bus, self.path, self.interface = name, bus, path, interface
        self.connection = None
        self.dropped = False


class StandIns:
    """The stand-in services on the buses at `system_address` and `session_address` (D-Bus
    addresses, e.g. DesktopBuses' system_address and session_address)."""

    # The names drop() and restore() take (a service's well-known name is accepted too).
    SERVICES = ("NetworkManager", "UPower", "PowerProfiles", "login1", "Notifications")

    def __init__(self, system_address, session_address):
        self._addresses = {SYSTEM: system_address, SESSION: session_address}
        self._nm = NetworkManager()
        self._login = LoginManager()
        self._notifications = Notifications(self)
        self._services = {
            "NetworkManager": _Service(NM_NAME, SYSTEM, NM_PATH, self._nm),
            "UPower": _Service("org.freedesktop.UPower", SYSTEM, "/org/freedesktop/UPower", UPower()),
            "PowerProfiles": _Service("org.freedesktop.UPower.PowerProfiles", SYSTEM,
                                      "/org/freedesktop/UPower/PowerProfiles", PowerProfiles()),
            "login1": _Service(LOGIN_NAME, SYSTEM, LOGIN_PATH, self._login),
            "Notifications": _Service(NOTIFY_NAME, SESSION, NOTIFY_PATH, self._notifications),
        }
        self._metered_wrong_type = False
        self._silent = False
        # Records, written on the loop's thread and read on the test's: under the condition's lock,
        # which is notified at every inhibitor's release.
        self._changed = threading.Condition()
        self._inhibitors = []
        self._notified = []
        self._next_notification_id = 1
        self._sleep = None  # {"at": when PrepareForSleep(True) went out, "held": the inhibitors held then}
        self._watched = {}  # read end of an inhibitor's pipe → its record
        self._loop = None
        self._thread = None

    # Life cycle

    def start(self):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="dbus-standins", daemon=True)
        self._thread.start()
        try:
            self._call(self._connect_all([SYSTEM, SESSION]))
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self):
        """Disconnects every service, closes what it holds and ends the loop's thread (idempotent)."""
        if self._loop is None:
            return
        try:
            if self._thread.is_alive():
                self._call(self._shut_down())
        finally:
            if self._thread.is_alive():
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(CALL_TIMEOUT)
            if not self._thread.is_alive():
                self._loop.close()
            self._loop = None

    def reconnect_system(self):
        """After the system bus restarted (DesktopBuses.restart_system): connects the system bus's
        services again, exports them with their current values and takes their names back (a name
        dropped with drop() stays dropped)."""
        self._call(self._reconnect(SYSTEM))

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    # Properties

    def set_metered(self, value):
        """NetworkManager's Metered (a NMMetered: 0 unknown, 1 yes, 2 no, 3 guess-yes, 4 guess-no;
        any uint32 goes), with its PropertiesChanged; also ends set_metered_wrong_type()."""
        self._call(self._on_loop(self._set_metered, value))

    def set_metered_wrong_type(self):
        """From now on (until set_metered) Metered is the string "yes", for Get and GetAll and in a
        PropertiesChanged sent now: input a client must ignore."""
        self._call(self._on_loop(self._set_metered_wrong_type))

    def flap_metered(self, times, interval):
        """Toggles Metered between yes and no `times` times, `interval` s apart (a PropertiesChanged
        each), starting from the other of the current value; returns the last value."""
        return self._call(self._flap_metered(times, interval), timeout=CALL_TIMEOUT + times * interval)

    def set_on_battery(self, on_battery):
        """UPower's OnBattery, with its PropertiesChanged."""
        upower = self._services["UPower"].interface
        self._call(self._on_loop(self._set_property, upower, "OnBattery", "on_battery", bool(on_battery)))

    def set_profile(self, profile):
        """power-profiles-daemon's ActiveProfile ("power-saver", "balanced", "performance" or any
        string), with its PropertiesChanged."""
        profiles = self._services["PowerProfiles"].interface
        self._call(self._on_loop(self._set_property, profiles, "ActiveProfile", "active_profile", profile))

    # logind

    def prepare_for_sleep(self, start):
        """Emits logind's PrepareForSleep(start). With True, the inhibitors held at that moment are
        the ones wait_released() waits for."""
        self._call(self._on_loop(self._prepare_for_sleep, bool(start)))

    def inhibitors(self):
        """Every Inhibit call so far, oldest first: {what, who, why, mode, sender, taken_at,
        released_at} (time.monotonic() times; released_at None while the descriptor is open)."""
        with self._changed:
            return copy.deepcopy(self._inhibitors)

    def wait_released(self, timeout):
        """Seconds from the last PrepareForSleep(True) to the release of the inhibitors held then
        (the last of them, if several). Failure if there was no such signal, no inhibitor was held
        then, or one is still held after `timeout` s."""
        deadline = time.monotonic() + timeout
        with self._changed:
            if self._sleep is None:
                raise Failure("no PrepareForSleep(True) was sent")
            held = self._sleep["held"]
            if not held:
                raise Failure("no inhibitor was held when PrepareForSleep(True) was sent")
            while any(record["released_at"] is None for record in held):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Failure(f"an inhibitor held at PrepareForSleep(True) is still held after {timeout}s: "
                                  f"{[record for record in held if record['released_at'] is None]}")
                self._changed.wait(left)
            return max(record["released_at"] for record in held) - self._sleep["at"]

    # Notifications

    def notifications(self):
        """Every Notify call so far, oldest first: its arguments by name (hints unwrapped from their
        variants), sender, at (time.monotonic()), id (None if it was not answered) and closed_at
        (when CloseNotification closed it, or None)."""
        with self._changed:
            return copy.deepcopy(self._notified)

    def inhibit_refused(self, refused):
        """While True, logind refuses Inhibit (as it does a caller its policy denies)."""
        self._call(self._on_loop(setattr, self, "_refuse_inhibit", bool(refused)))

    def notifications_silent(self, silent):
        """While True, Notify calls are recorded and never answered, as by a hung server."""
        self._call(self._on_loop(setattr, self, "_silent", bool(silent)))

    def invoke_action(self, id, key):
        """Emits ActionInvoked(id, key), as when the person clicks that action."""
        self._call(self._on_loop(self._notifications.ActionInvoked, id, key))

    # Names

    def drop(self, service):
        """Releases the service's well-known name (a key of SERVICES or the name itself): its
        NameOwnerChanged goes out, calls to the name fail, and its objects stay for restore()."""
        self._call(self._drop(self._service(service)))

    def restore(self, service):
        """Takes the service's well-known name back (NameOwnerChanged to the same connection)."""
        self._call(self._restore(self._service(service)))

    # On the loop

    def _call(self, coroutine, timeout=CALL_TIMEOUT):
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise Failure(f"the stand-ins' loop did not finish {coroutine.__qualname__} within {timeout}s") from None

    @staticmethod
    async def _on_loop(function, *args):
        return function(*args)

    def _service(self, service):
        for key, candidate in self._services.items():
            if service in (key, candidate.name):
                return candidate
        raise ValueError(f"no stand-in service {service!r} (one of {', '.join(self.SERVICES)})")

    async def _connect_all(self, buses):
        for service in self._services.values():
            if service.bus in buses:
                await self._connect(service)

    async def _connect(self, service):
        # Unix descriptors are negotiated by every connection: logind's Inhibit returns one.
        connection = await MessageBus(bus_address=self._addresses[service.bus], negotiate_unix_fd=True).connect()
        service.connection = connection
        if service.interface is self._login:
            connection.add_message_handler(lambda message: self._inhibit(connection, message))
        if service.interface is self._nm:
            connection.add_message_handler(lambda message: self._wrongly_typed_metered(message))
        if service.interface is self._notifications:
            connection.add_message_handler(lambda message: self._notify(message))
        # Exported before the name is taken: a client that sees the name appear may ask at once.
        connection.export(service.path, service.interface)
        if not service.dropped:
            await self._request(service)

    async def _request(self, service):
        reply = await service.connection.request_name(service.name)
        if reply not in (RequestNameReply.PRIMARY_OWNER, RequestNameReply.ALREADY_OWNER):
            raise Failure(f"could not own {service.name} on the {service.bus} bus: {reply}")

    async def _disconnect(self, service):
        connection, service.connection = service.connection, None
        if connection is None:
            return
        connection.disconnect()
        try:
            await connection.wait_for_disconnect()
        except Exception:  # noqa: BLE001 - a connection the bus's end already broke ends with its error
            pass

    async def _reconnect(self, bus):
        for service in self._services.values():
            if service.bus == bus:
                await self._disconnect(service)
        await self._connect_all([bus])

    async def _drop(self, service):
        await service.connection.release_name(service.name)
        service.dropped = True

    async def _restore(self, service):
        await self._request(service)
        service.dropped = False

    async def _shut_down(self):
        for service in self._services.values():
            await self._disconnect(service)
        for read_end in list(self._watched):
            self._loop.remove_reader(read_end)
            os.close(read_end)
        self._watched.clear()
        current = asyncio.current_task()
        pending = [task for task in asyncio.all_tasks() if task is not current]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def _set_property(self, interface, name, attribute, value):
        setattr(interface, attribute, value)
        interface.emit_properties_changed({name: value})

    def _set_metered(self, value):
        self._metered_wrong_type = False
        self._set_property(self._nm, "Metered", "metered", value)

    def _set_metered_wrong_type(self):
        self._metered_wrong_type = True
        # By hand: emit_properties_changed would wrap the value in the property's declared type.
        self._services["NetworkManager"].connection.send(Message.new_signal(
            NM_PATH, PROPERTIES, "PropertiesChanged", "sa{sv}as",
            [NM_INTERFACE, {"Metered": Variant("s", "yes")}, []]))

    def _wrongly_typed_metered(self, message):
        """Answers Properties.Get/GetAll of NetworkManager while Metered is wrongly typed."""
        if not (self._metered_wrong_type and message.message_type is MessageType.METHOD_CALL
                and message.path == NM_PATH and message.interface == PROPERTIES):
            return None
        if message.member == "Get" and message.signature == "ss" and message.body == [NM_INTERFACE, "Metered"]:
            return Message.new_method_return(message, "v", [Variant("s", "yes")])
        if message.member == "GetAll" and message.signature == "s" and message.body == [NM_INTERFACE]:
            return Message.new_method_return(message, "a{sv}", [{"Metered": Variant("s", "yes")}])
        return None

    async def _flap_metered(self, times, interval):
        for toggle in range(times):
            if toggle:
                await asyncio.sleep(interval)
            self._set_metered(METERED_NO if self._nm.metered == METERED_YES else METERED_YES)
        return self._nm.metered

    def _prepare_for_sleep(self, start):
        if start:
            with self._changed:
                held = [record for record in self._inhibitors if record["released_at"] is None]
                self._sleep = {"at": time.monotonic(), "held": held}
        self._login.PrepareForSleep(start)

    def _inhibit(self, connection, message):
        """logind's Inhibit: a pipe, whose write end goes to the caller and whose read end the
        stand-in watches: it reads end-of-file once every copy of the write end is closed, which
        is the inhibitor's release."""
        if not (message.message_type is MessageType.METHOD_CALL and message.path == LOGIN_PATH
                and message.interface in (None, LOGIN_INTERFACE) and message.member == "Inhibit"):
            return None
        if message.signature != "ssss":
            return Message.new_error(message, ErrorType.INVALID_ARGS, f"Inhibit takes ssss, not {message.signature}")
        if message.flags & MessageFlag.NO_REPLY_EXPECTED:
            return True
        if getattr(self, "_refuse_inhibit", False):
            return Message.new_error(message, "org.freedesktop.DBus.Error.AccessDenied", "Permission denied")
        read_end, write_end = os.pipe()
        what, who, why, mode = message.body
        record = dict(what=what, who=who, why=why, mode=mode, sender=message.sender,
                      taken_at=time.monotonic(), released_at=None)
        with self._changed:
            self._inhibitors.append(record)
        self._watched[read_end] = record
        self._loop.add_reader(read_end, self._inhibitor_readable, read_end)
        # dbus-fast does not close a descriptor it sent; ours is closed once the reply has been
        # written to the socket (the future send returns), or could not be.
        sent = connection.send(Message.new_method_return(message, "h", [0], [write_end]))
        sent.add_done_callback(lambda _: os.close(write_end))
        return True

    def _inhibitor_readable(self, read_end):
        try:
            if os.read(read_end, 4096):
                return  # someone wrote into it: not a release
        except OSError:
            pass
        self._loop.remove_reader(read_end)
        os.close(read_end)
        record = self._watched.pop(read_end)
        with self._changed:
            record["released_at"] = time.monotonic()
            self._changed.notify_all()

    def _notify(self, message):
        """The notification server's Notify: recorded, then answered with the next id (or the id it
        replaces), or, while silent, handled without an answer."""
        if not (message.message_type is MessageType.METHOD_CALL and message.path == NOTIFY_PATH
                and message.interface in (None, NOTIFY_INTERFACE) and message.member == "Notify"):
            return None
        if message.signature != NOTIFY_SIGNATURE:
            return Message.new_error(message, ErrorType.INVALID_ARGS,
                                     f"Notify takes {NOTIFY_SIGNATURE}, not {message.signature}")
        app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout = message.body
        record = dict(app_name=app_name, replaces_id=replaces_id, app_icon=app_icon, summary=summary, body=body,
                      actions=list(actions), hints=unpack_variants(hints), expire_timeout=expire_timeout,
                      sender=message.sender, at=time.monotonic(), id=None, closed_at=None)
        with self._changed:
            self._notified.append(record)
            if self._silent or message.flags & MessageFlag.NO_REPLY_EXPECTED:
                return True
            if replaces_id:
                record["id"] = replaces_id
            else:
                record["id"], self._next_notification_id = self._next_notification_id, self._next_notification_id + 1
        return Message.new_method_return(message, "u", [record["id"]])

    def _close_notification(self, id):
        with self._changed:
            records = [record for record in self._notified if record["id"] == id and record["closed_at"] is None]
            for record in records:
                record["closed_at"] = time.monotonic()
        if records:
            # 3: closed by a call to CloseNotification.
            self._notifications.NotificationClosed(id, 3)
