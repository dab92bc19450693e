#if canImport(Glibc)
import Glibc
#endif

/// A JPEG starts FF D8 FF and ends with its EOI marker FF D9; anything else (an HTML error page served
/// with 200, a truncated header, an endless body cut off) is refused before it takes a library name.
/// The marker is looked for in the last 64 KiB, since some cameras append data after it.
enum JPEGCheck {
    static func verify(_ path: String) throws(ImageFailure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ImageFailure(message: "cannot open \(path): \(String(cString: strerror(errno)))", transient: true) }
        defer { close(fd) }
        var prefix = [UInt8](repeating: 0, count: 16)
        let n = prefix.withUnsafeMutableBytes { read(fd, $0.baseAddress, 16) }
        let head = Array(prefix.prefix(max(0, n)))
        guard ImageFormat.fileExtension(of: head) == "jpg" else { throw .notAnImage(head) }
        let size = lseek(fd, 0, SEEK_END)
        let tailLength = Int(min(size, 64 << 10))
        var tail = [UInt8](repeating: 0, count: tailLength)
        let got = tail.withUnsafeMutableBytes { pread(fd, $0.baseAddress, tailLength, off_t(size) - off_t(tailLength)) }
        let hasEnd = got == tailLength && zip(tail, tail.dropFirst()).contains { $0 == 0xFF && $1 == 0xD9 }
        guard hasEnd else {
            throw ImageFailure(message: "the server sent a JPEG without its end (a cut-off or endless body)", transient: false)
        }
    }
}
