internal import CSDBus
import Foundation
import Glibc
import Logging
import Support
import Synchronization

/// One D-Bus bus watched on a thread of its own (sd-bus is not thread-safe, and its calls block):
/// properties read when the bus connects, when their service appears and whenever it says they
/// changed; signals handed over as they come; jobs run there on request. A bus that goes away is
/// tried again, 1 s doubling to a minute, and every property it watched is unknown (nil) meanwhile. A
/// bus that is not there at the start (no socket: a container, a server without a desktop) is not
/// looked for again until the next start: an idle daemon wakes for nothing. Either way a daemon
/// without D-Bus behaves as one that never heard of it.
final class BusWatcher: Sendable {
    struct Property: Sendable {
        var service: String
        var path: String
        var interface: String
        var name: String
        var kind: DBusValue.Kind
        /// The value now; nil: unknown (no bus, no service). Called on the bus's thread, for every
        /// reading, changed or not. A value of another type than `kind` is not a reading.
        var read: @Sendable (DBusValue?) -> Void
    }

    struct Signal: Sendable {
        var service: String
        var path: String
        var interface: String
        var member: String
        /// Called on the bus's thread with the signal, its arguments read in order.
        var received: @Sendable (DBusMessage) -> Void
    }

    /// A service's owner came (the connection is the bus's, for calls) or went (nil).
    struct Presence: Sendable {
        var service: String
        var changed: @Sendable (DBusConnection?) -> Void
    }

    let bus: DBusConnection.Bus
    private let properties: [Property]
    private let signals: [Signal]
    private let presences: [Presence]
    /// Told when a connection comes up (true) and when it is lost (false).
    private let connectionChanged: @Sendable (Bool) -> Void
    private let logger: Logger
    /// A pipe whose read end the bus's thread polls beside the bus: a job or a stop wakes it.
    private let wakeRead: FileDescriptor
    private let wakeWrite: FileDescriptor
    private let jobs = Mutex<[@Sendable (DBusConnection) -> Void]>([])
    private let stopping = Atomic(false)
    /// Whether a connection is up now.
    private let connected = Atomic(false)

    init(
        bus: DBusConnection.Bus, properties: [Property] = [], signals: [Signal] = [], presences: [Presence] = [],
        connectionChanged: @escaping @Sendable (Bool) -> Void = { _ in }, logger: Logger
    ) throws(DBusFailure) {
        self.connectionChanged = connectionChanged
        self.bus = bus
        self.properties = properties
        self.signals = signals
        self.presences = presences
        self.logger = logger
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw DBusFailure("pipe", code: -errno) }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        wakeRead = FileDescriptor(ends[0])
        wakeWrite = FileDescriptor(ends[1])
    }

    /// Runs `job` on the bus's thread with its connection, once one is up; dropped if the bus is down.
    func perform(_ job: @escaping @Sendable (DBusConnection) -> Void) {
        jobs.withLock { $0.append(job) }
        ring()
    }

    /// Connects, watches and reconnects until `stop`; returns once the thread has let the bus go.
    func run() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread { [self] in
                loop()
                done.resume()
            }
            thread.name = "splashd-dbus-\(bus.rawValue)"
            thread.start()
        }
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        ring()
    }

    private func ring() {
        var byte: UInt8 = 1
        _ = write(wakeWrite.raw, &byte, 1)
    }

    private func loop() {
        var delay = Duration.seconds(1)
        var lastFailure: String?
        var everConnected = false
        while !stopping.load(ordering: .acquiring) {
            do throws(DBusFailure) {
                let connection = try DBusConnection(bus, callTimeout: .seconds(2))
                try install(on: connection)
                connected.store(true, ordering: .releasing)
                everConnected = true
                connectionChanged(true)
                logger.info("D-Bus: the \(bus.rawValue) bus is here", metadata: ["splashd_op": "dbus"])
                lastFailure = nil
                delay = .seconds(1)
                try serve(connection)
            } catch {
                if !everConnected && Self.absent(error) {
                    logger.notice("D-Bus: no \(bus.rawValue) bus (\(error)); its signals are unknown until splashd starts again",
                                  metadata: ["splashd_op": "dbus"])
                    connectionChanged(false)
                    // Asleep until the stop: jobs asked meanwhile have no bus to run on.
                    while !stopping.load(ordering: .acquiring) {
                        waitForWake(timeout: nil)
                        jobs.withLock { $0.removeAll() }
                    }
                    break
                }
                // Said once per outage.
                if lastFailure != error.description {
                    let what = connected.load(ordering: .acquiring) ? "lost the \(bus.rawValue) bus" : "no \(bus.rawValue) bus"
                    logger.notice("D-Bus: \(what) (\(error)); its signals are unknown until it comes", metadata: ["splashd_op": "dbus"])
                    lastFailure = error.description
                }
            }
            if connected.exchange(false, ordering: .acquiringAndReleasing) {
                for property in properties { property.read(nil) }
                for presence in presences { presence.changed(nil) }
                connectionChanged(false)
            }
            jobs.withLock { $0.removeAll() }
            if stopping.load(ordering: .acquiring) { break }
            waitForWake(timeout: delay)
            delay = min(delay * 2, .seconds(60))
        }
    }

    /// Matches for every property's changes, every service's comings and goings and every signal; then
    /// the first readings.
    private func install(on connection: DBusConnection) throws(DBusFailure) {
        let services = Set(properties.map(\.service) + presences.map(\.service))
        for service in services {
            try connection.addMatch(
                "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
                    + "member='NameOwnerChanged',arg0='\(service)'"
            ) { [self] message in
                let name = try? message.readString()
                _ = try? message.readString()
                let owner = (try? message.readString()) ?? ""
                guard name == service else { return }
                _ = pending.withLock { $0.insert(owner.isEmpty ? .gone(service) : .came(service)) }
            }
        }
        for property in properties {
            try connection.addMatch(
                "type='signal',sender='\(property.service)',path='\(property.path)',"
                    + "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='\(property.interface)'"
            ) { [self] _ in
                _ = pending.withLock { $0.insert(.changed(property.service)) }
            }
        }
        for signal in signals {
            try connection.addMatch(
                "type='signal',sender='\(signal.service)',path='\(signal.path)',interface='\(signal.interface)',member='\(signal.member)'"
            ) { message in signal.received(message) }
        }
        pending.withLock { $0.formUnion(services.map { .came($0) }) }
    }

    private enum Pending: Hashable {
        case came(String), gone(String), changed(String)
    }

    /// What the matches noted, acted on between dispatches (a call from inside a callback would
    /// dispatch other messages under it).
    private let pending = Mutex<Set<Pending>>([])

    private func serve(_ connection: DBusConnection) throws(DBusFailure) {
        while !stopping.load(ordering: .acquiring) {
            var busy = try connection.process()
            busy = try actOnPending(connection) || busy
            let queued = jobs.withLock { jobs in defer { jobs.removeAll() }; return jobs }
            for job in queued { job(connection) }
            if busy || !queued.isEmpty { continue }
            guard connection.isOpen else { throw DBusFailure("the bus closed", code: -ECONNRESET) }
            let request = try connection.pollRequest()
            var fds = [pollfd(fd: request.fd, events: request.events, revents: 0), pollfd(fd: wakeRead.raw, events: Int16(POLLIN), revents: 0)]
            let timeout = request.timeoutMicroseconds.map { deadline -> Int32 in
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
                return deadline <= nowMicroseconds ? 0 : Int32(min((deadline - nowMicroseconds + 999) / 1000, 60_000))
            } ?? -1
            if poll(&fds, 2, timeout) < 0 && errno != EINTR { throw DBusFailure("poll", code: -errno) }
            if fds[1].revents != 0 { drainWake() }
        }
    }

    /// Reads the properties of services that came or changed, forgets those of services that went;
    /// true if there was anything to do.
    private func actOnPending(_ connection: DBusConnection) throws(DBusFailure) -> Bool {
        let noted = pending.withLock { pending in defer { pending.removeAll() }; return pending }
        for note in noted {
            switch note {
            case .gone(let service):
                for property in properties where property.service == service { property.read(nil) }
                for presence in presences where presence.service == service { presence.changed(nil) }
            case .came(let service):
                // A service that is not there answers nothing: its values are unknown until it comes.
                let present = try connection.hasOwner(service)
                readProperties(of: service, connection, present: present)
                for presence in presences where presence.service == service { presence.changed(present ? connection : nil) }
            case .changed(let service):
                readProperties(of: service, connection, present: true)
            }
        }
        return !noted.isEmpty
    }

    private func readProperties(of service: String, _ connection: DBusConnection, present: Bool) {
        for property in properties where property.service == service {
            guard present else {
                property.read(nil)
                continue
            }
            do throws(DBusFailure) {
                if let value = try connection.property(
                    destination: property.service, path: property.path, interface: property.interface, name: property.name,
                    kind: property.kind) {
                    property.read(value)
                } else {
                    logger.warning("D-Bus: \(property.service) gives \(property.name) of another type than \(property.kind); ignored",
                                   metadata: ["splashd_op": "dbus"])
                }
            } catch {
                logger.warning("D-Bus: cannot read \(property.service) \(property.name): \(error)", metadata: ["splashd_op": "dbus"])
                property.read(nil)
            }
        }
    }

    /// No bus to connect to on this machine: no socket where it would be, or no address at all.
    private static func absent(_ error: DBusFailure) -> Bool {
        [-ENOENT, -ECONNREFUSED, -ENOMEDIUM].contains(error.code)
    }

    /// Sleeps until `perform` or `stop` rings, or `timeout` (nil: none) passes.
    private func waitForWake(timeout: Duration?) {
        var fds = [pollfd(fd: wakeRead.raw, events: Int16(POLLIN), revents: 0)]
        let milliseconds = timeout.map { Int32($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) } ?? -1
        _ = poll(&fds, 1, milliseconds)
        drainWake()
    }

    private func drainWake() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakeRead.raw, &bytes, bytes.count) > 0 {}
    }
}
