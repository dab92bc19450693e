/// Why a photo the store holds has no picture to answer with, in the daemon's words. `lasting`: waiting
/// will not help (the source has no such picture) — answered 404; otherwise 503 with a time to try
/// again (offline, a host that does not answer).
public struct GalleryPictureUnavailable: Error, Sendable, Equatable {
    public var words: String
    public var lasting: Bool

    public init(words: String, lasting: Bool) {
        self.words = words
        self.lasting = lasting
    }
}

/// Where the gallery's pictures come from: the daemon looks a photo up by its id in the store and
/// answers with a file of its own choosing. A path is never taken from the request.
public protocol GalleryImages: Sendable {
    /// The file that shows `photoId` at `size`, fetched first when it is not on this machine; nil
    /// when the store holds no such photo; `GalleryPictureUnavailable` when it has none to show.
    func file(photoId: String, size: GalleryImageSize) async throws -> GalleryImageFile?
    /// The rendering of `photoId`'s edit `editId` on this machine; nil when there is none.
    func rendering(photoId: String, editId: String) async throws -> GalleryImageFile?
}

/// The pictures of a photo the gallery asks for, by the last part of `/images/<id>/<size>`.
public enum GalleryImageSize: String, Sendable, CaseIterable {
    /// For the grid.
    case thumb
    /// For one photo on a screen: a screen-sized copy when there is one, else the file.
    case screen
    /// The file as it came.
    case original
}

public struct GalleryImageFile: Sendable, Equatable {
    public var path: String
    /// SHA-256 of the bytes, hex: the answer's ETag.
    public var contentHash: String
    /// The bytes at this address never change (an original): browsers may keep them without asking
    /// again.
    public var immutable: Bool

    public init(path: String, contentHash: String, immutable: Bool) {
        self.path = path
        self.contentHash = contentHash
        self.immutable = immutable
    }
}
