import Foundation
import Synchronization

/// The JSON of a route's last result, used again while the route returns an equal result: comparing
/// two results costs far less than encoding one with Foundation's encoder.
final class EncodedResultCache<Result: Equatable & Sendable>: Sendable {
    private let last = Mutex<(result: Result, json: Data)?>(nil)

    /// `result`'s JSON: the kept one if `result` equals the result it was made from, else `encode`'s,
    /// which is kept in its place.
    func json(for result: Result, encode: (Result) throws -> Data) throws -> Data {
        if let kept = last.withLock({ $0 }), kept.result == result { return kept.json }
        let json = try encode(result)
        last.withLock { $0 = (result, json) }
        return json
    }
}
