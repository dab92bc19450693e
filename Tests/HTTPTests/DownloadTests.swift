import Foundation
import Synchronization
import Support
import Testing
@testable import HTTP

/// Streaming downloads: atomic rename, resume with Range, restart on 200, truncation, size and checksum.
@Suite final class DownloadTests {
    private let size = 100_000
    /// Swift Testing makes one instance per test, so each test gets its own directory, removed afterwards.
    private let directory: String

    init() throws { directory = try temporaryDirectory() }
    deinit { try? FileManager.default.removeItem(atPath: directory) }

    private func read(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }
    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test func downloadsAtomicallyWithProgressAndChecksum() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            let last = Mutex<(Int64, Int64?)>((0, nil))
            let result = try await client.download(
                HTTPRequest(url: server.url("/file?size=\(size)")), to: destination, expectedSize: Int64(size),
                expectedSHA256: SHA256.hash(fileBytes(size)), progress: { done, total in last.withLock { $0 = (done, total) } })
            #expect(result == DownloadResult(path: destination, size: Int64(size), resumedFrom: 0, sha256: SHA256.hash(fileBytes(size))))
            #expect(read(destination) == fileBytes(size))
            #expect(!exists(destination + ".part"))
            #expect(last.withLock { $0 } == (Int64(size), Int64(size)))
        }
    }

    /// A body over `maxBytes` is refused whether announced (Content-Length) or endless, and nothing of
    /// it stays on disk (the chaos suite's hostile CDN once put a 256 MiB "JPEG" into the library).
    @Test(arguments: ["/big?n=10000000", "/endless"])
    func refusesABodyOverTheLimitAndKeepsNothing(path: String) async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            await #expect(throws: HTTPError.tooLarge(limit: 1 << 20)) {
                try await client.download(HTTPRequest(url: server.url(path)), to: destination, maxBytes: 1 << 20)
            }
            #expect(!exists(destination) && !exists(destination + ".part"))
        }
    }

    @Test func resumesFromAPartFile() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            try Data(fileBytes(size).prefix(size / 2)).write(to: URL(fileURLWithPath: destination + ".part"))
            let first = Mutex<(Int64, Int64?)?>(nil)
            let result = try await client.download(
                HTTPRequest(url: server.url("/file?size=\(size)")), to: destination, expectedSize: Int64(size),
                progress: { done, total in first.withLock { if $0 == nil { $0 = (done, total) } } })
            #expect(result.resumedFrom == Int64(size / 2))
            #expect(read(destination) == fileBytes(size))
            // The digest is the whole file's: the resumed half read back, the rest hashed as it arrived.
            #expect(result.sha256 == SHA256.hash(fileBytes(size)))
            #expect(first.withLock { $0 }.map { $0 == (Int64(size / 2), Int64(size)) } == true)
            let ranges = try await server.stats(using: client)["ranges"] as? [String?]
            #expect(ranges == ["bytes=\(size / 2)-"])
        }
    }

    /// The sink's writes end on a block's edge, the bytes past it waiting for the next piece: a body resumed
    /// at an offset inside a block still lands byte for byte.
    @Test func resumesABodyOfManyBlocksFromInsideABlock() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            let size = 1 << 20 + 12_345
            let resumedAt = 100 * FileSink.blockBytes + 1_001
            try Data(fileBytes(size).prefix(resumedAt)).write(to: URL(fileURLWithPath: destination + ".part"))
            let result = try await client.download(
                HTTPRequest(url: server.url("/file?size=\(size)")), to: destination, expectedSize: Int64(size),
                expectedSHA256: SHA256.hash(fileBytes(size)))
            #expect(result.resumedFrom == Int64(resumedAt))
            #expect(read(destination) == fileBytes(size))
        }
    }

    @Test func restartsWhenTheServerIgnoresRange() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            // Garbage in the .part proves the file was started over rather than appended to.
            try Data(repeating: 0xEE, count: 70_000).write(to: URL(fileURLWithPath: destination + ".part"))
            let result = try await client.download(
                HTTPRequest(url: server.url("/file?size=\(size)&ranges=no")), to: destination, expectedSize: Int64(size))
            #expect(result.resumedFrom == 0)
            #expect(read(destination) == fileBytes(size))
            // Nothing of the garbage the file was started over from is in its digest.
            #expect(result.sha256 == SHA256.hash(fileBytes(size)))
        }
    }

    @Test func completePartFileNeedsNoRequest() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            try Data(fileBytes(size)).write(to: URL(fileURLWithPath: destination + ".part"))
            let result = try await client.download(
                HTTPRequest(url: server.url("/file?size=\(size)")), to: destination, expectedSize: Int64(size))
            #expect(result.resumedFrom == Int64(size))
            #expect(read(destination) == fileBytes(size))
            #expect(result.sha256 == SHA256.hash(fileBytes(size)))
            #expect(try await server.stats(using: client)["requests"] as? Int == 1)  // only the stats request
        }
    }

    @Test func truncatedBodyKeepsThePartForResume() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            do {
                _ = try await client.download(HTTPRequest(url: server.url("/truncated?size=\(size)")), to: destination)
                Issue.record("expected the truncated body to fail")
            } catch {
                guard case .network(let code, _)? = error as? HTTPError else { Issue.record("got \(error)"); return }
                #expect(code == 18)  // CURLE_PARTIAL_FILE
            }
            #expect(!exists(destination))
            #expect(read(destination + ".part") == Array(fileBytes(size).prefix(size / 2)))
            // The next attempt resumes from there.
            let result = try await client.download(HTTPRequest(url: server.url("/file?size=\(size)")), to: destination)
            #expect(result.resumedFrom == Int64(size / 2))
            #expect(read(destination) == fileBytes(size))
            #expect(result.sha256 == SHA256.hash(fileBytes(size)))
        }
    }

    @Test func cancelledDownloadKeepsThePart() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            // /stall sends 10 bytes of a promised 100000, then nothing. They wait in the sink's buffer (less
            // than a block) and reach the .part when the transfer ends, here by its cancellation.
            let received = Atomic<Int64>(0)
            let task = Task {
                try await client.download(HTTPRequest(url: server.url("/stall")), to: destination, progress: { done, _ in
                    received.store(done, ordering: .relaxed)
                })
            }
            while received.load(ordering: .relaxed) < 10 { try await Task.sleep(for: .milliseconds(20)) }
            task.cancel()
            await #expect(throws: HTTPError.cancelled) { try await task.value }
            #expect(!exists(destination))
            #expect(read(destination + ".part") == Array(repeating: UInt8(ascii: "x"), count: 10))
            // And lets go of it at once, though the engine then has nothing to do and sleeps: the turn that
            // carried out the cancel held the transfer (its file, its lock) through that sleep, and every
            // later attempt at the photo failed with EAGAIN for good (seen in chaos, a download's attempt
            // that failed in the turn that started it).
            let fd = open(destination + ".part", O_WRONLY)
            defer { close(fd) }
            #expect(flock(fd, LOCK_EX | LOCK_NB) == 0, "the cancelled download still holds the .part's lock")
            flock(fd, LOCK_UN)
        }
    }

    @Test func wrongSizeFailsAndLeavesNoFile() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            await #expect(throws: HTTPError.sizeMismatch(expected: Int64(size + 1), actual: Int64(size))) {
                try await client.download(
                    HTTPRequest(url: server.url("/file?size=\(size)")), to: destination, expectedSize: Int64(size + 1))
            }
            #expect(!exists(destination))
            #expect(!exists(destination + ".part"))
        }
    }

    @Test func wrongChecksumFailsAndLeavesNoFile() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            await #expect(throws: HTTPError.checksumMismatch) {
                try await client.download(
                    HTTPRequest(url: server.url("/file?size=\(size)")), to: destination,
                    expectedSHA256: [UInt8](repeating: 0, count: 32))
            }
            #expect(!exists(destination))
            #expect(!exists(destination + ".part"))
        }
    }

    @Test func errorStatusThrowsAndWritesNothing() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            do {
                _ = try await client.download(HTTPRequest(url: server.url("/status?code=404")), to: destination)
                Issue.record("expected a 404")
            } catch {
                guard case .http(let status, _, let body)? = error as? HTTPError else { Issue.record("got \(error)"); return }
                #expect(status == 404)
                #expect(body == Array("status body".utf8))
            }
            #expect(!exists(destination))
            #expect(!exists(destination + ".part"))
        }
    }

    @Test func secondDownloadIntoTheSamePartFails() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            // Stand in for a download already running: hold the .part's lock.
            let fd = open(destination + ".part", O_WRONLY | O_CREAT, 0o644)
            defer { close(fd) }
            #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
            await #expect(throws: HTTPError.file(errno: EWOULDBLOCK, path: destination + ".part")) {
                try await client.download(HTTPRequest(url: server.url("/file?size=10")), to: destination)
            }
            #expect(try await server.stats(using: client)["requests"] as? Int == 1)  // only the stats request
        }
    }

    @Test func followsARedirectToTheFile() async throws {
        try await withServer { server in
            let client = try makeClient()
            let destination = directory + "/photo.jpg"
            let target = "/file?size=\(size)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            _ = try await client.download(
                HTTPRequest(url: server.url("/redirect?to=\(target)"), followRedirects: true), to: destination)
            #expect(read(destination) == fileBytes(size))
        }
    }
}
