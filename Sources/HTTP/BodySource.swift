#if canImport(Glibc)
import Glibc
#endif

/// A request's body as its transfer's read callback takes it: the bytes, or an open file read at the
/// offset libcurl is at (libcurl may go back to the start to send it again). Owns the file descriptor.
final class BodySource {
    let count: Int64
    /// The file's path, for errors; nil for bytes.
    let path: String?
    private let bytes: [UInt8]
    private let descriptor: Int32

    init(_ body: RequestBody?) throws(HTTPError) {
        switch body {
        case nil:
            (count, path, bytes, descriptor) = (0, nil, [], -1)
        case .bytes(let bytes):
            (count, path, self.bytes, descriptor) = (Int64(bytes.count), nil, bytes, -1)
        case .file(let path):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw .file(errno: errno, path: path) }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                let error = errno
                close(descriptor)
                throw .file(errno: error, path: path)
            }
            (count, self.path, bytes, self.descriptor) = (Int64(status.st_size), path, [], descriptor)
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Copies the body's bytes from `offset` into `buffer`, as many as fit; how many, or the errno.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Result<Int, HTTPError> {
        let wanted = Int(min(Int64(buffer.count), count - offset))
        guard wanted > 0 else { return .success(0) }
        guard descriptor >= 0 else {
            bytes.withUnsafeBytes { all in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[Int(offset)..<(Int(offset) + wanted)]))
            }
            return .success(wanted)
        }
        while true {
            let read = pread(descriptor, buffer.baseAddress, wanted, off_t(offset))
            if read > 0 { return .success(read) }
            if read < 0 && errno == EINTR { continue }
            // Shorter than it was when opened: what was sent is not the file any more.
            return .failure(read < 0 ? .file(errno: errno, path: path ?? "") : .sizeMismatch(expected: count, actual: offset))
        }
    }
}
