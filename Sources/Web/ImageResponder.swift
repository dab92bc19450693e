#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix

/// Answers a picture's file: its content hash as the ETag (`If-None-Match` → 304), one byte range on
/// request (206, or 416 when it lies outside), its media type from its name.
struct ImageResponder: Sendable {
    let fileIO = FileIO()

    func respond(_ file: GalleryImageFile, to request: Request, context: some RequestContext) async throws -> Response {
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
    /// screen copy) read whole, opened, sized, read and closed in one trip to NIO's thread pool; a
    /// larger one only sized there, and streamed in chunks by `FileIO`. One trip, not one per call
    /// (`FileIO` makes four for a file, and the thread hand-overs were most of a thumbnail's cost).
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

    /// `path`'s contents; 404 when it cannot be opened (the store named a file that has gone since).
    static func read(_ path: String) async throws -> Contents {
        let read = try await NIOThreadPool.singleton.runIfActive { () -> Contents? in
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            let end = lseek(fd, 0, SEEK_END)
            guard end >= 0 else { return nil }
            let size = Int(end)
            guard size <= wholeLimit else { return .large(size: size) }
            var buffer = ByteBufferAllocator().buffer(capacity: size)
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { space in
                var done = 0
                while done < size {
                    let n = pread(fd, space.baseAddress! + done, size - done, off_t(done))
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { break }
                    done += n
                }
                return done
            }
            // Shorter than its size said: the file changed under the read.
            return buffer.readableBytes == size ? .whole(buffer) : nil
        }
        guard let read else { throw HTTPError(.notFound) }
        return read
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
        switch (path as NSString).pathExtension.lowercased() {
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
