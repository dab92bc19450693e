/// Why a library action could not be done, in words a person can act on.
public enum LibraryError: Error, Equatable, CustomStringConvertible {
    case unknownPhoto(String)
    case unknownEdit(String)
    case unreadable(String, String)
    case unknownOp(String)
    /// The op is being sent right now; it cannot be dropped until it returns.
    case opInFlight(String)
    /// The photo looks like `of`, already in the library, `distance` bits apart.
    case duplicate(String, of: String, distance: Int)

    public var description: String {
        switch self {
        case .unknownPhoto(let id): "no photo \(id) in the library; search for it or open it first"
        case .unknownEdit(let id): "no edit \(id); splashctl edits list shows them"
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .unknownOp(let id): "no queued op \(id); splashctl queue lists them"
        case .opInFlight(let id): "op \(id) is being sent right now; try again in a moment"
        case .duplicate(let id, let twin, let distance):
            "\(id) looks like \(twin), already in your library (\(distance) of 64 bits apart); like it anyway with --allow-duplicate"
        }
    }
}
