import Foundation

/// A method's result already in JSON, made by something faster than `JSONEncoder` (for `photos.list`,
/// SQLite writes each photo's object). Whoever makes one holds it in its tests byte for byte to what
/// `JSONCoding.encoder()` makes of the same value; the router sends it as it is.
public struct EncodedResult<Result: Codable & Sendable>: Sendable {
    public let json: Data

    public init(json: Data) {
        self.json = json
    }

    /// The value, read back as a client reads it.
    public func decoded() throws -> Result {
        try JSONCoding.decoder().decode(Result.self, from: json)
    }
}
