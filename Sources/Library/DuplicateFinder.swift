import Editing
import Foundation
import GRDB
import Shared
import Store

/// Near-duplicates by perceptual hash, among the library's photos: local ones, and remote ones the
/// account likes or has edited (their hash is taken when their file arrives). A linear scan: 100,000
/// hashes compare in about a millisecond, and no index beats that for Hamming distance at this size.
public enum DuplicateFinder {
    public static func libraryHashes(_ db: Database, accountId: String) throws -> [(id: String, hash: PerceptualHash)] {
        try PerceptualHashQuery.library(db, accountId: accountId).map { ($0.id, PerceptualHash(value: $0.hash)) }
    }

    public static func nearest(to hash: PerceptualHash, in known: [(id: String, hash: PerceptualHash)], excluding: String? = nil) -> (id: String, distance: Int)? {
        var best: (id: String, distance: Int)?
        for candidate in known where candidate.id != excluding {
            let distance = candidate.hash.distance(to: hash)
            if best == nil || distance < best!.distance { best = (candidate.id, distance) }
        }
        return best
    }

    /// Library photos within `threshold` bits of `photoId`'s hash, nearest first.
    public static func duplicates(of photoId: String, accountId: String, threshold: Int, db: Database) throws -> [(id: String, distance: Int)] {
        guard let raw = try PerceptualHashQuery.hash(db, photoId: photoId) else { return [] }
        let hash = PerceptualHash(value: raw)
        return try libraryHashes(db, accountId: accountId)
            .filter { $0.id != photoId }
            .map { ($0.id, $0.hash.distance(to: hash)) }
            .filter { $0.1 <= threshold }
            .sorted { $0.1 < $1.1 }
    }

    /// Keeps the hash taken when `photoId`'s file arrived, and answers which library photos it is near.
    public static func record(
        _ hash: PerceptualHash, photoId: String, accountId: String, threshold: Int, store: Store
    ) throws -> [(id: String, distance: Int)] {
        try store.write { db in
            try PerceptualHashQuery.set(db, hash: hash.value, photoId: photoId)
            return try duplicates(of: photoId, accountId: accountId, threshold: threshold, db: db)
        }
    }
}
