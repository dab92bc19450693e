import Foundation
import Shared
import SplashClient
import Store
import TestSupport

/// A real splashd against devstack, with a signed-up account and photos seeded into its store (the
/// photo sources are another capability; these tests are about the outbox).
final class SyncDaemon: Sendable {
    let directory: String
    let devstack: Devstack
    let email: String
    let process: DaemonProcess
    let client: SplashClient

    var databasePath: String { directory + "/state/splashd.sqlite" }

    private init(directory: String, devstack: Devstack, email: String, process: DaemonProcess, client: SplashClient) {
        self.directory = directory
        self.devstack = devstack
        self.email = email
        self.process = process
        self.client = client
    }

    /// Starts a daemon in `directory` (a new one when nil); signs up a fresh account when `email` is nil.
    /// The Unsplash API is configured too (the image tests need its download tracking); `config` is
    /// written as the daemon's config file.
    static func start(
        devstack: Devstack, directory: String? = nil, email: String? = nil, config: String? = nil, environment extra: [String: String] = [:]
    ) async throws -> SyncDaemon {
        let dir = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("splashd-sync-\(UUID().uuidString.prefix(8))").path
        var environment = devstack.daemonEnvironment.merging(extra) { _, new in new }
        environment["SPLASHD_UNSPLASH_API_URL"] = devstack.env["SPLASHD_UNSPLASH_API_URL"]
        environment["SPLASHD_UNSPLASH_ACCESS_KEY"] = devstack.env["SPLASHD_UNSPLASH_ACCESS_KEY"]
        var arguments: [String] = []
        if let config {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try config.write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
            arguments = ["--config", dir + "/config.toml"]
        }
        let process = try DaemonProcess(directory: dir, arguments: arguments, environment: environment, withNotifySocket: false)
        let client = try await process.waitUntilListening()
        var account = email
        if account == nil {
            let fresh = "sync-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            _ = try await client.send(SignupRequest(email: fresh, password: "correct horse battery", username: "u" + UUID().uuidString.prefix(8).lowercased()))
            account = fresh
        }
        return SyncDaemon(directory: dir, devstack: devstack, email: account!, process: process, client: client)
    }

    /// Seeds photos `unsplash:<prefix><n>` straight into the store.
    func seedPhotos(_ count: Int, prefix: String = "p", width: Int = 4000) throws -> [String] {
        try PhotoSeeder.seed(databasePath: databasePath, count: count, prefix: prefix, width: width)
    }

    /// Asks for a push and waits until nothing is left to send (or the deadline).
    func syncUntilDrained(timeout: Duration = .seconds(30)) async throws -> SyncResult {
        let deadline = ContinuousClock.now + timeout
        var last = try await client.send(SyncNowRequest(wait: true, timeoutSeconds: 10))
        while !last.drained, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            last = try await client.send(SyncNowRequest(wait: true, timeoutSeconds: 10))
        }
        return last
    }

    /// The server's likes of this account: photo id → tombstoned?
    func serverLikes() async throws -> [String: Bool] {
        let users = try await devstack.serviceRead("profiles?select=id&email=eq.\(email)")
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

    func stop() async {
        await client.close()
        process.signal(SIGTERM)
        _ = await process.waitForExit()
    }
}

import Glibc
import GRDB

/// Photos written straight into a daemon's store (photo sources are another capability).
enum PhotoSeeder {
    static func seed(databasePath: String, count: Int, prefix: String, width: Int = 4000) throws -> [String] {
        let store = try Store(path: databasePath)
        let records = (0..<count).map { n in
            PhotoRecord(source: "unsplash", remoteId: "\(prefix)\(n)", title: "Photo \(n)", authorName: "Ana", width: width, height: 3000,
                        color: "#2C5A8C", colorBucket: "blue", urls: #"{"thumb":"https://images.example/t.jpg"}"#, fetchedAt: Date())
        }
        try store.write { db in for record in records { try record.save(db) } }
        return records.map(\.id)
    }
}
