import Foundation
import GRDB
import Shared
import SplashClient
import Store
import Testing
import TestSupport

extension Splashd.Options {
    /// The sync tests' daemon: devstack's backend and photo sources (the image tests need Unsplash's
    /// download tracking), and a fresh account unless `email` names one already signed up.
    static func sync(directory: String? = nil, email: String? = nil, config: String? = nil, environment: [String: String] = [:]) -> Self {
        Self(directory: directory, sources: true, account: email.map { .existing(email: $0) } ?? .signUp, config: config, environment: environment)
    }
}

/// Photos seeded into the store (the photo sources are another capability; these tests are about the
/// outbox), the push driven to the end, and the server's rows read back.
extension Splashd {
    /// The account's address (sync daemons always have one).
    var account: String { email ?? "" }

    /// Likes `photo` against a server without `migration`: the op is kept (not refused), its error and the
    /// journal name the migration, and the journal says each of `failures` too ("push failed").
    func expectLikeWaitsFor(migration: String, photo: String, journalAlsoSays failures: [String] = []) async throws {
        _ = try await client.send(PhotosLikeRequest(id: photo))
        let result = try await client.send(SyncNowRequest(wait: true, timeoutSeconds: 3))
        #expect(result.outcome != .drained && result.rejected == 0, "\(result)")
        let op = try #require(try await client.send(QueueListRequest()).ops.first)
        #expect(op.state != "rejected" && op.lastError?.contains(migration) == true, "\(op)")
        try await wait(for: "the journal to name the migration") {
            process.stderr.contains("lacks the migration \(migration)") && failures.allSatisfy(process.stderr.contains)
        }
        let listed = try await ctl(["queue"])
        #expect(listed.status == 0 && listed.stdout.contains(migration), "splashctl queue says why: \(listed.stdout)")
    }

    /// Seeds photos `unsplash:<prefix><n>` straight into the store.
    func seedPhotos(_ count: Int, prefix: String = "p", width: Int = 4000) throws -> [String] {
        try PhotoSeeder.seed(databasePath: databasePath, count: count, prefix: prefix, width: width)
    }

    /// Asks for a push, again until nothing is left to send (or `timeout`, in 200 ms steps).
    func syncUntilDrained(timeout: Duration = .seconds(30)) async throws -> SyncResult {
        try await eventually(tries: Int(timeout / .milliseconds(200)), every: .milliseconds(200), {
            try await client.send(SyncNowRequest(wait: true, timeoutSeconds: 10))
        }, until: \.drained)
    }

    /// The server's likes of this account: photo id → tombstoned?
    func serverLikes() async throws -> [String: Bool] {
        guard let devstack else { return [:] }
        let users = try await devstack.serviceRead("profiles?select=id&email=eq.\(account)")
        guard let userID = users.first?["id"] as? String else { return [:] }
        let rows = try await devstack.serviceRead("likes?select=photo_id,deleted_at&user_id=eq.\(userID)")
        var result: [String: Bool] = [:]
        for row in rows {
            let id = row["photo_id"] as? String ?? "?"
            precondition(result[id] == nil, "duplicate like row for \(id)")
            result[id] = !(row["deleted_at"] is NSNull)
        }
        return result
    }
}

/// Photos written straight into a daemon's store (photo sources are another capability).
enum PhotoSeeder {
    static func seed(databasePath: String, count: Int, prefix: String, width: Int = 4000) throws -> [String] {
        let store = try Store(path: databasePath)
        let records = (0..<count).map { n in
            PhotoRecord(source: .unsplash, remoteId: "\(prefix)\(n)", title: "Photo \(n)", authorName: "Ana", width: width, height: 3000,
                        color: "#2C5A8C", colorBucket: "blue", urls: #"{"thumb":"https://images.example/t.jpg"}"#, fetchedAt: Date())
        }
        try store.write { db in for record in records { try record.save(db) } }
        return records.map(\.id)
    }
}
