/// A row of the server's `photos` table: the metadata a like or an edit carries so that other devices
/// can show the photo. Pulled with the like or the edit; pushed as the store builds it (`PhotoPushRow`).
struct ServerPhotoRow: Codable {
    var photo_id: String
    var title: String?
    var description: String?
    var author_name: String?
    var author_url: String?
    var color: String?
    var width: Int?
    var height: Int?
    var urls: [String: String]?
    /// The SHA-256 of the photo's original in the account's Storage (a local or Google Photos file).
    var original_sha256: String?
    /// Why that original is not in Storage (too large).
    var original_note: String?

    enum CodingKeys: String, CodingKey {
        case photo_id, title, description, author_name, author_url, color, width, height, original_sha256, original_note, urls
    }

    /// The columns read.
    static let columns = "photo_id,title,description,author_name,author_url,color,width,height,original_sha256,original_note,urls"

    // Every row of a bulk insert must have the same keys, so nulls are written out.
    func encode(to encoder: any Encoder) throws {
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
