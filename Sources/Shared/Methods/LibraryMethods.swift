import Foundation

/// Checks a photo id's shape: `source:remote_id` with a known source.
public enum PhotoID {
    public static func validate(_ id: String, field: String = "id") throws(RPCError) {
        let parts = id.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, PhotoSource(rawValue: String(parts[0])) != nil, !parts[1].isEmpty, id.utf8.count <= 512 else {
            throw .invalidInput(.notAPhotoId(id: String(id.prefix(80))), field: field)
        }
    }
}

/// `photos.like`: adds a photo to My Collection. Applied at once, queued for the server.
public struct PhotosLikeRequest: RPCRequest {
    public typealias Result = PhotoActionResult
    public static let method = "photos.like"
    public static let summary = "Likes a photo: applied to the library at once and queued for the server (works offline). A photo that looks like one already in the library is refused (duplicate, naming it) unless allow_duplicate."
    public static let parameters = [
        ParameterDoc("id", "string", required: true, "The photo id, e.g. unsplash:Dwu85P9SOIk."),
        ParameterDoc("allow_duplicate", "boolean", "Like it even if it looks like a photo already in the library (perceptual hash within import.duplicate_threshold bits; known once any of its files, a thumbnail included, was seen)."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound, .duplicate]
    public static let example = PhotosLikeRequest(id: "unsplash:Dwu85P9SOIk")
    public static let resultExample = PhotoActionResult(id: "unsplash:Dwu85P9SOIk", liked: true, dismissed: false, changed: true, queued: true)
    public var id: String
    public var allowDuplicate: Bool?
    public init(id: String, allowDuplicate: Bool? = nil) {
        self.id = id
        self.allowDuplicate = allowDuplicate
    }
    public func validate() throws(RPCError) { try PhotoID.validate(id) }
}

/// `photos.unlike`: removes a photo from My Collection (a tombstone goes to the server).
public struct PhotosUnlikeRequest: RPCRequest {
    public typealias Result = PhotoActionResult
    public static let method = "photos.unlike"
    public static let summary = "Unlikes a photo; a like not yet sent and its unlike cancel each other."
    public static let parameters = [ParameterDoc("id", "string", required: true, "The photo id.")]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound, .notSignedIn]
    public static let example = PhotosUnlikeRequest(id: "unsplash:Dwu85P9SOIk")
    public static let resultExample = PhotoActionResult(id: "unsplash:Dwu85P9SOIk", liked: false, dismissed: false, changed: true, queued: false)
    public var id: String
    public init(id: String) { self.id = id }
    public func validate() throws(RPCError) { try PhotoID.validate(id) }
}

/// `photos.dismiss`: hides a photo from searches, feeds and random picks. Local only.
public struct PhotosDismissRequest: RPCRequest {
    public typealias Result = PhotoActionResult
    public static let method = "photos.dismiss"
    public static let summary = "Dismisses a photo (or, with undo, brings it back). Stays on this machine."
    public static let parameters = [
        ParameterDoc("id", "string", required: true, "The photo id."),
        ParameterDoc("undo", "boolean", "Bring a dismissed photo back."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound]
    public static let example = PhotosDismissRequest(id: "nasa:PIA12345")
    public static let resultExample = PhotoActionResult(id: "nasa:PIA12345", liked: false, dismissed: true, changed: true, queued: false)
    public var id: String
    public var undo: Bool?
    public init(id: String, undo: Bool? = nil) {
        self.id = id
        self.undo = undo
    }
    public func validate() throws(RPCError) { try PhotoID.validate(id) }
}

public struct PhotoActionResult: Codable, Sendable, Equatable {
    public var id: String
    public var liked: Bool
    public var dismissed: Bool
    /// False when the photo already was in that state (liking twice is harmless).
    public var changed: Bool
    /// An op waits in the outbox for the server.
    public var queued: Bool
    /// Signed out: the like is the guest's, kept on this machine until an account adopts it.
    public var guest: Bool?

    public init(id: String, liked: Bool, dismissed: Bool, changed: Bool, queued: Bool, guest: Bool? = nil) {
        self.id = id
        self.liked = liked
        self.dismissed = dismissed
        self.changed = changed
        self.queued = queued
        self.guest = guest
    }
}
