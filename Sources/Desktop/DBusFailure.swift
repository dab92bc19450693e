internal import CSDBus
import Glibc

/// What sd-bus refused, with its C code (a negative errno) and, for a call the other side answered with
/// an error, the D-Bus error's name and message.
public struct DBusFailure: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let code: Int32
    public let name: String?
    public let message: String?

    init(_ operation: String, code: Int32, error: sd_bus_error? = nil) {
        self.operation = operation
        self.code = code
        self.name = error?.name.map { String(cString: $0) }
        self.message = error?.message.map { String(cString: $0) }
    }

    public var description: String {
        let errno = String(cString: strerror(-code))
        if let name { return "\(operation): \(name): \(message ?? errno)" }
        return "\(operation): \(errno) (\(code))"
    }
}
