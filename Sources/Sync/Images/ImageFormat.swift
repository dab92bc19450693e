/// An image's format from its first bytes (JPEG, PNG, WebP: what the library imports). The one place
/// that knows their signatures: downloads, edits pulled from Storage and originals are all checked here.
enum ImageFormat {
    static func fileExtension(of bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return "webp" }
        return nil
    }

    static func mimeType(of bytes: [UInt8]) -> String {
        switch fileExtension(of: bytes) {
        case "png": "image/png"
        case "webp": "image/webp"
        default: "image/jpeg"
        }
    }
}
