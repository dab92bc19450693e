#if canImport(Glibc)
import Glibc
#endif
import CCrypto

/// SHA-256 through OpenSSL's libcrypto (assembly, SHA extensions where the CPU has them). Owns one
/// `EVP_MD_CTX`, freed in `deinit`. Used to verify and record downloaded files, edits and imports.
public final class SHA256 {
    private let context: OpaquePointer

    public init() {
        // Allocation fails only when memory is exhausted; nothing sensible can go on then.
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
        self.context = context
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    public func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    public func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest
    }

    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        let hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Hashes a file in 64 KiB reads.
    public static func hash(filePath: String) throws(FileError) -> [UInt8] {
        let fd = open(filePath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(.read, path: filePath, errno: errno) }
        defer { close(fd) }
        let hasher = SHA256()
        try hasher.update(reading: fd, path: filePath)
        return hasher.finalize()
    }

    /// Adds the bytes of the open file `fd` from its start, in 64 KiB reads: all of them, or the first
    /// `limit` (a file shorter than that adds what it has). `path` names the file in an error.
    public func update(reading fd: Int32, path: String, limit: Int64 = .max) throws(FileError) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var offset: Int64 = 0
        while offset < limit {
            let wanted = Int(min(Int64(buffer.count), limit - offset))
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, wanted, off_t(offset)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError(.read, path: path, errno: errno)
            }
            if n == 0 { break }
            buffer.withUnsafeBytes { update(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            offset += Int64(n)
        }
    }
}
