#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import HTTP
import Shared
import SplashClient
import Store
import Testing
import TestSupport

/// Edits end to end against devstack: saved beside the original, uploaded to Storage where only the
/// owner can read them, converging to a second device, removed everywhere; bad input leaves nothing.
@Suite(.serialized, .devstack) struct EditTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("EditingTests/Fixtures")

    @Test func editIsSavedBesideTheOriginalUploadedAndOnlyTheOwnerCanReadIt() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)

            // Not liked, not downloaded: the edit fetches the original first.
            let steps = [FilterStep(filter: "sepia", params: [0.8]), FilterStep(filter: "vignette", params: [1, 0.6])]
            let edit = try await daemon.client.send(EditsCreateRequest(id: photo.id, filters: steps))
            #expect(edit.photoId == photo.id && edit.state == "pending")
            #expect(edit.filters == [FilterStep(filter: "sepia", params: [0.8]), FilterStep(filter: "vignette", params: [1, 0.6])])
            let path = try #require(edit.path)
            #expect(path == daemon.directory + "/data/library/unsplash/\(photo.remoteId).edit-\(edit.editId).jpg")
            let rendered = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(rendered.starts(with: [0xFF, 0xD8, 0xFF]) && Int64(rendered.count) == edit.bytes)

            // The original is untouched and in the library (an edited photo is a library photo; the image
            // queue may still be moving it back from the cache, where it went while it was nobody's).
            let original = daemon.directory + "/data/library/unsplash/\(photo.remoteId).regular.jpg"
            let shown = try await eventually { try await daemon.client.send(PhotosShowRequest(id: photo.id)) } until: { shown in
                shown.files.contains { $0.variant == "regular" && $0.location == .library && $0.present }
            }
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: original))) == (try await devstack.cdnBytes(photo.url)))
            #expect(Set(shown.files.map(\.variant)) == ["regular", "edit:\(edit.editId)"])
            #expect(try await daemon.client.send(PhotosListRequest(edited: true)).photos.map(\.id) == [photo.id])

            // Pushed: the server row and the Storage object, which is the rendering byte for byte.
            let result = try await daemon.syncUntilDrained()
            #expect(result.drained && result.rejected == 0)
            #expect(try await daemon.client.send(EditsListRequest()).edits.map(\.state) == ["synced"])
            let userId = try await daemon.userId()
            let rows = try await devstack.serviceRead("edits?select=id,photo_id,pipeline,storage_path,deleted_at&user_id=eq.\(userId)")
            #expect(rows.count == 1)
            #expect(rows.first?["id"] as? String == edit.editId && rows.first?["photo_id"] as? String == photo.id)
            #expect(rows.first?["storage_path"] as? String == "\(userId)/\(edit.editId).jpg")
            #expect(rows.first?["deleted_at"] is NSNull)
            let pipeline = rows.first?["pipeline"] as? [[String: Any]]
            #expect(pipeline?.map { $0["filter"] as? String } == ["sepia", "vignette"])

            let ownerToken = try await devstack.userToken(email: daemon.account, password: Splashd.password)
            let object = "\(userId)/\(edit.editId).jpg"
            let fetched = try await devstack.storageGet(object, token: ownerToken)
            #expect(fetched.status == 200 && fetched.body == rendered)

            // Another user cannot read it, overwrite it, or delete it.
            let other = "other-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let otherToken = try await devstack.signUp(email: other, password: Splashd.password)
            let stranger = try await devstack.storageGet(object, token: otherToken)
            #expect(stranger.status != 200 && stranger.body != rendered)
            let overwrite = try await devstack.storageSend("POST", object, token: otherToken, body: [0xFF, 0xD8, 0xFF, 0xD9], upsert: true)
            #expect(overwrite != 200)
            let remove = try await devstack.storageSend("DELETE", object, token: otherToken, body: nil, upsert: false)
            #expect(try await devstack.storageGet(object, token: ownerToken).body == rendered, "after a stranger's DELETE (HTTP \(remove))")
        }
    }

    @Test func editsConvergeToASecondDeviceAndRemovalReachesEverywhere() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            let photo = try #require(try await a.seedCatalogue(count: 1).first)
            let edit = try await a.client.send(EditsCreateRequest(id: photo.id, filters: [FilterStep(filter: "noir")]))
            _ = try await a.syncUntilDrained()
            // The edit took its photo to the server, as a like does (PhotoPushRow): B learns of it from there.
            // (Other suites on the same devstack push the same catalogue photos for their own users.)
            let userId = try await a.userId()
            let photoRows = try await devstack.serviceRead("photos?select=title,urls&photo_id=eq.\(photo.id)&user_id=eq.\(userId)")
            #expect(photoRows.count == 1 && (photoRows.first?["urls"] as? [String: Any])?.isEmpty == false, "\(photoRows)")

            // Device B: the same account, its own state. Its pull brings the edit, the rendering from
            // Storage and (through the image queue) the original.
            let b = try await fixture.splashd(.sync(email: a.account))
            _ = try await b.client.send(LoginRequest(email: a.account, password: Splashd.password))
            _ = try await b.syncUntilDrained()
            let onB = try await b.client.send(EditsListRequest()).edits
            #expect(onB.map(\.editId) == [edit.editId] && onB.first?.filters == [FilterStep(filter: "noir", params: [])])
            let pathOnB = try #require(onB.first?.path)
            #expect(pathOnB.hasPrefix(b.directory + "/data/library/"))
            let renderingOnA = try Data(contentsOf: URL(fileURLWithPath: try #require(edit.path)))
            #expect(FileManager.default.contents(atPath: pathOnB) == renderingOnA, "B: \(b.libraryFiles())")
            let usage = try await b.waitForUsage { $0.libraryFiles == 2 }
            #expect(usage.libraryFiles == 2, "the original came too: \(b.libraryFiles())")

            // Removed on A: the row is tombstoned, the object deleted, and B lets go of it at its next pull.
            let removal = try await a.client.send(EditsDeleteRequest(editId: edit.editId))
            #expect(removal.changed && removal.queued)
            #expect(!FileManager.default.fileExists(atPath: try #require(edit.path)))
            _ = try await a.syncUntilDrained()
            let rows = try await devstack.serviceRead("edits?select=deleted_at&id=eq.\(edit.editId)")
            #expect(rows.count == 1 && !(rows.first?["deleted_at"] is NSNull))
            let token = try await devstack.userToken(email: a.account, password: Splashd.password)
            #expect(try await devstack.storageGet("\(userId)/\(edit.editId).jpg", token: token).status != 200)
            _ = try await b.syncUntilDrained()
            #expect(try await b.client.send(EditsListRequest()).edits.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: pathOnB))
        }
    }

    @Test func anEditMadeWhileTheServerIsUnreachableWaitsAndGoesOutLater() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)
            _ = try await daemon.client.send(PhotosLikeRequest(id: photo.id))
            _ = try await daemon.waitForLibrary(files: 1)
            _ = try await daemon.syncUntilDrained()

            // Storage's connections reset: the edit is saved here all the same and waits in the outbox.
            try await devstack.faults(#"[{"path": "/storage/*", "action": "reset"}]"#)
            let edit = try await daemon.client.send(EditsCreateRequest(id: photo.id, filters: [FilterStep(filter: "mono")]))
            #expect(edit.state == "pending" && edit.path != nil)
            let stuck = try await daemon.client.send(SyncNowRequest(wait: true, timeoutSeconds: 5))
            #expect(!stuck.drained)
            #expect(try await daemon.client.send(EditsListRequest()).edits.map(\.state) == ["pending"])

            // `sync --wait` ends the op's backoff itself. (Retrying each listed op first raced the engine's
            // own next try: an op sent between the list and the retry was "no queued op".)
            try await devstack.clearFaults()
            let drained = try await daemon.syncUntilDrained()
            #expect(drained.drained)
            #expect(try await daemon.client.send(EditsListRequest()).edits.map(\.state) == ["synced"])
        }
    }

    @Test func badInputGetsAClearErrorAndLeavesNothing() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let ids = try daemon.seedPhotos(4, prefix: "bad")
            // Each photo's "original" is a fixture file: not an image, truncated, corrupt, 20,000 × 20,000.
            let originals = ["not-an-image.jpg", "truncated.jpg", "corrupt.jpg", "huge-header.png"]
            let store = try Store(path: daemon.databasePath)
            try store.write { db in
                for (id, name) in zip(ids, originals) {
                    try PhotoFileStore.record(db, PhotoFileStore.File(
                        photoId: id, variant: "regular", path: Self.fixtures.appendingPathComponent(name).path, inLibrary: true,
                        bytes: 1, checksum: nil, createdAt: Date(), lastAccessAt: Date()))
                }
            }
            let sepia = [FilterStep(filter: "sepia")]
            for (id, name) in zip(ids, originals) {
                let error = await Self.refusal { try await daemon.client.send(EditsCreateRequest(id: id, filters: sepia)) }
                let expected: ErrorKind = name == "huge-header.png" ? .tooLarge : .invalidInput
                #expect(error?.kind == expected, "\(name): \(String(describing: error))")
                #expect(error?.message.isEmpty == false)
                let preview = await Self.refusal { try await daemon.client.send(EditsPreviewRequest(id: id, filters: sepia, size: 64)) }
                #expect(preview?.kind == expected, "preview of \(name): \(String(describing: preview))")
            }
            let cases: [(EditsCreateRequest, ErrorKind)] = [
                (EditsCreateRequest(id: ids[0], filters: [FilterStep(filter: "posterize")]), .invalidInput),
                (EditsCreateRequest(id: ids[0], filters: [FilterStep(filter: "sepia", params: [2])]), .invalidInput),
                (EditsCreateRequest(id: ids[0], filters: []), .invalidInput),
                (EditsCreateRequest(id: "unsplash:nobody", filters: sepia), .notFound),
                (EditsCreateRequest(id: "not-an-id", filters: sepia), .invalidInput),
            ]
            for (request, kind) in cases {
                let error = await Self.refusal { try await daemon.client.send(request) }
                #expect(error?.kind == kind, "\(request): \(String(describing: error))")
            }
            #expect(await Self.refusal { try await daemon.client.send(EditsDeleteRequest(editId: UUID().uuidString)) }?.kind == .notFound)

            // Nothing anywhere: no rendering (not even a .part), no edit row, no op.
            #expect(daemon.libraryFiles().isEmpty, "\(daemon.libraryFiles())")
            let counts = try store.read { db in
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM edits") ?? -1, try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox") ?? -1,
                 try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "")
            }
            #expect(counts.0 == 0 && counts.1 == 0 && counts.2 == "ok")

            // A preview renders and saves nothing; signed out, previews work and an edit is the guest's:
            // kept here, queued for no server.
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)
            _ = try await daemon.client.send(PhotosLikeRequest(id: photo.id))
            _ = try await daemon.waitForLibrary(files: 1)
            let preview = try await daemon.client.send(EditsPreviewRequest(id: photo.id, filters: sepia, size: 64))
            #expect(max(preview.width, preview.height) == 64 && preview.jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
            #expect(daemon.libraryFiles().count == 1)
            _ = try await daemon.client.send(LogoutRequest())
            let guestEdit = try await daemon.client.send(EditsCreateRequest(id: photo.id, filters: sepia))
            #expect(guestEdit.state == "guest")
            #expect(try await daemon.client.send(GuestStatusRequest()) == GuestCounts(likes: 0, edits: 1))
            let queued = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE account_id = ''") }
            #expect(queued == 0)
        }
    }

    static func refusal<T>(_ body: () async throws -> T) async -> RPCError? {
        do {
            _ = try await body()
            return nil
        } catch let error as RPCError {
            return error
        } catch {
            return RPCError(code: ErrorKind.internalError.code, message: "\(error)", data: RPCError.Details(kind: .internalError))
        }
    }
}

extension Splashd {
    /// The account's user id, as the daemon reports it.
    func userId() async throws -> String {
        try #require(try await client.send(StatusRequest()).account.userId)
    }
}

extension Devstack {
    private static let userHTTP = try! HTTPClient(configuration: .init(version: "test"))

    /// A password sign-in straight against Auth: the user's access token.
    func userToken(email: String, password: String) async throws -> String {
        try await token(path: "/auth/v1/token?grant_type=password", email: email, password: password)
    }

    /// A new user, signed up straight against Auth: their access token.
    func signUp(email: String, password: String) async throws -> String {
        try await token(path: "/auth/v1/signup", email: email, password: password)
    }

    private func token(path: String, email: String, password: String) async throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["email": email, "password": password])
        let response = try await Self.userHTTP.send(HTTPRequest(
            method: "POST", url: backendURL + path, headers: [("apikey", anonKey), ("Content-Type", "application/json")],
            body: Array(body), timeout: .seconds(10)))
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        guard let token = object?["access_token"] as? String else {
            throw DevstackError.failed("\(path): HTTP \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return token
    }

    /// `GET /storage/v1/object/authenticated/edits/<name>` as a user.
    func storageGet(_ name: String, token: String) async throws -> (status: Int, body: [UInt8]) {
        let response = try await Self.userHTTP.send(HTTPRequest(
            url: backendURL + "/storage/v1/object/authenticated/edits/" + name,
            headers: [("apikey", anonKey), ("Authorization", "Bearer \(token)")], timeout: .seconds(10)))
        return (response.status, response.body)
    }

    /// An upload or delete in the edits bucket as a user; the HTTP status.
    func storageSend(_ method: String, _ name: String, token: String, body: [UInt8]?, upsert: Bool) async throws -> Int {
        var headers = [("apikey", anonKey), ("Authorization", "Bearer \(token)")]
        if body != nil { headers.append(("Content-Type", "image/jpeg")) }
        if upsert { headers.append(("x-upsert", "true")) }
        let response = try await Self.userHTTP.send(HTTPRequest(
            method: method, url: backendURL + "/storage/v1/object/edits/" + name, headers: headers, body: body, timeout: .seconds(10)))
        return response.status
    }
}
