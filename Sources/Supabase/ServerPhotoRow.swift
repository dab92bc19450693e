/// A row of the server's `photos` table: the metadata a like or an edit carries so that other devices
/// can show the photo. Pulled after the likes and edits (`PhotosPuller`); pushed as the store builds it (`PhotoPushRow`).
public struct ServerPhotoRow: Codable, Sendable, Equatable {
    public var photo_id: String
    public var title: String?
    public var description: String?
    public var author_name: String?
    public var author_url: String?
    public var color: String?
    public var width: Int?
    public var height: Int?
    public var urls: [String: String]?
    /// The SHA-256 of the photo's original in the account's Storage (a local or Google Photos file).
    public var original_sha256: String?
    /// Why that original is not in Storage (too large).
    public var original_note: String?
    /// The server's time of the row's last change: where a pull of the photos' rows stops. Never sent.
    public var updated_at: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case photo_id, title, description, author_name, author_url, color, width, height, original_sha256, original_note, urls, updated_at
    }

    /// The columns read: every key.
    public static let columns = CodingKeys.allCases.map(\.rawValue).joined(separator: ",")

    public init(
        photo_id: String, title: String? = nil, description: String? = nil, author_name: String? = nil, author_url: String? = nil,
        color: String? = nil, width: Int? = nil, height: Int? = nil, urls: [String: String]? = nil, original_sha256: String? = nil,
        original_note: String? = nil, updated_at: String? = nil
    ) {
        self.photo_id = photo_id
        self.title = title
        self.description = description
        self.author_name = author_name
        self.author_url = author_url
        self.color = color
        self.width = width
        self.height = height
        self.urls = urls
        self.original_sha256 = original_sha256
        self.original_note = original_note
        self.updated_at = updated_at
    }

    // Every row of a bulk insert must have the same keys, so nulls are written out; updated_at is the
    // server's to set.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(photo_id, forKey: .photo_id)
        try c.encode(title, forKey: .title)
        try c.encode(description, forKey: .description)
        try c.encode(author_name, forKey: .author_name)
        try c.encode(author_url, forKey: .author_url)
        try c.encode(color, forKey: .color)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(original_sha256, forKey: .original_sha256)
        try c.encode(original_note, forKey: .original_note)
        try c.encode(urls ?? [:], forKey: .urls)
    }
}
