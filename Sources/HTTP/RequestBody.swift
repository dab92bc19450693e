/// What a request sends: bytes in memory, or a file read as libcurl sends it (memory stays at libcurl's
/// buffer whatever the file's size).
public enum RequestBody: Sendable, Equatable {
    case bytes([UInt8])
    case file(path: String)
}
