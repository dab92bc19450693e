/// `sync.pause`: sync waits, as when offline, until `sync.resume` or for a while.
public struct SyncPauseRequest: RPCRequest {
    public typealias Result = PauseStatus
    public static let method = "sync.pause"
    public static let summary = """
        Pauses sync: changes queue as when offline, and nothing is sent, pulled or downloaded until sync.resume or \
        for_seconds have passed (by the wall clock: time asleep counts). With downloads_only, only whole files wait \
        (library downloads, originals, prefetched thumbnails); likes, edits and the live channel go on. Kept across \
        restarts. What a person asks for now (a search, a picture) is not paused.
        """
    public static let parameters = [
        ParameterDoc("for_seconds", "integer", "End the pause by itself after this long (60 to 2592000: 30 days); absent: until sync.resume."),
        ParameterDoc("downloads_only", "boolean", "Pause only the transfers of whole files (default false: all of sync)."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .internalError]
    public static let example = SyncPauseRequest(forSeconds: 7200)
    public static let resultExample = PauseStatus.example
    public static let longest = 30 * 86_400

    public var forSeconds: Int?
    public var downloadsOnly: Bool?

    public init(forSeconds: Int? = nil, downloadsOnly: Bool? = nil) {
        self.forSeconds = forSeconds
        self.downloadsOnly = downloadsOnly
    }

    public func validate() throws(RPCError) {
        if let forSeconds, !(60...Self.longest).contains(forSeconds) {
            throw .invalidInput(.mustBeBetween(name: "for_seconds", minimum: 60, maximum: Self.longest), field: "for_seconds")
        }
    }
}

/// `sync.resume`: ends a pause now.
public struct SyncResumeRequest: RPCRequest {
    public typealias Result = PauseStatus
    public static let method = "sync.resume"
    public static let summary = "Ends a pause of sync now (not paused: nothing changes); what waited goes at once."
    public static let errors: [ErrorKind] = [.internalError]
    public static let example = SyncResumeRequest()
    public static let resultExample = PauseStatus.running

    public init() {}
}
