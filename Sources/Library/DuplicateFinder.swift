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
        try Row.fetchAll(db, sql: """
            SELECT p.id, p.phash FROM photos p
            WHERE p.phash IS NOT NULL AND (
                p.source = 'local'
                OR EXISTS (SELECT 1 FROM likes l WHERE l.photo_id = p.id AND l.account_id = ? AND l.deleted_at IS NULL)
                OR EXISTS (SELECT 1 FROM edits e WHERE e.photo_id = p.id AND e.account_id = ? AND e.deleted_at IS NULL))
            """, arguments: [accountId, accountId]).map { row in
            (row["id"], PerceptualHash(value: UInt64(bitPattern: row["phash"] as Int64)))
        }
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
        guard let raw = try Int64.fetchOne(db, sql: "SELECT phash FROM photos WHERE id = ?", arguments: [photoId]) else { return [] }
        let hash = PerceptualHash(value: UInt64(bitPattern: raw))
        return try libraryHashes(db, accountId: accountId)
            .filter { $0.id != photoId }
            .map { ($0.id, $0.hash.distance(to: hash)) }
            .filter { $0.1 <= threshold }
            .sorted { $0.1 < $1.1 }
    }
}
