#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shared
import Store
import Support

/// The library where every other Linux program looks for photos: under the XDG
/// Pictures folder, `My Collection/` holds one entry per liked photo's library file and `Edits/` one per
/// saved edit's rendering, each a hard link to the file (a symbolic link when the two are on different
/// file systems or mounts), named `<author> – <title> (<id>).<ext>`. Never a copy of the bytes.
///
/// What the folder should hold is a function of the store (`PicturesFolderRows`); `reconcile` makes the
/// folder so, touching only entries whose name is splashd's (`… (<id>).<ext>`, the id a photo id or an
/// edit's UUID). `check` says how it differs without changing anything. Both are idempotent: a crash
/// anywhere leaves a folder the next reconcile mends.
public struct PicturesFolder: Sendable {
    /// The two subfolders.
    public enum Part: String, Sendable, CaseIterable {
        case collection = "My Collection"
        case edits = "Edits"
    }

    /// One entry as it should be: `<folder>/<part>/<name>` → `target` (absolute).
    public struct Wanted: Sendable, Equatable {
        public var part: Part
        public var name: String
        public var target: String
        public var relative: String { part.rawValue + "/" + name }
    }

    /// How the folder differs from what it should hold; paths relative to the folder, sorted.
    public struct Difference: Sendable, Equatable {
        /// Entries that should be there and are not.
        public var missing: [String] = []
        /// splashd's entries that should not be there (an unliked photo, a removed edit, an old name).
        public var extra: [String] = []
        /// Entries under the right name that are not the right file (another file, a stale link).
        public var wrong: [String] = []
        /// Entries that are right.
        public var correct = 0
        public var inStep: Bool { missing.isEmpty && extra.isEmpty && wrong.isEmpty }
        public init() {}
    }

    /// What a reconcile did.
    public struct Outcome: Sendable, Equatable {
        public var before = Difference()
        /// Entries made (missing or wrong ones), of them as symbolic links, and entries removed.
        public var made = 0
        public var symlinked = 0
        public var removed = 0
        /// Entries that could not be made or removed, with why (the rest went on).
        public var failures: [String] = []
        public init() {}
    }

    public let store: Store
    /// The folder itself, e.g. `~/Pictures/Splash`.
    public let folder: String
    public let dataDirectory: String

    public init(store: Store, folder: String, dataDirectory: String) {
        self.store = store
        self.folder = folder
        self.dataDirectory = dataDirectory
    }

    // MARK: What it should hold

    /// Every entry the folder should hold for `accountId`.
    public func wanted(accountId: String) throws -> [Wanted] {
        let (collection, edits) = try store.read { db in try PicturesFolderRows.entries(db, accountId: accountId) }
        func wanted(_ part: Part, _ entry: PicturesFolderRows.Entry) -> Wanted {
            let target = entry.path.hasPrefix("/") ? entry.path : dataDirectory + "/" + entry.path
            let ext = (target as NSString).pathExtension.lowercased()
            return Wanted(
                part: part,
                name: Self.name(author: entry.author, title: entry.title, id: entry.id, extension: ext.isEmpty ? "jpg" : ext),
                target: target)
        }
        // A row whose file is gone (deleted by hand; the image queue fetches it again) has no entry yet.
        return (collection.map { wanted(.collection, $0) } + edits.map { wanted(.edits, $0) }).filter { access($0.target, F_OK) == 0 }
    }

    // MARK: Names

    /// Longest `<author> – <title>` part, in UTF-8 bytes (a file name may have 255; the id and the
    /// extension need the rest).
    static let maximumStemBytes = 150

    /// `<author> – <title> (<id>).<ext>`: each part without `/`, control characters or surrounding
    /// spaces, the two together at most `maximumStemBytes` bytes (cut on a character, with `…`); a
    /// missing or empty part is left out with its dash. The id is always there, whole (a `/` in it
    /// becomes `_`), so names are unique and splashd knows its own entries.
    public static func name(author: String?, title: String?, id: String, extension ext: String) -> String {
        let parts = [author, title].compactMap { $0.map(clean) }.filter { !$0.isEmpty }
        var stem = parts.joined(separator: " – ")
        if stem.utf8.count > maximumStemBytes {
            var cut = ""
            for character in stem {
                if cut.utf8.count + character.utf8.count > maximumStemBytes - "…".utf8.count { break }
                cut.append(character)
            }
            while cut.hasSuffix(" ") { cut.removeLast() }  // `clean` left no other space
            stem = cut + "…"
        }
        let key = "(" + cleanID(id) + ")." + ext
        return stem.isEmpty ? key : stem + " " + key
    }

    /// Control characters and line breaks become spaces, `/` a division slash, runs of spaces one; no
    /// leading dot (a hidden file) and no parentheses (they would look like an id).
    ///
    /// Scalar by scalar, without Foundation's trimming: every space there is is `" "` by the end of the
    /// loop, and the trimming (a bridge to NSString and back, twice per part) was a third of the time a
    /// reconcile spent naming 10,000 entries.
    static func clean(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            let mapped: Unicode.Scalar
            if isBlank(scalar) {
                mapped = " "
            } else {
                switch scalar {
                case "/": mapped = "∕"
                case "(": mapped = "["
                case ")": mapped = "]"
                default: mapped = scalar
                }
            }
            if mapped == " " {
                if lastWasSpace { continue }
                lastWasSpace = true
            } else {
                lastWasSpace = false
            }
            out.append(mapped)
        }
        // No leading dot, even behind a space (". . x" was left ". x", a hidden file), and no space at
        // either end.
        var cleaned = String(String.UnicodeScalarView(out.drop { $0 == "." || $0 == " " }))
        if cleaned.unicodeScalars.last == " " { cleaned.unicodeScalars.removeLast() }
        return cleaned
    }

    static func cleanID(_ id: String) -> String {
        String(id.unicodeScalars.map { scalar -> Character in
            scalar == "/" || scalar == "(" || scalar == ")" || isControl(scalar) ? "_" : Character(scalar)
        })
    }

    /// Whether a scalar becomes a space in a name: a control, format or separator character. An ASCII
    /// one's category is known without Unicode's tables, whose lookup was the largest single cost of a
    /// reconcile naming every liked photo (perf, during a pull into a library of 5,000).
    static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return isControl(scalar) || scalar == " " }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator: return true
        default: return false
        }
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? scalar.value < 0x20 || scalar.value == 0x7F : scalar.properties.generalCategory == .control
    }

    /// Whether a name in `part` is one splashd makes: `… (<key>).<image extension>`, the key a photo id
    /// (`unsplash:…`, `nasa:…`, `local:…`) in My Collection or an edit's UUID in Edits. Anything else
    /// is the person's and never touched.
    public static func isOurs(_ name: String, in part: Part) -> Bool {
        guard let dot = name.lastIndex(of: "."),
              ["jpg", "jpeg", "png", "webp"].contains(name[name.index(after: dot)...].lowercased()),
              name[..<dot].hasSuffix(")"), let open = name[..<dot].lastIndex(of: "(")
        else { return false }
        let key = name[name.index(after: open)..<name.index(before: dot)]
        if open != name.startIndex && name[name.index(before: open)] != " " { return false }
        switch part {
        case .collection:
            return PhotoSource.allCases.map { $0.rawValue + ":" }.contains { key.hasPrefix($0) && key.count > $0.count }
        case .edits:
            return UUID(uuidString: String(key)) != nil && key == key.lowercased()
        }
    }

    // MARK: Comparing and mending

    /// How the folder differs from `wanted`; changes nothing. A missing folder holds nothing.
    public func check(_ wanted: [Wanted]) -> Difference {
        var difference = Difference()
        for part in Part.allCases {
            let present = Set(Self.ourEntries(in: folder + "/" + part.rawValue, part: part))
            let expected = wanted.filter { $0.part == part }
            let names = Set(expected.map(\.name))
            for entry in expected {
                if !present.contains(entry.name) {
                    difference.missing.append(entry.relative)
                } else if Self.points(folder + "/" + entry.relative, at: entry.target) {
                    difference.correct += 1
                } else {
                    difference.wrong.append(entry.relative)
                }
            }
            difference.extra += present.subtracting(names).map { part.rawValue + "/" + $0 }
        }
        difference.missing.sort()
        difference.extra.sort()
        difference.wrong.sort()
        return difference
    }

    /// Makes the folder hold exactly `wanted` (of splashd's entries): removes the extra, replaces the
    /// wrong, makes the missing. Creates the folder and its two parts when needed.
    public func reconcile(_ wanted: [Wanted]) -> Outcome {
        var outcome = Outcome()
        outcome.before = check(wanted)
        guard !outcome.before.inStep else { return outcome }
        for part in Part.allCases {
            do throws(FileError) {
                try DurableFile.makeDirectories(folder + "/" + part.rawValue, mode: 0o755)
            } catch {
                outcome.failures.append("cannot create \(folder)/\(part.rawValue): \(error)")
                return outcome
            }
        }
        for relative in outcome.before.extra + outcome.before.wrong {
            if unlink(folder + "/" + relative) == 0 || errno == ENOENT {
                if outcome.before.extra.contains(relative) { outcome.removed += 1 }
            } else {
                outcome.failures.append("cannot remove \(folder)/\(relative): \(String(cString: strerror(errno)))")
            }
        }
        let toMake = Set(outcome.before.missing + outcome.before.wrong)
        for entry in wanted where toMake.contains(entry.relative) {
            // A crash here (after a like, before its link) leaves the entry missing: the next
            // start's reconcile makes it.
            CrashPoint.picturesLinking.reach()
            switch Self.link(entry.target, at: folder + "/" + entry.relative) {
            case .hard: outcome.made += 1
            case .symbolic:
                outcome.made += 1
                outcome.symlinked += 1
            case .failed(let reason): outcome.failures.append("cannot make \(folder)/\(entry.relative): \(reason)")
            }
        }
        DurableFile.syncDirectory(of: folder + "/" + Part.collection.rawValue + "/.")
        DurableFile.syncDirectory(of: folder + "/" + Part.edits.rawValue + "/.")
        return outcome
    }

    /// Removes every entry splashd made, and the two parts and the folder if that leaves them empty
    /// (`pictures.export = false`). The person's own files stay, and so do the folders holding them.
    public func clear() -> Outcome {
        var outcome = Outcome()
        for part in Part.allCases {
            let directory = folder + "/" + part.rawValue
            for name in Self.ourEntries(in: directory, part: part) {
                if unlink(directory + "/" + name) == 0 { outcome.removed += 1 }
                else { outcome.failures.append("cannot remove \(directory)/\(name): \(String(cString: strerror(errno)))") }
            }
            rmdir(directory)
        }
        rmdir(folder)
        return outcome
    }

    // MARK: Files

    /// splashd's entries (by name, and only links or regular files) in one part's directory.
    static func ourEntries(in directory: String, part: Part) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            guard isOurs(name, in: part) else { continue }
            let type = entry.pointee.d_type
            if type == UInt8(DT_DIR) { continue }
            if type == UInt8(DT_UNKNOWN) {
                var info = stat()
                guard lstat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { continue }
            }
            names.append(name)
        }
        return names
    }

    /// Whether `path` is `target`: the same inode (a hard link), or a symbolic link whose text is the
    /// target's path and which resolves to it.
    static func points(_ path: String, at target: String) -> Bool {
        var entry = stat(), file = stat()
        guard lstat(path, &entry) == 0, stat(target, &file) == 0 else { return false }
        if (entry.st_mode & S_IFMT) == S_IFLNK {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(path, &buffer, Int(PATH_MAX))
            guard count > 0 else { return false }
            let text = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var resolved = stat()
            return text == target && stat(path, &resolved) == 0 && resolved.st_dev == file.st_dev && resolved.st_ino == file.st_ino
        }
        return entry.st_dev == file.st_dev && entry.st_ino == file.st_ino
    }

    enum Made: Equatable {
        case hard, symbolic
        case failed(String)
    }

    /// A hard link to `target` at `path`; a symbolic link when the kernel says the two are apart (EXDEV:
    /// another file system or another mount of it) or the file system has no hard links (EPERM, EMLINK).
    static func link(_ target: String, at path: String) -> Made {
        if Glibc.link(target, path) == 0 { return .hard }
        let code = errno
        guard code == EXDEV || code == EPERM || code == EMLINK || code == EOPNOTSUPP else {
            return .failed(String(cString: strerror(code)))
        }
        if symlink(target, path) == 0 { return .symbolic }
        return .failed(String(cString: strerror(errno)))
    }
}
