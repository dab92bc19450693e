internal import CSDBus
import Glibc

/// One sd-bus message: a signal handed to a match, or a call's reply. Read in order, as D-Bus lays its
/// arguments out; a read of the wrong type throws and moves nothing.
final class DBusMessage {
    let pointer: OpaquePointer
    private let owned: Bool

    /// A message sd-bus lends to a callback: valid only during it.
    init(borrowing pointer: OpaquePointer) {
        self.pointer = pointer
        owned = false
    }

    /// A message this wrapper keeps (a reply): its reference is let go in `deinit`.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
        owned = true
    }

    deinit {
        if owned { sd_bus_message_unref(pointer) }
    }

    var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }
    var path: String? { sd_bus_message_get_path(pointer).map { String(cString: $0) } }
    var interface: String? { sd_bus_message_get_interface(pointer).map { String(cString: $0) } }

    func readString() throws(DBusFailure) -> String {
        try readBasic("s") { (value: UnsafePointer<CChar>?) in value.map { String(cString: $0) } ?? "" }
    }

    func readBool() throws(DBusFailure) -> Bool {
        try readBasic("b") { (value: Int32) in value != 0 }
    }

    func readUInt32() throws(DBusFailure) -> UInt32 {
        try readBasic("u") { (value: UInt32) in value }
    }

    /// A file descriptor the message carries, duplicated: the message closes its own when it goes.
    func readFileDescriptor() throws(DBusFailure) -> Int32 {
        let fd = try readBasic("h") { (value: Int32) in value }
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { throw DBusFailure("dup of a passed descriptor", code: -errno) }
        return copy
    }

    /// Reads one value of the variant's `type` ("s", "b", "u"), or nil when the variant holds another type.
    func readVariant(_ type: DBusValue.Kind) throws(DBusFailure) -> DBusValue? {
        guard try enterIfType("v", type.signature) else {
            try skip("v")
            return nil
        }
        let value: DBusValue = switch type {
        case .string: .string(try readString())
        case .bool: .bool(try readBool())
        case .uint32: .uint32(try readUInt32())
        }
        try exit()
        return value
    }

    func enter(_ type: Character, _ contents: String) throws(DBusFailure) {
        guard try enterIfType(type, contents) else {
            throw DBusFailure("enter \(type)(\(contents))", code: -ENXIO)
        }
    }

    /// Enters the next container if it is `type` holding `contents`; false at the end of the current one.
    func enterIfType(_ type: Character, _ contents: String) throws(DBusFailure) -> Bool {
        let result = contents.withCString { sd_bus_message_enter_container(pointer, CChar(type.asciiValue!), $0) }
        if result == -ENXIO { return false }
        guard result >= 0 else { throw DBusFailure("enter \(type)(\(contents))", code: result) }
        return result > 0
    }

    func exit() throws(DBusFailure) {
        let result = sd_bus_message_exit_container(pointer)
        guard result >= 0 else { throw DBusFailure("exit container", code: result) }
    }

    func skip(_ signature: String) throws(DBusFailure) {
        let result = signature.withCString { sd_bus_message_skip(pointer, $0) }
        guard result >= 0 else { throw DBusFailure("skip \(signature)", code: result) }
    }

    private func readBasic<Raw, T>(_ type: Character, _ convert: (Raw) -> T) throws(DBusFailure) -> T {
        let slot = UnsafeMutablePointer<Raw>.allocate(capacity: 1)
        defer { slot.deallocate() }
        let result = sd_bus_message_read_basic(pointer, CChar(type.asciiValue!), slot)
        guard result > 0 else { throw DBusFailure("read \(type)", code: result == 0 ? -ENXIO : result) }
        return convert(slot.pointee)
    }
}

/// A property's value, of the few types the desktop's signals use.
public enum DBusValue: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case uint32(UInt32)

    public enum Kind: Sendable {
        case string, bool, uint32

        var signature: String {
            switch self {
            case .string: "s"
            case .bool: "b"
            case .uint32: "u"
            }
        }
    }
}
