#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import HTTP
import Shared
import SplashClient
import Store
import TestSupport

/// The image tests' daemon is the sync tests' one (`.sync`: Unsplash configured, a signed-up account),
/// with helpers for photos from devstack's catalogue whose URLs point at its /cdn.
extension Splashd {
    struct Photo: Sendable {
        var id: String
        var remoteId: String
        /// The regular rendition's URL.
        var url: String
    }

    /// Puts the first `count` photos of devstack's Unsplash catalogue into the store, URLs and all.
    func seedCatalogue(count: Int) async throws -> [Photo] {
        guard let devstack else { throw DevstackError.failed("seedCatalogue needs a daemon started with a devstack") }
        let objects = try await devstack.unsplashPhotos(count)
        let store = try Store(path: databasePath)
        var photos: [Photo] = []
        var records: [PhotoRecord] = []
        for object in objects {
            let id = object["id"] as? String ?? ""
            let urls = object["urls"] as? [String: String] ?? [:]
            let json = String(decoding: try JSONSerialization.data(withJSONObject: urls, options: [.sortedKeys]), as: UTF8.self)
            records.append(PhotoRecord(
                source: .unsplash, remoteId: id, title: object["alt_description"] as? String, authorName: "Ana",
                width: object["width"] as? Int, height: object["height"] as? Int, color: object["color"] as? String, urls: json,
                fetchedAt: Date()))
            photos.append(Photo(id: "unsplash:" + id, remoteId: id, url: urls["regular"] ?? ""))
        }
        try store.write { [records] db in for record in records { try record.save(db) } }
        return photos
    }

    /// Reads `cache.status` until the library holds `files` files (or `timeout`, in 50 ms steps).
    func waitForLibrary(files: Int, timeout: Duration = .seconds(30)) async throws -> CacheUsage {
        try await waitForUsage(timeout: timeout) { $0.libraryFiles >= files }
    }

    /// Reads `cache.status` until `done` holds (or `timeout`, in 50 ms steps).
    func waitForUsage(timeout: Duration = .seconds(20), _ done: (CacheUsage) -> Bool) async throws -> CacheUsage {
        try await eventually(tries: Int(timeout / .milliseconds(50)), every: .milliseconds(50), {
            try await client.send(CacheStatusRequest())
        }, until: done)
    }

    /// Reads `photos.show` until every photo has reported a failed download (or `timeout`, in 50 ms
    /// steps); the download state each reported first.
    func waitForFailures(_ ids: [String], timeout: Duration = .seconds(20)) async throws -> [String: DownloadStatus] {
        var seen: [String: DownloadStatus] = [:]
        return try await eventually(tries: Int(timeout / .milliseconds(50)), every: .milliseconds(50), {
            for id in ids where seen[id] == nil {
                if let download = try await client.send(PhotosShowRequest(id: id)).download, download.state == .waiting { seen[id] = download }
            }
            return seen
        }, until: { $0.count == ids.count })
    }

    /// Every file under the library directory.
    func libraryFiles() -> [String] {
        let root = directory + "/data/library"
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(path) }
        }
        return files.sorted()
    }

    /// Library files that are not finished JPEGs (.part, staged downloads).
    func leftovers() -> [String] { libraryFiles().filter { !$0.hasSuffix(".jpg") } }

    /// utime + stime of a process, in clock ticks (/proc/<pid>/stat fields 14 and 15).
    static func cpuTicks(_ pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command name: field 3 is fields[0], so utime (14) and stime (15) are fields[11] and [12].
        guard fields.count > 12 else { return 0 }
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    /// Whether the daemon has libvips in its address space (/proc/<pid>/maps): it opens the library at its
    /// first picture, never at start (CVips).
    /// (Read to its end: `String(contentsOfFile:)` stops after the first 4 KiB of a file in /proc.)
    var hasLoadedLibvips: Bool {
        let maps = FileHandle(forReadingAtPath: "/proc/\(process.pid)/maps").map { $0.readDataToEndOfFile() } ?? Data()
        return String(decoding: maps, as: UTF8.self).contains("/libvips.so")
    }

    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }
}

extension Devstack {
    private static let plainHTTP = try! HTTPClient(configuration: .init(version: "test"))

    /// `POST /_devstack/reset`: faults, counters and knobs back to nothing (the suite shares one instance).
    func reset() async throws {
        let response = try await Self.plainHTTP.send(HTTPRequest(method: "POST", url: controlURL + "/_devstack/reset", timeout: .seconds(10)))
        guard response.status == 200 else { throw DevstackError.failed("reset: HTTP \(response.status)") }
    }

    /// `GET /_devstack/counters`.
    func counters() async throws -> [String: Any] {
        let response = try await Self.plainHTTP.send(HTTPRequest(url: controlURL + "/_devstack/counters", timeout: .seconds(10)))
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    /// The first `count` photos of the Unsplash catalogue, as the API returns them (30 a page).
    func unsplashPhotos(_ count: Int) async throws -> [[String: Any]] {
        let key = env["SPLASHD_UNSPLASH_ACCESS_KEY"] ?? ""
        var photos: [[String: Any]] = []
        var page = 1
        while photos.count < count {
            let perPage = min(30, count - photos.count)
            // Pages of the same size, so that page N starts where N-1 stopped.
            let size = count <= 30 ? count : 30
            let response = try await Self.plainHTTP.send(HTTPRequest(
                url: (env["SPLASHD_UNSPLASH_API_URL"] ?? "") + "/photos?per_page=\(size)&page=\(page)&order_by=oldest",
                headers: [("Authorization", "Client-ID \(key)")], timeout: .seconds(10)))
            let batch = (try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]) ?? []
            guard !batch.isEmpty else { break }
            photos += batch.prefix(perPage)
            page += 1
        }
        guard photos.count == count else { throw DevstackError.failed("asked for \(count) photos, got \(photos.count)") }
        return photos
    }

    /// A CDN file's bytes, fetched directly (counted by devstack like any other request).
    func cdnBytes(_ url: String) async throws -> [UInt8] {
        let response = try await Self.plainHTTP.send(HTTPRequest(url: url, timeout: .seconds(30)))
        guard response.status == 200 else { throw DevstackError.failed("GET \(url): HTTP \(response.status)") }
        return response.body
    }
}
