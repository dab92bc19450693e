#if canImport(Glibc)
import Glibc
#endif
import Editing
import Foundation
import HTTP
import Shared
import SplashClient
import Testing
import TestSupport

/// `splashctl import`: local folders into the library, near-duplicates skipped, every bad file
/// reported while the rest goes on; and a saved remote photo that duplicates a local one reported.
@Suite(.serialized, .devstack) struct ImportTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("EditingTests/Fixtures")
    static let http = try! HTTPClient(configuration: .init(version: "test"))

    /// Three different photos from devstack's catalogue, as files.
    static func catalogueFiles(_ devstack: Devstack, into folder: String) async throws -> [(id: String, path: String)] {
        let key = devstack.env["SPLASHD_UNSPLASH_ACCESS_KEY"] ?? ""
        let list = try await http.send(HTTPRequest(
            url: (devstack.env["SPLASHD_UNSPLASH_API_URL"] ?? "") + "/photos?per_page=3&order_by=oldest",
            headers: [("Authorization", "Client-ID \(key)")], timeout: .seconds(10)))
        let photos = try #require(try JSONSerialization.jsonObject(with: Data(list.body)) as? [[String: Any]])
        var files: [(String, String)] = []
        for (index, photo) in photos.enumerated() {
            let url = try #require((photo["urls"] as? [String: String])?["small"])
            let body = try await http.send(HTTPRequest(url: url, timeout: .seconds(30))).body
            let path = folder + "/photo\(index).jpg"
            try Data(body).write(to: URL(fileURLWithPath: path))
            files.append(("unsplash:" + (photo["id"] as? String ?? ""), path))
        }
        return files
    }

    @Test func aFolderIsImportedDuplicatesSkippedAndBadFilesReported() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let folder = daemon.directory + "/Pictures"
            try FileManager.default.createDirectory(atPath: folder + "/trip", withIntermediateDirectories: true)
            let photos = try await Self.catalogueFiles(devstack, into: folder)
            // Near-duplicates of photo0: re-encoded, and a little brighter.
            let editor = ImageEditor()
            let source = URL(fileURLWithPath: photos[0].path)
            try (try await editor.render(source: source, steps: [])).jpeg.write(to: URL(fileURLWithPath: folder + "/zz-photo0-copy.jpg"))
            try (try await editor.render(source: source, steps: [FilterStep(filter: "color", params: [0.04, 1, 1])])).jpeg
                .write(to: URL(fileURLWithPath: folder + "/trip/photo0-brighter.jpg"))
            // The same bytes under another name; a damaged file; a huge one; not an image; a link loop.
            try FileManager.default.copyItem(atPath: photos[1].path, toPath: folder + "/trip/same-as-photo1.jpg")
            try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("truncated.jpg").path, toPath: folder + "/broken.jpg")
            try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("huge-header.png").path, toPath: folder + "/huge.png")
            try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("not-an-image.jpg").path, toPath: folder + "/page.jpg")
            try "notes".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: folder + "/trip/loop", withDestinationPath: folder)

            let result = try await client.send(LibraryImportRequest(path: folder, recursive: true))
            #expect(Set(result.imported.map(\.path)) == Set(photos.map(\.path)))
            #expect(result.imported.allSatisfy { $0.id.hasPrefix("local:") && $0.width > 0 && $0.height > 0 })
            #expect(Set(result.duplicates.map(\.path)) == [folder + "/zz-photo0-copy.jpg", folder + "/trip/photo0-brighter.jpg"])
            let photo0 = try #require(result.imported.first { $0.path == photos[0].path })
            #expect(result.duplicates.allSatisfy { $0.duplicateOf == photo0.id && $0.distance <= 8 })
            #expect(result.alreadyImported == 1 && result.ignored == 1)
            let failed = Dictionary(uniqueKeysWithValues: result.failed.map { ($0.path, $0.error) })
            #expect(Set(failed.keys) == [folder + "/broken.jpg", folder + "/huge.png", folder + "/page.jpg", folder + "/trip/loop"], "\(failed)")
            #expect(failed[folder + "/broken.jpg"]?.contains("damaged") == true)
            #expect(failed[folder + "/huge.png"]?.contains("400 MP") == true)
            #expect(failed[folder + "/page.jpg"]?.contains("not an image") == true)
            #expect(failed[folder + "/trip/loop"]?.contains("loop") == true)

            // In the library, pointing at the files where they are.
            let local = try await client.send(PhotosListRequest(source: .local))
            #expect(Set(local.photos.map(\.id)) == Set(result.imported.map(\.id)))
            let shown = try await client.send(PhotosShowRequest(id: photo0.id))
            #expect(shown.files.map(\.path) == [photos[0].path] && shown.files.first?.present == true && shown.files.first?.location == .library)
            #expect(shown.width == photo0.width && shown.title == "photo0")

            // Again: nothing new, nothing duplicated; the originals were never moved.
            let again = try await client.send(LibraryImportRequest(path: folder, recursive: true))
            #expect(again.imported.isEmpty && again.alreadyImported == 4 && again.duplicates.count == 2)
            #expect(try await client.send(PhotosListRequest(source: .local)).total == 3)
            for photo in photos { #expect(FileManager.default.fileExists(atPath: photo.path)) }

            // Bad requests.
            await #expect(throws: RPCError.self) { try await client.send(LibraryImportRequest(path: "relative/path")) }
            do {
                _ = try await client.send(LibraryImportRequest(path: daemon.directory + "/nowhere"))
                Issue.record("a missing folder was accepted")
            } catch let error as RPCError {
                #expect(error.kind == .notFound)
            }
        }
    }

    @Test func aLikedRemotePhotoThatDuplicatesALocalOneIsReported() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            // A photo from a search, saved as a local file — re-encoded a little brighter — and imported.
            // (devstack draws each rendition afresh, so only the same rendition looks the same.)
            let found = try await client.send(PhotosSearchRequest(query: "lake", perPage: 3))
            let remote = try #require(found.photos.first).id
            let regular = try #require(try await client.send(PhotosShowRequest(id: remote)).urls["regular"])
            let downloaded = daemon.directory + "/download.jpg"
            try Data(try await Self.http.send(HTTPRequest(url: regular, timeout: .seconds(30))).body).write(to: URL(fileURLWithPath: downloaded))
            let path = daemon.directory + "/lake.jpg"
            try (try await ImageEditor().render(source: URL(fileURLWithPath: downloaded), steps: [FilterStep(filter: "color", params: [0.04, 1, 1])]))
                .jpeg.write(to: URL(fileURLWithPath: path))
            let imported = try await client.send(LibraryImportRequest(path: path))
            let local = try #require(imported.imported.first)

            // Liked: its library file arrives, is hashed, and is found to look like the local one.
            _ = try await client.send(SignupRequest(
                email: "dup-\(UUID().uuidString.prefix(8).lowercased())@example.com", password: Splashd.password,
                username: "d" + UUID().uuidString.prefix(8).lowercased()))
            _ = try await client.send(PhotosLikeRequest(id: remote))
            let duplicates = try await eventually(tries: 200) {
                try await client.send(PhotosShowRequest(id: remote)).duplicates ?? []
            } until: { !$0.isEmpty }
            #expect(duplicates.first?.id == local.id, "\(duplicates)")
        }
    }

    @Test func photosShowCompletesDetailsOnceOnline() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let found = try await client.send(PhotosSearchRequest(query: "lake", perPage: 5))
            let photo = try #require(found.photos.first)
            let shown = try await client.send(PhotosShowRequest(id: photo.id))
            #expect(shown.attribution == "Photo by \(shown.author ?? "?") on Unsplash")
            #expect(shown.exif?.make != nil && shown.exif?.model != nil, "\(String(describing: shown.exif))")
            #expect(shown.pageUrl?.contains(photo.id.dropFirst("unsplash:".count)) == true)
            #expect(shown.tags?.isEmpty == false)

            let nasa = try await client.send(PhotosSearchRequest(query: "mars", source: .nasa, perPage: 3))
            let first = try #require(nasa.photos.first)
            let nasaShown = try await client.send(PhotosShowRequest(id: first.id))
            #expect(Set(nasaShown.urls.keys).isSuperset(of: ["orig", "large", "medium", "small", "thumb"]), "\(nasaShown.urls.keys)")
            #expect(nasaShown.attribution?.hasPrefix("Image courtesy of") == true)
        }
    }

    /// `import DIR --watch`: photos copied in afterwards are imported as they appear (a new subfolder
    /// too), with the same checks (the same bytes again are not imported twice, a note is ignored);
    /// across a restart, what arrived while splashd was stopped is imported at its start; `--watching`
    /// lists the folder and `--unwatch` stops it.
    @Test func aWatchedFolderImportsPhotosAsTheyAppearAcrossRestarts() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            var daemon = try await fixture.splashd(.init(sources: true))
            let directory = daemon.directory
            let folder = directory + "/Camera"
            let stash = directory + "/stash"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: stash, withIntermediateDirectories: true)
            let photos = try await Self.catalogueFiles(devstack, into: stash)
            try FileManager.default.copyItem(atPath: photos[0].path, toPath: folder + "/a.jpg")
            let first = try await daemon.client.send(LibraryImportRequest(path: folder, recursive: true, watch: true))
            #expect(first.imported.count == 1)
            func local() async throws -> Set<String> {
                Set(try await daemon.client.send(PhotosListRequest(source: .local, limit: 100)).photos.map(\.id))
            }
            #expect(try await local().count == 1)

            // Written in place (closed after writing), moved in, in a new subfolder; a copy of bytes
            // already imported and a note change nothing.
            try FileManager.default.copyItem(atPath: photos[1].path, toPath: folder + "/b.jpg")
            try FileManager.default.createDirectory(atPath: folder + "/trip", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: photos[2].path, toPath: stash + "/c.jpg")
            try FileManager.default.moveItem(atPath: stash + "/c.jpg", toPath: folder + "/trip/c.jpg")
            try FileManager.default.copyItem(atPath: photos[0].path, toPath: folder + "/a-again.jpg")
            try "notes".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
            try await daemon.wait(for: "the new photos to be imported") { try await local().count == 3 }
            let watching = try await daemon.ctl(["import", "--watching"])
            #expect(watching.status == 0 && watching.stdout.contains(folder), "\(watching)")

            // Stopped: a photo arrives meanwhile (a negative: not a near-duplicate of its original);
            // started again, it is imported.
            await daemon.stop()
            let edited = try await ImageEditor().render(source: URL(fileURLWithPath: photos[1].path), steps: [FilterStep(filter: "invert", params: [])])
            try edited.jpeg.write(to: URL(fileURLWithPath: folder + "/while-stopped.jpg"))
            daemon = try await fixture.splashd(.init(directory: directory, sources: true))
            try await daemon.wait(for: "the photo that came while splashd was stopped") { try await local().count == 4 }

            let unwatched = try await daemon.ctl(["import", "--unwatch", folder])
            #expect(unwatched.status == 0 && unwatched.stdout.contains("No folder is watched"), "\(unwatched)")
            let later = try await ImageEditor().render(source: URL(fileURLWithPath: photos[2].path), steps: [FilterStep(filter: "invert", params: [])])
            try later.jpeg.write(to: URL(fileURLWithPath: folder + "/after-unwatch.jpg"))
            try await Task.sleep(for: .seconds(2))
            #expect(try await local().count == 4, "a folder no longer watched imports nothing")
            #expect(await daemon.error(LibraryUnwatchRequest(path: folder))?.kind == .notFound)
        }
    }
}
