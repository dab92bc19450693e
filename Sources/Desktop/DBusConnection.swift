internal import CSDBus
import Glibc

/// One connection to a D-Bus bus through sd-bus: the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the
/// standard socket) or the person's session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
/// sd-bus is not thread-safe: one thread uses a connection, `BusWatcher`'s.
final class DBusConnection {
    enum Bus: String, Sendable {
        case system, session
    }

    let bus: OpaquePointer
    /// The handlers matches call, kept alive as long as their slots.
    private var handlers: [Handler] = []
    private var slots: [OpaquePointer] = []

    final class Handler {
        let received: (DBusMessage) -> Void
        init(_ received: @escaping (DBusMessage) -> Void) { self.received = received }
    }

    /// Connects; a call waits at most `callTimeout` for its answer (a service that never answers must
    /// not hold the bus's thread).
    init(_ which: Bus, callTimeout: Duration) throws(DBusFailure) {
        var opened: OpaquePointer?
        let result = which == .system ? sd_bus_open_system(&opened) : sd_bus_open_user(&opened)
        guard result >= 0, let opened else { throw DBusFailure("connect to the \(which.rawValue) bus", code: result) }
        bus = opened
        let (seconds, attoseconds) = callTimeout.components
        _ = sd_bus_set_method_call_timeout(bus, UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000))
    }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
        sd_bus_flush_close_unref(bus)
    }

    var isOpen: Bool { sd_bus_is_open(bus) > 0 }

    /// Calls `received` on this connection's thread for every message matching `rule` (D-Bus match syntax).
    func addMatch(_ rule: String, _ received: @escaping (DBusMessage) -> Void) throws(DBusFailure) {
        let handler = Handler(received)
        var slot: OpaquePointer?
        let result = rule.withCString { rule in
            sd_bus_add_match(bus, &slot, rule, { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                Unmanaged<Handler>.fromOpaque(userdata).takeUnretainedValue().received(DBusMessage(borrowing: message))
                return 0
            }, Unmanaged.passUnretained(handler).toOpaque())
        }
        guard result >= 0, let slot else { throw DBusFailure("match \(rule)", code: result) }
        handlers.append(handler)
        slots.append(slot)
    }

    /// Reads and dispatches what has arrived; true if there may be more to do at once.
    func process() throws(DBusFailure) -> Bool {
        let result = sd_bus_process(bus, nil)
        guard result >= 0 else { throw DBusFailure("process", code: result) }
        return result > 0
    }

    /// What to poll for: the bus's descriptor, its events, and sd-bus's own deadline (nil: none).
    func pollRequest() throws(DBusFailure) -> (fd: Int32, events: Int16, timeoutMicroseconds: UInt64?) {
        let fd = sd_bus_get_fd(bus)
        guard fd >= 0 else { throw DBusFailure("descriptor", code: fd) }
        let events = sd_bus_get_events(bus)
        guard events >= 0 else { throw DBusFailure("events", code: events) }
        var timeout: UInt64 = 0
        let result = sd_bus_get_timeout(bus, &timeout)
        guard result >= 0 else { throw DBusFailure("timeout", code: result) }
        return (fd, Int16(events), timeout == UInt64.max ? nil : timeout)
    }

    /// `org.freedesktop.DBus.Properties.Get`: the value, nil when the service holds it as another type
    /// (a property of the wrong type is no answer).
    func property(
        destination: String, path: String, interface: String, name: String, kind: DBusValue.Kind
    ) throws(DBusFailure) -> DBusValue? {
        let reply = try call(
            destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string(interface), .string(name)])
        return try reply.readVariant(kind)
    }

    /// Whether `name` has an owner on the bus now.
    func hasOwner(_ name: String) throws(DBusFailure) -> Bool {
        let reply = try call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: [.string(name)])
        return try reply.readBool()
    }

    enum Argument {
        case string(String)
        case uint32(UInt32)
        case int32(Int32)
        case strings([String])
        /// An empty `a{sv}` (a notification's hints).
        case emptyDictionary
    }

    /// Calls a method and waits for its reply (at most the connection's call timeout).
    func call(
        destination: String, path: String, interface: String, member: String, arguments: [Argument]
    ) throws(DBusFailure) -> DBusMessage {
        let message = try methodCall(destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        defer { sd_bus_message_unref(message) }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let result = sd_bus_call(bus, message, 0, &error, &reply)
        guard result >= 0, let reply else { throw DBusFailure("\(interface).\(member)", code: result, error: error) }
        return DBusMessage(owning: reply)
    }

    /// Calls a method without waiting: `answered` gets the reply (or nil: an error, or no answer within
    /// the call timeout) on this connection's thread.
    func callAsync(
        destination: String, path: String, interface: String, member: String, arguments: [Argument],
        answered: @escaping (DBusMessage?) -> Void
    ) throws(DBusFailure) {
        let message = try methodCall(destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        defer { sd_bus_message_unref(message) }
        let handler = Handler { reply in answered(sd_bus_message_is_method_error(reply.pointer, nil) > 0 ? nil : reply) }
        let context = Unmanaged.passRetained(handler).toOpaque()
        // A floating slot (nil): sd-bus calls back once, answer or timeout, then forgets it.
        let result = sd_bus_call_async(bus, nil, message, { reply, userdata, _ in
            guard let userdata else { return 0 }
            let handler = Unmanaged<Handler>.fromOpaque(userdata).takeRetainedValue()
            if let reply { handler.received(DBusMessage(borrowing: reply)) }
            return 0
        }, context, 0)
        if result < 0 {
            Unmanaged<Handler>.fromOpaque(context).release()
            throw DBusFailure("\(interface).\(member)", code: result)
        }
    }

    private func methodCall(
        destination: String, path: String, interface: String, member: String, arguments: [Argument]
    ) throws(DBusFailure) -> OpaquePointer {
        var message: OpaquePointer?
        let made = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard made >= 0, let message else { throw DBusFailure("\(interface).\(member)", code: made) }
        do {
            for argument in arguments { try Self.append(argument, to: message) }
        } catch {
            sd_bus_message_unref(message)
            throw error
        }
        return message
    }

    private static func append(_ argument: Argument, to message: OpaquePointer) throws(DBusFailure) {
        var result: Int32
        switch argument {
        case .string(let value):
            result = value.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
        case .uint32(var value):
            result = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &value)
        case .int32(var value):
            result = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "i")), &value)
        case .strings(let values):
            result = sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "s")
            for value in values where result >= 0 {
                result = value.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
            }
            if result >= 0 { result = sd_bus_message_close_container(message) }
        case .emptyDictionary:
            result = sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}")
            if result >= 0 { result = sd_bus_message_close_container(message) }
        }
        guard result >= 0 else { throw DBusFailure("append an argument", code: result) }
    }
}
