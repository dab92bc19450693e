#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Support

/// What the image code asks of a file on this machine: is it there, how big, how old; and the
/// directories a new one needs.
enum LocalFile {
    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    static func modified(_ path: String) -> Date? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec) + TimeInterval(status.st_mtim.tv_nsec) / 1e9)
    }

    static func makeDirectories(for file: String) throws(ImageFailure) {
        let directory = DurableFile.directory(of: file)
        do throws(FileError) {
            try DurableFile.makeDirectories(directory)
        } catch {
            throw ImageFailure(message: "cannot create \(directory): \(error)", transient: true)
        }
    }
}
