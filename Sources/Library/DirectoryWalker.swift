#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shared

/// Lists the files an import looks at. Symbolic links are followed (a Pictures folder is often a
/// link), and every folder is visited once by device and inode, so a link back up the tree is
/// reported as a loop instead of walked forever. Unreadable folders are reported and skipped.
struct DirectoryWalker {
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "webp"]

    struct Listing {
        var images: [String] = []
        var ignored = 0
        var problems: [ImportFailure] = []
    }

    static func list(_ root: String, recursive: Bool) -> Listing {
        var listing = Listing()
        var info = stat()
        guard stat(root, &info) == 0 else {
            listing.problems.append(ImportFailure(path: root, error: "cannot read: \(String(cString: strerror(errno)))"))
            return listing
        }
        if (info.st_mode & S_IFMT) == S_IFREG {
            classify(root, into: &listing)
            return listing
        }
        var visited: Set<[UInt64]> = []
        walk(root, info: info, recursive: recursive, visited: &visited, listing: &listing)
        listing.images.sort()
        return listing
    }

    private static func walk(_ directory: String, info: stat, recursive: Bool, visited: inout Set<[UInt64]>, listing: inout Listing) {
        let key = [UInt64(info.st_dev), UInt64(info.st_ino)]
        guard visited.insert(key).inserted else {
            listing.problems.append(ImportFailure(path: directory, error: "a symbolic link loop: this folder was already imported from another path"))
            return
        }
        guard let handle = opendir(directory) else {
            listing.problems.append(ImportFailure(path: directory, error: "cannot open the folder: \(String(cString: strerror(errno)))"))
            return
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            names.append(name)
        }
        for name in names.sorted() {
            let path = directory + "/" + name
            var entry = stat()
            guard stat(path, &entry) == 0 else {
                // A dangling link, or a file gone since the listing.
                listing.problems.append(ImportFailure(path: path, error: "cannot read: \(String(cString: strerror(errno)))"))
                continue
            }
            switch entry.st_mode & S_IFMT {
            case S_IFDIR:
                if recursive && !name.hasPrefix(".") { walk(path, info: entry, recursive: true, visited: &visited, listing: &listing) }
            case S_IFREG:
                classify(path, into: &listing)
            default:
                listing.ignored += 1
            }
        }
    }

    private static func classify(_ path: String, into listing: inout Listing) {
        let ext = (path as NSString).pathExtension.lowercased()
        if imageExtensions.contains(ext) { listing.images.append(path) } else { listing.ignored += 1 }
    }
}
