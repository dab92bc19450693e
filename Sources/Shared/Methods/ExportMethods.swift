import Foundation

/// `library.export`: the Pictures folder (`pictures.folder`), checked or rebuilt.
public struct LibraryExportRequest: RPCRequest {
    public typealias Result = LibraryExportResult
    public static let method = "library.export"
    public static let summary = """
        The library in the Pictures folder (pictures.folder: My Collection/ and Edits/, one hard or symbolic link per \\
        liked photo's file and per edit): with check, how the folder differs from what it should hold, changing \\
        nothing; without, rebuilt exactly (splashd's entries only; other files stay).
        """
    public static let parameters = [
        ParameterDoc("check", "boolean", "Only compare (default false: rebuild)."),
    ]
    public static let errors: [ErrorKind] = [.conflict]
    public static let example = LibraryExportRequest(check: true)
    public static let resultExample = LibraryExportResult(
        folder: "/home/ana/Pictures/Splash", checked: true, inStep: false, entries: 3,
        missing: ["My Collection/Ana – Tram in Lisbon (unsplash:Dwu85P9SOIk).jpg"],
        extra: ["Edits/Ana – Harbour (3f2a9c1e-5b7d-4e0a-9c1f-2d3e4f5a6b7c).jpg"], wrong: [], made: 0, removed: 0, symlinks: 0,
        failures: [], following: true)

    public var check: Bool?

    public init(check: Bool? = nil) {
        self.check = check
    }
}

public struct LibraryExportResult: Codable, Sendable, Equatable {
    public var folder: String
    /// Only compared: nothing was changed.
    public var checked: Bool
    /// The folder holds what it should, now (after a rebuild with no failures, always).
    public var inStep: Bool
    /// The entries it should hold.
    public var entries: Int
    /// How it differed, before any change: entries missing, splashd's entries that should not be there,
    /// and entries under the right name that are not the right file. Relative to the folder.
    public var missing: [String]
    public var extra: [String]
    public var wrong: [String]
    /// What a rebuild did: entries made (of them, symbolic links) and removed.
    public var made: Int
    public var removed: Int
    public var symlinks: Int
    /// Entries a rebuild could not make or remove, with why.
    public var failures: [String]
    /// The library changed and splashd has yet to bring the folder after it (it waits a moment after the
    /// last change, and for files still downloading): what is missing now may be made without a rebuild.
    public var following: Bool

    public init(
        folder: String, checked: Bool, inStep: Bool, entries: Int, missing: [String], extra: [String], wrong: [String], made: Int,
        removed: Int, symlinks: Int, failures: [String], following: Bool
    ) {
        self.folder = folder
        self.checked = checked
        self.inStep = inStep
        self.entries = entries
        self.missing = missing
        self.extra = extra
        self.wrong = wrong
        self.made = made
        self.removed = removed
        self.symlinks = symlinks
        self.failures = failures
        self.following = following
    }
}
