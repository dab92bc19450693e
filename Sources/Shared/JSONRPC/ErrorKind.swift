/// The machine-readable kind of an error, carried in `error.data.kind`. Every kind has one JSON-RPC
/// code and one splashctl exit code (sysexits.h), so scripts can branch on either.
public enum ErrorKind: String, Sendable, Codable, CaseIterable {
    // JSON-RPC's own.
    case parseError = "parse_error"
    case invalidRequest = "invalid_request"
    case methodNotFound = "method_not_found"
    case invalidInput = "invalid_input"
    case internalError = "internal"
    // The daemon's own, -32000 ... -32099.
    case notSignedIn = "not_signed_in"
    case offline
    case notFound = "not_found"
    case rateLimited = "rate_limited"
    case rejected
    case conflict
    case permissionDenied = "permission_denied"
    case tooLarge = "too_large"
    case busy
    /// The disk or quota is full; the same request succeeds once there is room.
    case noSpace = "no_space"
    /// The photo looks like one already in the library (its twin named); asked again with
    /// `allow_duplicate`, it is done.
    case duplicate
    /// The client cancelled the request (`$/cancelRequest`) before its answer was ready.
    case cancelled

    public var code: Int {
        switch self {
        case .parseError: -32700
        case .invalidRequest: -32600
        case .methodNotFound: -32601
        case .invalidInput: -32602
        case .internalError: -32603
        case .notSignedIn: -32001
        case .offline: -32002
        case .notFound: -32003
        case .rateLimited: -32004
        case .rejected: -32005
        case .conflict: -32006
        case .permissionDenied: -32007
        case .tooLarge: -32008
        case .busy: -32009
        case .noSpace: -32010
        case .duplicate: -32011
        case .cancelled: -32012
        }
    }

    /// splashctl's exit status for this kind (sysexits.h names in comments).
    public var exitCode: Int32 {
        switch self {
        case .invalidInput, .conflict, .rejected, .tooLarge, .duplicate: 65  // EX_DATAERR
        case .notFound: 66  // EX_NOINPUT
        case .internalError: 70  // EX_SOFTWARE
        case .offline, .rateLimited, .busy, .cancelled: 75  // EX_TEMPFAIL
        case .parseError, .invalidRequest, .methodNotFound: 76  // EX_PROTOCOL
        case .notSignedIn, .permissionDenied: 77  // EX_NOPERM
        case .noSpace: 73  // EX_CANTCREAT
        }
    }
}

/// Exit codes of splashctl that do not come from an error kind.
public enum SplashExit {
    public static let success: Int32 = 0
    public static let usage: Int32 = 64  // EX_USAGE: bad command line
    public static let unavailable: Int32 = 69  // EX_UNAVAILABLE: the daemon is not running
    public static let config: Int32 = 78  // EX_CONFIG: splashd's config does not parse
    /// `sync --wait` ended with changes the server refused (`queue --rejected`): EX_DATAERR, as `rejected`.
    public static let syncRejected: Int32 = 65
    /// `sync --wait` ended offline: EX_TEMPFAIL, as `offline`.
    public static let syncOffline: Int32 = 75
    /// `sync --wait` reached its timeout with changes left: as timeout(1).
    public static let syncTimedOut: Int32 = 124
}
