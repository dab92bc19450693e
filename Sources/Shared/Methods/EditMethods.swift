import Foundation

/// `filters.list`: the filter catalogue.
public struct FiltersListRequest: RPCRequest {
    public typealias Result = FiltersListResult
    public static let method = "filters.list"
    public static let summary = "Lists every filter with its parameters, their ranges and defaults."
    public static let example = FiltersListRequest()
    public static let resultExample = FiltersListResult(filters: Array(FilterCatalog.all.filter { ["sepia", "vignette"].contains($0.name) }))
    public init() {}
}

public struct FiltersListResult: Codable, Sendable, Equatable {
    public var filters: [FilterDefinition]
    public init(filters: [FilterDefinition]) { self.filters = filters }
}

/// Checks a request's pipeline the same way for every method that takes one.
private func validatePipeline(_ filters: [FilterStep]) throws(RPCError) {
    _ = try FilterCatalog.resolve(filters)
}

/// `edits.preview`: a small rendering of a pipeline, returned as JPEG bytes; nothing is saved.
public struct EditsPreviewRequest: RPCRequest {
    public typealias Result = EditPreviewResult
    public static let method = "edits.preview"
    /// A slider moved again: the render for the old position is not wanted any more.
    public static let isCancellable = true
    public static let summary = "Renders a small preview of filters on a photo (shrink-on-load); nothing is saved."
    public static let parameters = [
        ParameterDoc("id", "string", required: true, "The photo id."),
        ParameterDoc("filters", "array", required: true, "Steps, each {\"filter\": name, \"params\": [numbers]}; left-out parameters take their defaults."),
        ParameterDoc("size", "integer", "Longest side in pixels, \(sizes.lowerBound) to \(sizes.upperBound), default \(defaultSize)."),
        ParameterDoc("terminal", "object", "Also draw the original and the preview for a terminal, each in this room (as photos.picture's)."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound, .offline, .tooLarge, .noSpace, .cancelled]
    public static let example = EditsPreviewRequest(id: "unsplash:Dwu85P9SOIk", filters: [FilterStep(filter: "sepia", params: [0.8])], size: 512)
    public static let resultExample = EditPreviewResult(jpeg: Data([0xFF, 0xD8, 0xFF, 0xE0]), width: 512, height: 341)
    public static let sizes = 16...2048
    public static let defaultSize = 512

    public var id: String
    public var filters: [FilterStep]
    public var size: Int?
    public var terminal: TerminalSpec?

    public init(id: String, filters: [FilterStep], size: Int? = nil, terminal: TerminalSpec? = nil) {
        self.id = id
        self.filters = filters
        self.size = size
        self.terminal = terminal
    }

    public func validate() throws(RPCError) {
        try PhotoID.validate(id)
        try validatePipeline(filters)
        if let size, !Self.sizes.contains(size) {
            throw .invalidInput(.mustBeBetweenNot(name: "size", minimum: Self.sizes.lowerBound, maximum: Self.sizes.upperBound, given: size), field: "size")
        }
        try terminal?.validate()
    }
}

public struct EditPreviewResult: Codable, Sendable, Equatable {
    /// JPEG bytes (base64 in JSON).
    public var jpeg: Data
    public var width: Int
    public var height: Int
    /// With `terminal`: the original and the preview drawn, to print side by side.
    public var original: PhotoPicture?
    public var filtered: PhotoPicture?
    public init(jpeg: Data, width: Int, height: Int, original: PhotoPicture? = nil, filtered: PhotoPicture? = nil) {
        self.jpeg = jpeg
        self.width = width
        self.height = height
        self.original = original
        self.filtered = filtered
    }
}

/// `edits.create`: renders and saves an edit beside the original, queued for upload.
public struct EditsCreateRequest: RPCRequest {
    public typealias Result = EditSummary
    public static let method = "edits.create"
    public static let summary = "Saves a filtered edit of a photo (the original stays untouched); queued for upload to Storage. Works offline once the original is here."
    public static let parameters = [
        ParameterDoc("id", "string", required: true, "The photo id."),
        ParameterDoc("filters", "array", required: true, "Steps, each {\"filter\": name, \"params\": [numbers]}."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound, .notSignedIn, .offline, .tooLarge, .noSpace]
    public static let example = EditsCreateRequest(
        id: "unsplash:Dwu85P9SOIk", filters: [FilterStep(filter: "sepia", params: [0.8]), FilterStep(filter: "vignette", params: [1, 0.6])])
    public static let resultExample = EditSummary.example

    public var id: String
    public var filters: [FilterStep]

    public init(id: String, filters: [FilterStep]) {
        self.id = id
        self.filters = filters
    }

    public func validate() throws(RPCError) {
        try PhotoID.validate(id)
        try validatePipeline(filters)
    }
}

/// `edits.list`: the account's edits, newest first.
public struct EditsListRequest: RPCRequest {
    public typealias Result = EditsListResult
    public static let method = "edits.list"
    public static let summary = "Lists the signed-in account's edits, newest first; of one photo when id is given."
    public static let parameters = [ParameterDoc("id", "string", "Only this photo's edits.")]
    public static let errors: [ErrorKind] = [.invalidInput, .notSignedIn]
    public static let example = EditsListRequest(id: "unsplash:Dwu85P9SOIk")
    public static let resultExample = EditsListResult(edits: [EditSummary.example])

    public var id: String?
    public init(id: String? = nil) { self.id = id }
    public func validate() throws(RPCError) {
        if let id { try PhotoID.validate(id) }
    }
}

public struct EditsListResult: Codable, Sendable, Equatable {
    public var edits: [EditSummary]
    public init(edits: [EditSummary]) { self.edits = edits }
}

/// `edits.delete`: removes an edit here and, through the outbox, on the server and in Storage.
public struct EditsDeleteRequest: RPCRequest {
    public typealias Result = EditDeleteResult
    public static let method = "edits.delete"
    public static let summary = "Removes an edit: its rendering here now, the server row (a tombstone) and the Storage object when online."
    public static let parameters = [ParameterDoc("edit_id", "string", required: true, "The edit's id (edits.list shows them).")]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound, .notSignedIn]
    public static let example = EditsDeleteRequest(editId: "7d0c64f5-4a6e-4d1e-9b7e-2f4f0a9f3c11")
    public static let resultExample = EditDeleteResult(editId: "7d0c64f5-4a6e-4d1e-9b7e-2f4f0a9f3c11", changed: true, queued: true)

    public var editId: String
    public init(editId: String) { self.editId = editId }
    public func validate() throws(RPCError) {
        guard UUID(uuidString: editId) != nil else {
            throw .invalidInput(.notAnEditId(editId: String(editId.prefix(60))), field: "edit_id")
        }
    }
}

public struct EditDeleteResult: Codable, Sendable, Equatable {
    public var editId: String
    /// False when it was already removed.
    public var changed: Bool
    /// The server must still hear of it (false when the edit never left this machine).
    public var queued: Bool
    public init(editId: String, changed: Bool, queued: Bool) {
        self.editId = editId
        self.changed = changed
        self.queued = queued
    }
}

/// One edit as clients see it.
public struct EditSummary: Codable, Sendable, Equatable {
    public var editId: String
    public var photoId: String
    public var filters: [FilterStep]
    /// The rendering on this machine (absolute), nil while it is not here (another device's edit
    /// still downloading).
    public var path: String?
    public var bytes: Int64?
    /// pending (waiting for upload), synced, rejected (the server refused; see splashctl queue), or
    /// guest (made signed out: kept on this machine until an account adopts it).
    public var state: String
    public var createdAt: Date

    public init(editId: String, photoId: String, filters: [FilterStep], path: String?, bytes: Int64?, state: String, createdAt: Date) {
        self.editId = editId
        self.photoId = photoId
        self.filters = filters
        self.path = path
        self.bytes = bytes
        self.state = state
        self.createdAt = createdAt
    }

    public static let example = EditSummary(
        editId: "7d0c64f5-4a6e-4d1e-9b7e-2f4f0a9f3c11", photoId: "unsplash:Dwu85P9SOIk",
        filters: [FilterStep(filter: "sepia", params: [0.8]), FilterStep(filter: "vignette", params: [1, 0.6])],
        path: "/home/ana/.local/share/splashd/library/unsplash/Dwu85P9SOIk.edit-7d0c64f5-4a6e-4d1e-9b7e-2f4f0a9f3c11.jpg",
        bytes: 412_331, state: "pending", createdAt: Date(timeIntervalSince1970: 1_795_000_000))
}
