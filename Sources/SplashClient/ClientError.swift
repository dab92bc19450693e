import Shared

/// Why the client could not get an answer (as opposed to the daemon answering with an error).
public enum ClientError: Error, Equatable, CustomStringConvertible {
    case notRunning(String)
    case permissionDenied(String)
    case invalidSocketPath(String)
    case cannotConnect(String, String)
    case connectionLost(String)
    case protocolError(String)

    public var description: String {
        switch self {
        case .notRunning(let path):
            "splashd is not running (nothing listens on \(path)). Start it with `systemctl --user start splashd.socket` or run `splashd`."
        case .permissionDenied(let path): "permission denied on \(path): the daemon belongs to another user"
        case .invalidSocketPath(let path): "socket path too long: \(path)"
        case .cannotConnect(let path, let reason): "cannot connect to \(path): \(reason)"
        case .connectionLost(let reason): "the connection to splashd was lost: \(reason)"
        case .protocolError(let reason): "splashd answered something unexpected: \(reason)"
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .notRunning, .cannotConnect, .connectionLost: SplashExit.unavailable
        case .permissionDenied: ErrorKind.permissionDenied.exitCode
        case .invalidSocketPath: SplashExit.usage
        case .protocolError: ErrorKind.parseError.exitCode
        }
    }
}
