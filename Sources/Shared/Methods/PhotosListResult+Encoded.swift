import Foundation

extension PhotosListResult {
    /// The result's JSON around photos already in JSON, each one object as `PhotoSummary` encodes (the
    /// store has SQLite write them): the members in the encoder's order (its keys sorted), the integers in
    /// decimal, the statements by the encoder. Byte for byte the encoder's JSON of the same result (tests).
    public static func encoded(
        photos: [String], total: Int, limit: Int, offset: Int, statements: [QueryStatement]?
    ) throws -> EncodedResult<PhotosListResult> {
        var json = Data()
        json.reserveCapacity(photos.reduce(64) { $0 + $1.utf8.count + 1 })
        json.append(contentsOf: #"{"limit":\#(limit),"offset":\#(offset),"photos":["#.utf8)
        for (index, photo) in photos.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: photo.utf8)
        }
        json.append(UInt8(ascii: "]"))
        if let statements {
            json.append(contentsOf: #","statements":"#.utf8)
            json.append(try JSONCoding.encoder().encode(statements))
        }
        json.append(contentsOf: #","total":\#(total)}"#.utf8)
        return EncodedResult(json: json)
    }
}
