import Foundation
import HTTPTypes
import Hummingbird

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
        let size = Int((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0)
        if let range = request.headers[.range], request.headers[.ifRange].map({ $0 == etag }) ?? true {
            guard let bytes = Self.byteRange(range, size: size) else {
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)"
            headers[.contentLength] = String(bytes.count)
            return Response(status: .partialContent, headers: headers, body: try await fileIO.loadFile(path: file.path, range: bytes, context: context))
        }
        headers[.contentLength] = String(size)
        return Response(status: .ok, headers: headers, body: try await fileIO.loadFile(path: file.path, context: context))
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
