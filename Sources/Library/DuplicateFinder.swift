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
        return within(threshold, of: PerceptualHash(value: raw), in: try libraryHashes(db, accountId: accountId), excluding: photoId)
    }

    /// The photos of `known` within `threshold` bits of `hash`, nearest first.
    static func within(
        _ threshold: Int, of hash: PerceptualHash, in known: [(id: String, hash: PerceptualHash)], excluding: String
    ) -> [(id: String, distance: Int)] {
        known
            .filter { $0.id != excluding }
            .map { ($0.id, $0.hash.distance(to: hash)) }
            .filter { $0.1 <= threshold }
            .sorted { $0.1 < $1.1 }
    }

    /// Keeps the hashes taken when photos' files arrived, and answers which library photos each is
    /// near (nearest first; photos with none are left out). The hashes are written in one transaction
    /// and the library's read once, after it and outside it: a batch costs one read of the library,
    /// not one per photo, and no writer waits on the comparisons.
    public static func record(
        _ hashes: [(photoId: String, hash: PerceptualHash)], accountId: String, threshold: Int, store: Store
    ) throws -> [String: [(id: String, distance: Int)]] {
        guard !hashes.isEmpty else { return [:] }
        try store.write { db in
            for entry in hashes { try PerceptualHashQuery.set(db, hash: entry.hash.value, photoId: entry.photoId) }
        }
        let library = try store.read { db in try libraryHashes(db, accountId: accountId) }
        var near: [String: [(id: String, distance: Int)]] = [:]
        for entry in hashes {
            let found = within(threshold, of: entry.hash, in: library, excluding: entry.photoId)
            if !found.isEmpty { near[entry.photoId] = found }
        }
        return near
    }
}
