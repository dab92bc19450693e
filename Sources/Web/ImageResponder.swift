#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix

/// Answers a picture's file: its content hash as the ETag (`If-None-Match` → 304), one byte range on
/// request (206, or 416 when it lies outside), its media type from its name. A `HEAD` gets the same
/// head as a `GET` (its `Content-Length` too) and no body.
struct ImageResponder: Sendable {
    let fileIO = FileIO()

    func respond(_ file: GalleryImageFile, to request: Request, context: some RequestContext) async throws -> Response {
        var response = try await answer(file, to: request, context: context)
        if request.method == .head {
            let length = response.headers[.contentLength]
            response.body = ResponseBody()
            response.headers[.contentLength] = length
        }
        return response
    }

    private func answer(_ file: GalleryImageFile, to request: Request, context: some RequestContext) async throws -> Response {
        let etag = "\"\(file.contentHash)\""
        var headers: HTTPFields = [
            .eTag: etag, .acceptRanges: "bytes",
            .cacheControl: file.immutable ? "private, max-age=31536000, immutable" : "private, no-cache",
            .contentType: Self.mediaType(of: file.path),
        ]
        if let asked = request.headers[.ifNoneMatch], asked.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
            return Response(status: .notModified, headers: headers)
        }
        let contents = try await Self.read(file.path)
        let size = contents.size
        if let range = request.headers[.range], request.headers[.ifRange].map({ $0 == etag }) ?? true {
            guard let bytes = Self.byteRange(range, size: size) else {
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)"
            headers[.contentLength] = String(bytes.count)
            let body = switch contents {
            case .whole(let buffer): ResponseBody(byteBuffer: buffer.getSlice(at: bytes.lowerBound, length: bytes.count)!)
            case .large: try await fileIO.loadFile(path: file.path, range: bytes, context: context)
            }
            return Response(status: .partialContent, headers: headers, body: body)
        }
        headers[.contentLength] = String(size)
        let body = switch contents {
        case .whole(let buffer): ResponseBody(byteBuffer: buffer)
        case .large: try await fileIO.loadFile(path: file.path, context: context)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// A picture's bytes as one answer sends them: a file up to `wholeLimit` (a grid's thumbnail, a
    /// screen copy) read whole; a larger one only sized, and streamed in chunks by `FileIO`.
    enum Contents {
        case whole(ByteBuffer)
        case large(size: Int)

        var size: Int {
            switch self {
            case .whole(let buffer): buffer.readableBytes
            case .large(let size): size
            }
        }
    }

    static let wholeLimit = 1 << 20
    /// The largest file read on the connection's own event loop, as nginx reads a file in its worker:
    /// from the page cache, reading a thumbnail takes a few microseconds, less than the hand-over to
    /// NIO's thread pool and back (two thread wake-ups: a third of a thumbnail answer's cost,
    /// measured). Only what the page cache holds is read there (`RWF_NOWAIT`); a larger file, or one
    /// that would wait for the disk, is read on the pool.
    static let onLoopLimit = 256 << 10

    /// `path`'s contents; 404 when it cannot be opened (the store named a file that has gone since).
    static func read(_ path: String) async throws -> Contents {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HTTPError(.notFound) }
        let size = Int(lseek(fd, 0, SEEK_END))
        if size >= 0 && size <= onLoopLimit, let cached = whole(fd, size: size, flags: SPLASHD_RWF_NOWAIT) {
            close(fd)
            return .whole(cached)
        }
        let read: Contents?
        do {
            read = try await NIOThreadPool.singleton.runIfActive { () -> Contents? in
                defer { close(fd) }
                guard size >= 0 else { return nil }
                guard size <= wholeLimit else { return .large(size: size) }
                return whole(fd, size: size, flags: 0).map(Contents.whole)
            }
        } catch {
            // The pool did not take the work (it is shutting down): the descriptor is still ours.
            close(fd)
            throw error
        }
        guard let read else { throw HTTPError(.notFound) }
        return read
    }

    /// The file's `size` bytes; nil when it held fewer (it changed under the read) or, with
    /// `RWF_NOWAIT`, when some of them are not in the page cache.
    private static func whole(_ fd: Int32, size: Int, flags: Int32) -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: size)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { space in
            var done = 0
            while done < size {
                var vector = iovec(iov_base: space.baseAddress! + done, iov_len: size - done)
                let n = preadv2(fd, &vector, 1, off_t(done), flags)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                done += n
            }
            return done
        }
        return buffer.readableBytes == size ? buffer : nil
    }

    /// One range of `bytes=first-last`, `bytes=first-` or `bytes=-suffix`, within `size`; nil when
    /// none of it lies in the file. A list of ranges is answered with its first.
    static func byteRange(_ header: String, size: Int) -> ClosedRange<Int>? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let first = header.dropFirst("bytes=".count).split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let ends = first.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2 else { return nil }
        if ends[0].isEmpty {
            guard let suffix = Int(ends[1]), suffix > 0 else { return nil }
            return max(0, size - suffix)...(size - 1)
        }
        guard let start = Int(ends[0]), start < size else { return nil }
        let end = ends[1].isEmpty ? size - 1 : min(Int(ends[1]) ?? -1, size - 1)
        return start <= end ? start...end : nil
    }

    static func mediaType(of path: String) -> String {
        // By bytes: NSString's `pathExtension` cost more than the rest of the headers together.
        let bytes = path.utf8
        let dot = bytes.lastIndex(of: UInt8(ascii: "."))
        let suffix = dot.map { bytes[bytes.index(after: $0)...] }.flatMap { $0.contains(UInt8(ascii: "/")) ? nil : String(Substring($0)) }
        return switch suffix?.lowercased() ?? "" {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        case "gif": "image/gif"
        case "heic": "image/heic"
        case "avif": "image/avif"
        case "tif", "tiff": "image/tiff"
        default: "application/octet-stream"
        }
    }
}
