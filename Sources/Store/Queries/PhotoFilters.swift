import Shared

/// The filters of a `photos.list` request, as `PhotoQueryRun` turns them into SQL; hashable so that a
/// run counts each set once.
struct PhotoFilters: Hashable, Sendable {
    var liked: Bool?
    var edited: Bool?
    var dismissed: Bool
    var source: String?
    var color: String?
    /// The FTS5 query the text became (`PhotoQuery.ftsMatch`).
    var match: String?

    /// Every shown photo.
    init() {
        dismissed = false
    }

    init(_ request: PhotosListRequest) {
        liked = request.liked
        edited = request.edited
        dismissed = request.dismissed == true
        source = request.source?.rawValue
        color = request.color
        match = request.text.flatMap(PhotoQuery.ftsMatch)
    }

    /// Whether anything but the dismissed state narrows the photos.
    var narrows: Bool { narrowsBesidesText || match != nil }

    /// Whether anything but the dismissed state and the text narrows the photos.
    var narrowsBesidesText: Bool { liked != nil || edited != nil || source != nil || color != nil }

    /// A text match and nothing else but the dismissed state: counted in the full-text index, and paged
    /// by walking a sort key's index where that pays (`PhotoQueryRun`).
    var isTextAlone: Bool { match != nil && !narrowsBesidesText }
}
