import Foundation
import GRDB
import HTTP
import Shared
import Store
import Testing
import TestSupport

/// `import --google-photos` against devstack's Picker API: the person picks by
/// opening the session's pickerUri (`?pick=N&videos=K&twin=I`: photo I is photo I-1 re-encoded).
@Suite(.serialized, .devstack) struct GooglePhotosImportTests {
    static let person = GoogleConnectTests.browser
    static let config = "[google]\npicker_page_size = 2\n"

    /// A connected daemon whose picking sessions are polled every fifth of a second.
    static func connected(_ fixture: SplashdFixture, directory: String? = nil) async throws -> Splashd {
        let daemon = try await fixture.splashd(.sync(directory: directory, config: config))
        try await daemon.devstack?.knobs(["picker_poll_interval": 0.2])
        #expect(try await GoogleConnectTests.connect(daemon).connected)
        return daemon
    }

    static func pick(_ start: GooglePickStart, _ query: String) async throws {
        let picked = try await person.send(HTTPRequest(url: start.pickerUri + "?" + query, timeout: .seconds(10)))
        #expect(picked.status == 200)
    }

    static func ended(_ daemon: Splashd, _ start: GooglePickStart) async throws -> GooglePicks {
        var picks = try await daemon.send(GooglePicksRequest(session: start.session, waitSeconds: 60))
        if picks.state == "importing" || picks.state == "picking" { picks = try await daemon.send(GooglePicksRequest(session: start.session, waitSeconds: 60)) }
        return picks
    }

    @Test func picksListedOverPagesArriveWithTheNearDuplicateRefusedAndTheVideoSkipped() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await Self.connected(fixture)
            let devstack = try #require(daemon.devstack)
            let start = try await daemon.send(GooglePickRequest())
            #expect(try await daemon.send(GooglePicksRequest(session: start.session)).state == "picking")
            try await Self.pick(start, "pick=5&videos=1&twin=3")

            let picks = try await Self.ended(daemon, start)
            #expect(picks.state == "done" && picks.total == 6, "\(picks)")
            #expect(picks.imported == 4 && picks.duplicates == 1 && picks.skipped == 1 && picks.failed == 0, "\(picks)")
            #expect(try await devstack.requests("GET /google/v1/mediaItems") >= 3, "six items, two a page")
            #expect(try await devstack.requests("DELETE /google/v1/sessions/{id}") == 1, "the session deleted when done")
            let twin = try #require(picks.picks.first { $0.state == "duplicate" })
            #expect(twin.photo == picks.picks[2].photo && twin.photo?.hasPrefix("google:") == true, "photo 3 is photo 2 again")
            #expect(picks.picks[5].state == "skipped" && picks.picks[5].detail?.contains("video") == true)

            let listed = try await daemon.send(PhotosListRequest(source: .google))
            #expect(listed.total == 4 && Set(listed.photos.map(\.id)) == Set(picks.picks.compactMap { $0.state == "imported" ? $0.photo : nil }))
            let files = try FileManager.default.contentsOfDirectory(atPath: daemon.directory + "/data/library/google")
            #expect(files.count == 4 && files.allSatisfy { $0.hasSuffix(".orig.jpg") }, "\(files): no piece left, the near-duplicate not kept")
            let shown = try await daemon.send(PhotosShowRequest(id: try #require(picks.picks[0].photo)))
            #expect(shown.files.first?.present == true && shown.files.first?.location == .library)
            // A picked photo is in the library the next imports compare with: the same picture from a folder
            // is a near-duplicate of it.
            let folder = daemon.directory + "/Pictures"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let first = try #require(picks.picks[0].photo)
            let original = try #require(try await daemon.send(PhotosShowRequest(id: first)).files.first?.path)
            try FileManager.default.copyItem(atPath: original, toPath: folder + "/copy.jpg")
            let fromFolder = try await daemon.send(LibraryImportRequest(path: folder))
            #expect(fromFolder.imported.isEmpty && fromFolder.duplicates.first?.duplicateOf == first, "\(fromFolder)")
            // The library's counts follow the import, as a folder's do.
            try await daemon.wait(for: "the library's file count") { try await daemon.send(StatusRequest()).library.files >= 4 }
        }
    }

    /// Picks are whole files: they wait while downloads are held (here the person's pause of downloads;
    /// a metered network holds them the same way), and come once the hold ends.
    @Test func picksWaitWhileDownloadsAreHeld() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await Self.connected(fixture)
            _ = try await daemon.send(SyncPauseRequest(downloadsOnly: true))
            let start = try await daemon.send(GooglePickRequest())
            try await Self.pick(start, "pick=2")
            try await daemon.wait(for: "the picks listed") {
                try await daemon.send(GooglePicksRequest(session: start.session)).state == "importing"
            }
            try await Task.sleep(for: .seconds(1))  // a pick would have been fetched by now
            #expect(try await daemon.send(GooglePicksRequest(session: start.session)).imported == 0)
            let library = daemon.directory + "/data/library/google"
            #expect((try? FileManager.default.contentsOfDirectory(atPath: library))?.isEmpty ?? true, "nothing downloaded while held")

            _ = try await daemon.send(SyncResumeRequest())
            let picks = try await Self.ended(daemon, start)
            #expect(picks.state == "done" && picks.imported == 2, "\(picks)")
        }
    }

    /// Nobody picks in time: the session expires, with the reason, and nothing is left waiting.
    @Test func aSessionNobodyPicksInExpires() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await Self.connected(fixture)
            try await daemon.devstack?.knobs(["picker_session_timeout": 1])
            fixture.onCleanup { try? await daemon.devstack?.knobs(["picker_session_timeout": 1800]) }
            let start = try await daemon.send(GooglePickRequest())
            let picks = try await Self.ended(daemon, start)
            #expect(picks.state == "expired" && picks.detail?.contains("time was up") == true && picks.total == 0, "\(picks)")
            let shown = try await daemon.ctl(["import", "--google-photos", "--no-browser"], stdin: "")
            #expect(shown.status != 0 && shown.stdout.contains("the picking session ended"), "\(shown.stdout) \(shown.stderr)")
        }
    }

    /// Killed with a download half done (its .part on disk): the next start goes on — the piece
    /// resumed, nothing imported twice.
    @Test func killedInTheMiddleOfTheDownloadsItGoesOnAtTheNextStart() async throws {
        try await SplashdFixture.run { fixture in
            var daemon = try await Self.connected(fixture)
            let devstack = try #require(daemon.devstack)
            let directory = daemon.directory
            let head = 32_768
            try await devstack.faults("""
                [{"path": "/google/media/*", "action": "stall", "truncate_bytes": \(head), "stall_seconds": 120, "times": 1}]
                """)
            fixture.onCleanup { try? await devstack.clearFaults() }
            let servedBefore = Int64(((try await devstack.counters())["bytes_served"] as? [String: Int])?["GET /google/media/{rest}"] ?? 0)
            let start = try await daemon.send(GooglePickRequest())
            try await Self.pick(start, "pick=4")
            let folder = directory + "/data/library/google"
            let part = await eventually(tries: 400, every: .milliseconds(50)) {
                ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).first { $0.hasSuffix(".download.part") }
            } until: { name in name.map { Splashd.size(folder + "/" + $0) == Int64(head) } ?? false }
            #expect(part != nil, "a download stalled half way")
            await daemon.kill9()
            try await devstack.clearFaults()

            daemon = try await fixture.splashd(.sync(directory: directory, email: daemon.account, config: Self.config))
            let picks = try await Self.ended(daemon, start)
            #expect(picks.state == "done" && picks.imported == 4 && picks.failed == 0, "\(picks)")
            #expect(try await daemon.send(PhotosListRequest(source: .google)).total == 4)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(files.count == 4 && files.allSatisfy { $0.hasSuffix(".orig.jpg") }, "\(files)")
            // The stalled download went on from its piece (a Range from its .part): devstack counts the stalled
            // answer whole, so what was served is every file once plus that one file less its piece.
            let sizes = files.map { Splashd.size(folder + "/" + $0) ?? 0 }
            let served = Int64(((try await devstack.counters())["bytes_served"] as? [String: Int])?["GET /google/media/{rest}"] ?? 0) - servedBefore
            let again = served - sizes.reduce(0, +)
            #expect(sizes.contains(again + Int64(head)), "\(again) bytes served twice: not one file less its piece of \(head) (\(sizes))")
            let rows = try Store(path: daemon.databasePath).read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM photo_files WHERE photo_id LIKE 'google:%'") ?? 0
            }
            #expect(rows == 4, "nothing recorded twice")
        }
    }

    /// Google ends the connection behind splashd's back: the session stops with the reason and what was
    /// imported before stays. A baseUrl refused is listed again once: refused twice, its pick fails with
    /// the reason instead of being asked for ever.
    @Test func aRevokedGrantAndExpiredDownloadAddressesEndClearly() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await Self.connected(fixture)
            let devstack = try #require(daemon.devstack)

            try await devstack.knobs(["picker_base_url_lifetime": 0])
            var start = try await daemon.send(GooglePickRequest())
            try await Self.pick(start, "pick=2")
            var picks = try await Self.ended(daemon, start)
            #expect(picks.state == "done" && picks.failed == 2 && picks.picks.allSatisfy { $0.detail?.contains("refused twice") == true }, "\(picks)")
            try await devstack.knobs(["picker_base_url_lifetime": 3600])

            // Refused once (its hour up, as Google says it with 403): listed again, and the fresh address works.
            try await devstack.faults(#"[{"path": "/google/media/*", "status": 403, "times": 1}]"#)
            start = try await daemon.send(GooglePickRequest())
            try await Self.pick(start, "pick=1")
            picks = try await Self.ended(daemon, start)
            try await devstack.clearFaults()
            #expect(picks.state == "done" && picks.imported == 1, "\(picks)")
            #expect(try await daemon.send(PhotosListRequest(source: .google)).total == 1)

            start = try await daemon.send(GooglePickRequest())
            try await Self.pick(start, "pick=1")
            #expect(try await Self.ended(daemon, start).imported == 1)

            start = try await daemon.send(GooglePickRequest())
            let refresh = try #require(try GoogleConnectTests.tokens(daemon)["refreshToken"] as? String)
            _ = try await Self.person.send(HTTPRequest(
                method: "POST", url: try #require(devstack.env["SPLASHD_GOOGLE_REVOKE_URL"]),
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array("token=\(refresh)".utf8)))
            try await Self.pick(start, "pick=2")
            picks = try await Self.ended(daemon, start)
            #expect(picks.state == "failed" && picks.detail?.contains("refresh token") == true, "\(picks)")
            #expect(try await daemon.send(GoogleStatusRequest()).connected == false)
            #expect(try await daemon.send(PhotosListRequest(source: .google)).total == 2, "what was imported stays")
        }
    }
}
