#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import HTTP
import Shared
import SplashClient
import Store
import Support
import Testing
import TestSupport

/// A second device pulls 300 likes and downloads their photos; it is killed with SIGKILL a third of
/// the way through. After the restart it finishes, and devstack's counters prove that no file it had
/// finished was downloaded again and that the cut ones resumed rather than started over.
@Suite(.serialized, .devstack(photos: 320)) struct BulkPullTests {
    static let count = 300

    @Test func killNineDuringA300FilePullThenTheRestartFetchesOnlyWhatWasMissing() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            let photos = try await a.seedCatalogue(count: Self.count)
            for photo in photos { _ = try await a.client.send(PhotosLikeRequest(id: photo.id)) }
            let pushed = try await a.syncUntilDrained(timeout: .seconds(60))
            #expect(pushed.drained)
            await a.stop()

            // Device B: its pull brings the 300 likes, its image queue the files.
            var b = try await fixture.splashd(.sync(email: a.account))
            let directory = b.directory
            _ = try await b.client.send(LoginRequest(email: a.account, password: Splashd.password))
            let third = try await b.waitForLibrary(files: Self.count / 3, timeout: .seconds(120))
            #expect(third.libraryFiles >= Self.count / 3)
            await b.kill9()

            // What B had finished, by its own database (a row exists only for a complete, verified file).
            let finished = try Store(path: directory + "/state/splashd.sqlite").read { db in
                try String.fetchAll(db, sql: "SELECT photo_id FROM photo_files WHERE variant = 'regular'")
            }
            #expect(finished.count >= Self.count / 3 && finished.count < Self.count, "\(finished.count) finished before the kill")
            let before = try await devstack.counters()

            b = try await fixture.splashd(.sync(directory: directory, email: a.account))
            let usage = try await b.waitForLibrary(files: Self.count, timeout: .seconds(180))
            #expect(usage.libraryFiles == Self.count)
            let after = try await devstack.counters()

            let requestsBefore = before["requests_by_path"] as? [String: Int] ?? [:]
            let requestsAfter = after["requests_by_path"] as? [String: Int] ?? [:]
            let refetched = finished.filter { id in
                let key = "GET /cdn/unsplash/photo-\(id.dropFirst("unsplash:".count))"
                return requestsAfter[key] != requestsBefore[key]
            }
            #expect(refetched.isEmpty, "finished files fetched again: \(refetched.prefix(5))")

            // Bytes after the restart: at most the files that were not finished (resumed parts count less).
            let byId = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0) })
            let missing = Set(photos.map(\.id)).subtracting(finished)
            struct FileRow: Sendable {
                var photoId: String
                var path: String
                var bytes: Int64
                var checksum: String?
            }
            let rows = try Store(path: directory + "/state/splashd.sqlite").read { db in
                try Row.fetchAll(db, sql: "SELECT photo_id, path, bytes, checksum FROM photo_files WHERE variant = 'regular'").map {
                    FileRow(photoId: $0["photo_id"], path: $0["path"], bytes: $0["bytes"], checksum: $0["checksum"])
                }
            }
            let missingBytes = rows.filter { missing.contains($0.photoId) }.reduce(Int64(0)) { $0 + $1.bytes }
            let served = Int64(((after["bytes_served"] as? [String: Int])?["GET /cdn/unsplash/{name}"] ?? 0)
                - ((before["bytes_served"] as? [String: Int])?["GET /cdn/unsplash/{name}"] ?? 0))
            print("kill -9 at \(finished.count)/\(Self.count): \(served) bytes served after the restart for \(missing.count) files of \(missingBytes) bytes")
            #expect(served <= missingBytes, "more came down than was missing")

            // Every file is whole: its SHA-256 matches its row, and a sample matches the server's bytes.
            #expect(rows.count == Self.count)
            for row in rows {
                let path = directory + "/data/" + row.path
                #expect(try FileDigest.sha256Hex(path: path) == row.checksum, "\(path)")
            }
            for id in missing.sorted().prefix(5) + finished.prefix(5) {
                let photo = try #require(byId[id])
                let onDisk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/data/library/unsplash/\(photo.remoteId).regular.jpg")))
                #expect(onDisk == (try await devstack.cdnBytes(photo.url)), "\(id)")
            }
            #expect(b.leftovers().isEmpty, "\(b.leftovers())")
            let integrity = try Store(path: directory + "/state/splashd.sqlite").read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
            #expect(integrity == "ok")
        }
    }
}
