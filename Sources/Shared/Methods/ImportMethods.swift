import Foundation

/// `library.import`: adds a folder's JPEG, PNG and WebP files as `local:` photos, skipping
/// near-duplicates of photos already in the library.
public struct LibraryImportRequest: RPCRequest {
    public typealias Result = ImportResult
    public static let method = "library.import"
    public static let summary = "Imports a folder's JPEG, PNG and WebP files as local photos (dimensions, EXIF date, perceptual hash); near-duplicates of library photos are reported and skipped. Progress comes as import.progress events."
    public static let parameters = [
        ParameterDoc("path", "string", required: true, "An absolute path to a folder (or one file)."),
        ParameterDoc("recursive", "boolean", "Into subfolders too (symbolic links followed, loops reported)."),
        ParameterDoc("watch", "boolean", "Then keep watching the folder (inotify, across restarts): new or changed photos are imported as they appear, with the same checks; library.watching lists the folders, library.unwatch stops one."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound, .busy]
    public static let example = LibraryImportRequest(path: "/home/ana/Pictures/Lisbon", recursive: true)
    public static let resultExample = ImportResult(
        imported: [ImportedPhoto(id: "local:3f2a9c0b1d4e5f60", path: "/home/ana/Pictures/Lisbon/tram.jpg", width: 4000, height: 3000)],
        duplicates: [ImportDuplicate(path: "/home/ana/Pictures/Lisbon/tram-copy.jpg", duplicateOf: "local:3f2a9c0b1d4e5f60", distance: 2)],
        alreadyImported: 0, ignored: 1,
        failed: [ImportFailure(path: "/home/ana/Pictures/Lisbon/broken.jpg", error: "the image is damaged: VipsJpeg: Premature end of input file")])

    public var path: String
    public var recursive: Bool?
    public var watch: Bool?

    public init(path: String, recursive: Bool? = nil, watch: Bool? = nil) {
        self.path = path
        self.recursive = recursive
        self.watch = watch
    }

    public func validate() throws(RPCError) {
        guard path.hasPrefix("/"), !path.contains("\0"), path.utf8.count <= 4096 else {
            throw .invalidInput(.pathNotAbsoluteRelativeMadeAbsolute, field: "path")
        }
    }
}

public struct ImportResult: Codable, Sendable, Equatable {
    public var imported: [ImportedPhoto]
    /// Near-duplicates of library photos (or of files earlier in the same import): skipped.
    public var duplicates: [ImportDuplicate]
    /// Files already in the library (the same bytes): skipped.
    public var alreadyImported: Int
    /// Files that are not JPEG, PNG or WebP by name: not looked at.
    public var ignored: Int
    /// Files (or folders) that could not be imported, each with its reason; the rest went on.
    public var failed: [ImportFailure]

    public init(imported: [ImportedPhoto], duplicates: [ImportDuplicate], alreadyImported: Int, ignored: Int, failed: [ImportFailure]) {
        self.imported = imported
        self.duplicates = duplicates
        self.alreadyImported = alreadyImported
        self.ignored = ignored
        self.failed = failed
    }
}

public struct ImportedPhoto: Codable, Sendable, Equatable {
    public var id: String
    public var path: String
    public var width: Int
    public var height: Int
    public init(id: String, path: String, width: Int, height: Int) {
        self.id = id
        self.path = path
        self.width = width
        self.height = height
    }
}

public struct ImportDuplicate: Codable, Sendable, Equatable {
    public var path: String
    public var duplicateOf: String
    /// Hamming distance between the perceptual hashes (0 to 64).
    public var distance: Int
    public init(path: String, duplicateOf: String, distance: Int) {
        self.path = path
        self.duplicateOf = duplicateOf
        self.distance = distance
    }
}

public struct ImportFailure: Codable, Sendable, Equatable {
    public var path: String
    public var error: String
    public init(path: String, error: String) {
        self.path = path
        self.error = error
    }
}

/// The payload of `import.progress`: one more file looked at.
public struct ImportProgress: Codable, Sendable, Equatable {
    public var root: String
    /// Image files found so far (the walk is done before the first file is read, so this is final).
    public var total: Int
    public var done: Int
    public var imported: Int
    public var duplicates: Int
    public var failed: Int
    public var current: String?

    public init(root: String, total: Int, done: Int, imported: Int, duplicates: Int, failed: Int, current: String?) {
        self.root = root
        self.total = total
        self.done = done
        self.imported = imported
        self.duplicates = duplicates
        self.failed = failed
        self.current = current
    }
}

/// A folder splashd watches for new photos.
public struct WatchedFolder: Codable, Sendable, Equatable {
    public var path: String
    public var recursive: Bool
    public var since: Date
    /// Every file changed before this has been looked at (changes while splashd was stopped are
    /// imported at its next start).
    public var scannedAt: Date

    public init(path: String, recursive: Bool, since: Date, scannedAt: Date) {
        self.path = path
        self.recursive = recursive
        self.since = since
        self.scannedAt = scannedAt
    }
}

public struct WatchedFoldersResult: Codable, Sendable, Equatable {
    public var folders: [WatchedFolder]

    public init(folders: [WatchedFolder]) {
        self.folders = folders
    }

    public static let example = WatchedFoldersResult(folders: [WatchedFolder(
        path: "/home/ana/Pictures/Camera", recursive: true, since: Date(timeIntervalSince1970: 1_795_000_000),
        scannedAt: Date(timeIntervalSince1970: 1_795_000_600))])
}

/// `library.watching`: the folders watched for new photos.
public struct LibraryWatchingRequest: RPCRequest {
    public typealias Result = WatchedFoldersResult
    public static let method = "library.watching"
    public static let summary = "The folders watched for new photos (library.import with watch)."
    public static let example = LibraryWatchingRequest()
    public static let resultExample = WatchedFoldersResult.example
    public init() {}
}

/// `library.unwatch`: stops watching a folder (its photos stay in the library).
public struct LibraryUnwatchRequest: RPCRequest {
    public typealias Result = WatchedFoldersResult
    public static let method = "library.unwatch"
    public static let summary = "Stops watching a folder; the photos imported from it stay. Answers the folders still watched."
    public static let parameters = [ParameterDoc("path", "string", required: true, "The watched folder's absolute path.")]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound]
    public static let example = LibraryUnwatchRequest(path: "/home/ana/Pictures/Camera")
    public static let resultExample = WatchedFoldersResult(folders: [])

    public var path: String

    public init(path: String) {
        self.path = path
    }

    public func validate() throws(RPCError) {
        guard path.hasPrefix("/"), !path.contains("\0") else { throw .invalidInput(.pathNotAbsolute, field: "path") }
    }
}
