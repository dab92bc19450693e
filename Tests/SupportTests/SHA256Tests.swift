#if canImport(Glibc)
import Glibc
#endif
import Support
import TestSupport
import Testing

@Suite struct SHA256Tests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16).leftPadded }.joined() }

    @Test func knownVectors() {
        #expect(hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func chunkedUpdatesMatchOneShot() {
        let data = (0..<1000).map { UInt8($0 % 256) }
        let hasher = SHA256()
        for chunk in stride(from: 0, to: data.count, by: 37) { hasher.update(Array(data[chunk..<min(chunk + 37, data.count)])) }
        #expect(hasher.finalize() == SHA256.hash(data))
    }

    /// How a resumed download hashes the bytes it already has: the first `limit` of an open file, over
    /// several reads; a limit past the end takes what the file has.
    @Test func aFilesFirstBytesReadFromItsStart() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("part")
        let data = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        try DurableFile.write(data, to: path)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        _ = lseek(fd, 123, SEEK_SET)  // where the descriptor points does not matter
        for (limit, expected) in [(150_001, Array(data.prefix(150_001))), (0, []), (.max, data), (300_000, data)] as [(Int64, [UInt8])] {
            let hasher = SHA256()
            try hasher.update(reading: fd, path: path, limit: limit)
            #expect(hasher.finalize() == SHA256.hash(expected), "limit \(limit)")
        }
    }
}

extension String {
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
