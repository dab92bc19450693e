import Foundation
import Support
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DurableFileTests {
    let directory = TemporaryDirectory()

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        #expect(stat(path, &info) == 0)
        return info.st_mode & 0o777
    }

    @Test func replaceWritesTheWholeFileWithItsModeAndLeavesNoTemporary() throws {
        let path = directory.file("session.json")
        let bytes = [UInt8]((0..<200_000).map { UInt8($0 % 251) })
        try DurableFile.replace(path, with: bytes)
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))
        #expect(mode(path) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    }

    @Test func replaceOverAnOldFileSwapsItWhole() throws {
        let path = directory.file("config.toml")
        try DurableFile.replace(path, with: Array("old contents, longer than the new".utf8))
        try DurableFile.replace(path, with: Array("new".utf8))
        #expect(String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) == "new")
    }

    /// A temporary file a crash left behind, readable by others, must not pass its mode on (O_CREAT keeps it).
    @Test func aLeftoverTemporaryDoesNotKeepItsLooserMode() throws {
        let path = directory.file("secret")
        #expect(FileManager.default.createFile(atPath: path + ".tmp", contents: Data("x".utf8), attributes: [.posixPermissions: 0o644]))
        try DurableFile.replace(path, with: Array("token".utf8))
        #expect(mode(path) == 0o600)
    }

    @Test func aFailedWriteSaysWhereAndWhyAndLeavesTheOldFile() throws {
        let path = directory.file("missing-dir/file")
        #expect(throws: FileError(.write, path: path + ".tmp", errno: ENOENT)) {
            try DurableFile.replace(path, with: Array("x".utf8))
        }
        let error = FileError(.write, path: path + ".tmp", errno: ENOENT)
        #expect(error.description == "cannot write \(path).tmp: No such file or directory")
        #expect(!error.isNoSpace)
        #expect(FileError(.write, path: "/x", errno: ENOSPC).isNoSpace)
    }

    @Test func aFailedRenameRemovesTheSourceAndKeepsTheDestination() throws {
        let source = directory.file("staged")
        try DurableFile.write(Array("new".utf8), to: source)
        let destination = directory.file("no-such-dir/final")
        #expect(throws: FileError(.rename, path: destination, errno: ENOENT)) {
            try DurableFile.rename(source, to: destination)
        }
        #expect(!FileManager.default.fileExists(atPath: source))
    }

    /// Every missing parent is made, with the mode; what is there already is left as it is; a file in
    /// the way is an error naming it. (That each one's name is flushed, powerfs shows: chaos part 9.)
    @Test func makeDirectoriesMakesWhatIsMissingWithItsMode() throws {
        try DurableFile.makeDirectories(directory.file("library"), mode: 0o755)
        try DurableFile.makeDirectories(directory.file("library/unsplash/deep"))
        #expect(mode(directory.file("library")) == 0o755)
        #expect(mode(directory.file("library/unsplash")) == 0o700 && mode(directory.file("library/unsplash/deep")) == 0o700)
        try DurableFile.makeDirectories(directory.file("library/unsplash"))
        try DurableFile.write(Array("x".utf8), to: directory.file("file"))
        #expect(throws: FileError.self) { try DurableFile.makeDirectories(directory.file("file/below")) }
    }

    @Test func syncFileNamesAMissingFile() {
        let path = directory.file("absent")
        #expect(throws: FileError(.sync, path: path, errno: ENOENT)) { try DurableFile.syncFile(at: path) }
    }
}

@Suite struct DurationTests {
    @Test func wholeMillisecondsAndSecondsFromOneReading() {
        let duration = Duration.seconds(2) + .milliseconds(345) + .microseconds(678)
        #expect(duration.wholeMilliseconds == 2345)
        #expect(abs(duration.timeInterval - 2.345678) < 1e-9)
        #expect(Duration.seconds(1.5).timeInterval == 1.5)
    }
}

@Suite struct FileDigestTests {
    let directory = TemporaryDirectory()

    @Test func hexOfAFileAndAnErrorNamingAMissingOne() throws {
        let path = directory.file("abc")
        try DurableFile.write(Array("abc".utf8), to: path)
        #expect(try FileDigest.sha256Hex(path: path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(throws: FileError(.read, path: path + "x", errno: ENOENT)) { try FileDigest.sha256Hex(path: path + "x") }
    }
}
