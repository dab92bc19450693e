import Foundation
import GRDB
import Shared
@testable import Store

enum PhotoFixtures {
    static let epoch = Date(timeIntervalSince1970: 1_795_000_000)

    static func photo(
        _ remoteID: String, source: PhotoSource = .unsplash, title: String? = nil, author: String? = nil,
        color: String? = nil, tags: [String] = [], created: TimeInterval = 0, fetched: TimeInterval = 0,
        dismissed: Bool = false
    ) -> PhotoRecord {
        PhotoRecord(
            source: source, remoteId: remoteID, title: title, tags: tags, authorName: author, width: 4000, height: 3000,
            color: color, colorBucket: color.flatMap { ColorBucket(hex: $0)?.rawValue },
            createdAt: epoch.addingTimeInterval(created), fetchedAt: epoch.addingTimeInterval(fetched),
            dismissedAt: dismissed ? epoch : nil)
    }

    /// A store at `path` as a splashd from before `migration`'s successors left it: migrated up to it,
    /// holding what `rows` writes. Opening it as a `Store` then runs the later migrations.
    static func oldStore(at path: String, migratedUpTo migration: String, rows: (Database) throws -> Void) throws {
        let queue = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(queue, upTo: migration)
        try queue.write(rows)
    }

    static func like(_ photoID: String, account: String = "", at offset: TimeInterval, unliked: Bool = false) -> LikeRecord {
        let at = epoch.addingTimeInterval(offset)
        return LikeRecord(accountId: account, photoId: photoID, likedAt: at, updatedAt: at, deletedAt: unliked ? at : nil)
    }

    /// A like as a store before v9 (no stamp columns) holds it.
    static func insertUnstamped(_ like: LikeRecord, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO likes (account_id, photo_id, liked_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [like.accountId, like.photoId, like.likedAt, like.updatedAt, like.deletedAt])
    }
}
