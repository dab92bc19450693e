#if canImport(Glibc)
import Glibc
#endif
import Support

extension HTTPClient {
    /// Streams a response body into `destination`, atomically: bytes go to `<destination>.part`, which is
    /// flushed and renamed into place only after the transfer succeeded and the size (and, if given, the
    /// SHA-256) matched. A `.part` left by an earlier attempt is resumed with `Range: bytes=N-`; a server
    /// that answers 200 instead of 206 restarts the file. The result's SHA-256 is taken as the body arrives
    /// (`FileSink`); a `.part` already whole, which needs no request, is read for it. On a network failure the `.part` stays for the next
    /// attempt; on a size or checksum mismatch it is removed (resuming it could never succeed).
    ///
    /// `syncDirectory` false leaves the directory's fsync after the rename to the caller: for one that
    /// renames the file again in the same directory and syncs it then (one flush instead of two).
    /// `flushFile` false leaves the file's own fsync to the caller too: its writeback is started (the
    /// disk works while the caller checks the file) and the caller flushes it before it depends on it —
    /// a caller that lands files in batches flushes a batch together, one file after another, cheaply
    /// once their bytes are on the way.
    ///
    /// `progress(bytesSoFar, total)` is called on the client's transfer thread: keep it short.
    /// Non-2xx responses throw `.http` with the (bounded) error body. A body over `maxBytes` (announced, or
    /// as it arrives) throws `.tooLarge` and its `.part` is removed: resuming it could never succeed.
    public func download(
        _ request: HTTPRequest, to destination: String, expectedSize: Int64? = nil,
        expectedSHA256: [UInt8]? = nil, maxBytes: Int64? = nil, syncDirectory: Bool = true, flushFile: Bool = true,
        progress: (@Sendable (Int64, Int64?) -> Void)? = nil
    ) async throws(HTTPError) -> DownloadResult {
        let partPath = destination + ".part"
        var resumeFrom = Self.fileSize(partPath) ?? 0
        if let expectedSize, resumeFrom > expectedSize {
            unlink(partPath)
            resumeFrom = 0
        }
        var retriedWithoutRange = false
        var streamedDigest: [UInt8]?
        while true {
            // A .part already as long as expected needs no request at all, only verification.
            if let expectedSize, expectedSize > 0, resumeFrom == expectedSize { break }
            let startedAt = resumeFrom
            var sinkForHop: FileSink?
            let outcome: TransferOutcome
            do {
                outcome = try await followingRedirects(request) { hop throws(HTTPError) in
                    sinkForHop?.release()  // the previous hop's file (and its lock) before opening it again
                    sinkForHop = nil
                    let sink = try FileSink(
                        path: partPath, resumeFrom: startedAt, expectedSize: expectedSize, maxBytes: maxBytes, progress: progress)
                    sinkForHop = sink
                    return try await self.perform(hop, sink: .file(sink), range: startedAt > 0 ? startedAt : nil)
                }
            } catch {
                // What arrived reaches the .part now, for the next attempt to resume, and its lock is let go.
                sinkForHop?.release()
                if case .tooLarge = error { unlink(partPath) }
                throw error
            }
            guard let sink = sinkForHop else { throw .invalidURL }
            if outcome.status == 416 && startedAt > 0 && !retriedWithoutRange {
                // Our .part does not fit the server's current file (shorter file, changed content): start over.
                retriedWithoutRange = true
                unlink(partPath)
                resumeFrom = 0
                continue
            }
            guard sink.accepting else {
                // Nothing of ours was in a .part this call created; do not leave an empty one behind.
                if startedAt == 0 { unlink(partPath) }
                throw .http(status: outcome.status, headers: outcome.headers, body: sink.errorBody)
            }
            if flushFile { try sink.syncAndClose() } else { try sink.startWritebackAndClose() }
            streamedDigest = sink.sha256
            resumeFrom = outcome.status == 206 ? startedAt : 0
            break
        }
        return try finish(partPath: partPath, destination: destination, resumedFrom: resumeFrom, expectedSize: expectedSize,
                          expectedSHA256: expectedSHA256, streamedDigest: streamedDigest, syncDirectory: syncDirectory)
    }

    private func finish(
        partPath: String, destination: String, resumedFrom: Int64, expectedSize: Int64?, expectedSHA256: [UInt8]?,
        streamedDigest: [UInt8]?, syncDirectory: Bool
    ) throws(HTTPError) -> DownloadResult {
        let size = Self.fileSize(partPath) ?? 0
        if let expectedSize, size != expectedSize {
            unlink(partPath)
            throw .sizeMismatch(expected: expectedSize, actual: size)
        }
        let digest: [UInt8]
        if let streamedDigest {
            digest = streamedDigest
        } else {
            do {
                digest = try SHA256.hash(filePath: partPath)
            } catch {
                throw .file(errno: error.errno, path: error.path)
            }
        }
        if let expectedSHA256 {
            guard digest == expectedSHA256 else {
                unlink(partPath)
                throw .checksumMismatch
            }
        }
        guard rename(partPath, destination) == 0 else { throw .file(errno: errno, path: destination) }
        if syncDirectory { DurableFile.syncDirectory(of: destination) }
        return DownloadResult(path: destination, size: size, resumedFrom: resumedFrom, sha256: digest)
    }

    static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }
}
