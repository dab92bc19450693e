import Foundation

/// `photos.list`: whatever the store holds, filtered and sorted. Never touches the network.
public struct PhotosListRequest: RPCRequest {
    public typealias Result = PhotosListResult
    public static let method = "photos.list"
    public static let summary = "Lists photos in the local store, filtered and sorted; never waits on the network."
    public static let parameters = [
        ParameterDoc("liked", "boolean", "Only liked (true) or only not liked (false) photos."),
        ParameterDoc("edited", "boolean", "Only photos with (true) or without (false) edits."),
        ParameterDoc("dismissed", "boolean", "Dismissed photos are hidden unless this is true; true lists only them."),
        ParameterDoc("source", "string", "unsplash, nasa or local."),
        ParameterDoc("color", "string", "A colour bucket: " + ColorBucket.allCases.map(\.rawValue).joined(separator: ", ") + "."),
        ParameterDoc("text", "string", "Full-text match over title, description, alt text, tags and author (1 to 256 characters)."),
        ParameterDoc("sort", "string", "created, liked or fetched; a leading '-' sorts descending. Default -fetched, or -liked when liked is true."),
        ParameterDoc("limit", "integer", "1 to \(maxLimit), default \(defaultLimit)."),
        ParameterDoc("offset", "integer", "0 or more, default 0."),
        ParameterDoc("explain", "boolean", "Also return the SQL statements run, their arguments and SQLite's query plan for each."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput]
    public static let example = PhotosListRequest(liked: true, color: "blue", sort: .likedDescending, limit: 50)
    public static let resultExample = PhotosListResult(
        photos: [PhotoSummary(
            id: "unsplash:Dwu85P9SOIk", source: .unsplash, title: "A blue lake", author: "Ana Lima",
            width: 4000, height: 3000, color: "#2C5A8C", colorBucket: "blue",
            createdAt: Date(timeIntervalSince1970: 1_700_000_000), fetchedAt: Date(timeIntervalSince1970: 1_795_000_000),
            likedAt: Date(timeIntervalSince1970: 1_795_000_100))],
        total: 1, limit: 50, offset: 0)

    public static let defaultLimit = 50
    public static let maxLimit = 1000

    public enum Sort: String, Codable, Sendable, CaseIterable {
        case createdAscending = "created", createdDescending = "-created"
        case likedAscending = "liked", likedDescending = "-liked"
        case fetchedAscending = "fetched", fetchedDescending = "-fetched"
    }

    public var liked: Bool?
    public var edited: Bool?
    public var dismissed: Bool?
    public var source: PhotoSource?
    public var color: String?
    public var text: String?
    public var sort: Sort?
    public var limit: Int?
    public var offset: Int?
    public var explain: Bool?

    public init(
        liked: Bool? = nil, edited: Bool? = nil, dismissed: Bool? = nil, source: PhotoSource? = nil,
        color: String? = nil, text: String? = nil, sort: Sort? = nil, limit: Int? = nil, offset: Int? = nil, explain: Bool? = nil
    ) {
        self.liked = liked
        self.edited = edited
        self.dismissed = dismissed
        self.source = source
        self.color = color
        self.text = text
        self.sort = sort
        self.limit = limit
        self.offset = offset
        self.explain = explain
    }

    public func validate() throws(RPCError) {
        if let limit, !(1...Self.maxLimit).contains(limit) {
            throw .invalidInput(.mustBeBetweenNot(name: "limit", minimum: 1, maximum: Self.maxLimit, given: limit), field: "limit")
        }
        if let offset, offset < 0 {
            throw .invalidInput(.negativeOffset(given: offset), field: "offset")
        }
        if let color, ColorBucket(rawValue: color) == nil {
            throw .invalidInput(.unknownColour(color: color, known: ColorBucket.allCases.map(\.rawValue)), field: "color")
        }
        if let text {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || text.count > 256 {
                throw .invalidInput(.textLength(maximum: 256), field: "text")
            }
        }
    }
}

public struct PhotosListResult: Codable, Sendable, Equatable {
    public var photos: [PhotoSummary]
    /// How many photos match in all, ignoring limit and offset.
    public var total: Int
    public var limit: Int
    public var offset: Int
    /// With `explain`: the statements run, in order.
    public var statements: [QueryStatement]?

    public init(photos: [PhotoSummary], total: Int, limit: Int, offset: Int, statements: [QueryStatement]? = nil) {
        self.photos = photos
        self.total = total
        self.limit = limit
        self.offset = offset
        self.statements = statements
    }
}
