import Foundation

/// What the terminal splashctl writes to can draw, sent with a picture request: the daemon renders,
/// splashctl prints (it owns the tty and detects the terminal; the daemon never sees it).
public struct TerminalSpec: Codable, Sendable, Equatable {
    /// How the picture is drawn: Unicode block symbols with colours (any terminal), or one of the
    /// terminal graphics protocols.
    public enum Mode: String, Codable, Sendable, CaseIterable {
        case symbols, sixel, kitty, iterm
    }

    /// The colours symbols may use; `none` for NO_COLOR (shapes only).
    public enum Colors: String, Codable, Sendable, CaseIterable {
        case truecolor
        case indexed256 = "256"
        case indexed16 = "16"
        case none
    }

    public var mode: Mode
    /// The room for the picture, in cells; the picture keeps its aspect inside it.
    public var columns: Int
    public var rows: Int
    /// A cell's size in pixels (from TIOCGWINSZ or the terminal); pixel modes draw columns × cell
    /// width pixels. Default 8 × 16.
    public var cellWidth: Int?
    public var cellHeight: Int?
    /// Default truecolor.
    public var colors: Colors?
    /// The mode is what splashctl detected, nobody asked for it (no `--image`, no SPLASHCTL_IMAGE): the
    /// daemon's `pictures.terminal`, when not `auto`, decides instead. Default false.
    public var detected: Bool?

    public init(
        mode: Mode, columns: Int, rows: Int, cellWidth: Int? = nil, cellHeight: Int? = nil, colors: Colors? = nil, detected: Bool? = nil
    ) {
        self.mode = mode
        self.columns = columns
        self.rows = rows
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        self.colors = colors
        self.detected = detected
    }

    /// The largest room a picture is drawn in (a huge terminal gets a picture this size, not more).
    public static let maximumColumns = 400
    public static let maximumRows = 200

    public func validate() throws(RPCError) {
        guard columns >= 1, rows >= 1 else { throw .invalidInput(.pictureNeedsRoom, field: "terminal") }
        if let cellWidth, !(1...256).contains(cellWidth) { throw .invalidInput(.mustBeBetween(name: "cell_width", minimum: 1, maximum: 256), field: "terminal") }
        if let cellHeight, !(1...512).contains(cellHeight) { throw .invalidInput(.mustBeBetween(name: "cell_height", minimum: 1, maximum: 512), field: "terminal") }
    }
}

/// `photos.picture`: a photo drawn for a terminal.
public struct PhotosPictureRequest: RPCRequest {
    public typealias Result = PhotoPicture
    public static let method = "photos.picture"
    public static let summary = """
        Draws a photo for a terminal (libchafa): from its library file, else its cached thumbnail, else a thumbnail \\
        fetched now — through the file's screen copy (1600 px, made for photos over 3 MP) when the picture needs no \\
        more. Decoded pixels are kept in a bounded memory tier in front of the files (cache.status reports both).
        """
    public static let parameters = [
        ParameterDoc("id", "string", required: true, "The photo id."),
        ParameterDoc("terminal", "object", required: true, """
            What the terminal can draw: mode (symbols, sixel, kitty, iterm), columns and rows (the room, capped at \\
            400 × 200), cell_width and cell_height in pixels (default 8 × 16), colors (truecolor, 256, 16, none), \\
            detected (true: the mode is splashctl's guess, and the daemon's pictures.terminal, when not auto, decides).
            """),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound, .offline]
    public static let example = PhotosPictureRequest(
        id: "unsplash:Dwu85P9SOIk", terminal: TerminalSpec(mode: .symbols, columns: 80, rows: 20, cellWidth: 9, cellHeight: 18))
    public static let resultExample = PhotoPicture(
        id: "unsplash:Dwu85P9SOIk", text: "\u{1B}[0m\u{1B}[38;2;44;90;140m\u{2584}\u{1B}[0m\n", columns: 1, rows: 1, from: .library,
        path: "/home/ana/.local/share/splashd/library/unsplash/Dwu85P9SOIk.regular.jpg", mode: .symbols)
    public var id: String
    public var terminal: TerminalSpec
    public init(id: String, terminal: TerminalSpec) {
        self.id = id
        self.terminal = terminal
    }
    public func validate() throws(RPCError) {
        try PhotoID.validate(id)
        try terminal.validate()
    }
}

public struct PhotoPicture: Codable, Sendable, Equatable {
    /// Which file the picture was drawn from.
    public enum Origin: String, Codable, Sendable {
        /// The photo's library file.
        case library
        /// A file in the cache (a thumbnail, or a library file unliked since).
        case cache
        /// A thumbnail fetched for this picture.
        case fetched
        /// The screen-sized copy the daemon keeps of a large photo's file (variant `screen`, in the
        /// cache): a 24-megapixel file takes ~150 ms to decode, its copy a few milliseconds.
        case screen
        /// Nothing drawn (`text` empty, no file read): the mode was detected and the daemon's
        /// `pictures.terminal` is `none`.
        case notDrawn = "not_drawn"
    }

    public var id: String
    /// What to write to the terminal as it is: symbol lines ending in newlines, or one graphics sequence.
    public var text: String
    /// The cells it covers.
    public var columns: Int
    public var rows: Int
    public var from: Origin
    public var path: String
    /// The mode it is drawn in (the one asked for, or the daemon's pictures.terminal in place of a
    /// detected one): how the text is to be printed, inside tmux above all. Nil when nothing is drawn.
    public var mode: TerminalSpec.Mode?

    public init(id: String, text: String, columns: Int, rows: Int, from: Origin, path: String, mode: TerminalSpec.Mode? = nil) {
        self.id = id
        self.text = text
        self.columns = columns
        self.rows = rows
        self.from = from
        self.path = path
        self.mode = mode
    }
}

/// `cache.status`'s view of pictures: the memory tier of decoded pixels, and where the files came from.
public struct PictureTiers: Codable, Sendable, Equatable {
    /// Decoded pictures kept in memory (`pictures.memory_mib`).
    public var memoryEntries: Int
    public var memoryBytes: Int64
    public var memoryMaxBytes: Int64
    /// Pictures drawn from pixels kept in memory, and those decoded from a file.
    public var memoryHits: Int
    public var memoryMisses: Int
    /// Of the decodes: a file on this machine (library or cache), or a thumbnail fetched first.
    public var diskHits: Int
    public var diskMisses: Int

    public init(
        memoryEntries: Int, memoryBytes: Int64, memoryMaxBytes: Int64, memoryHits: Int, memoryMisses: Int, diskHits: Int, diskMisses: Int
    ) {
        self.memoryEntries = memoryEntries
        self.memoryBytes = memoryBytes
        self.memoryMaxBytes = memoryMaxBytes
        self.memoryHits = memoryHits
        self.memoryMisses = memoryMisses
        self.diskHits = diskHits
        self.diskMisses = diskMisses
    }
}

/// `photos.pictures`: several photos drawn for a terminal at once (a contact sheet of results).
public struct PhotosPicturesRequest: RPCRequest {
    public typealias Result = PhotoPictures
    public static let method = "photos.pictures"
    public static let summary = """
        Draws up to 60 photos for a terminal, each inside the room `terminal` gives, as photos.picture does; a photo \\
        that cannot be drawn is listed with the reason instead.
        """
    public static let parameters = [
        ParameterDoc("ids", "array of strings", required: true, "The photo ids, 1 to 60."),
        ParameterDoc("terminal", "object", required: true, "As photos.picture's, the room of one picture."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput]
    public static let example = PhotosPicturesRequest(
        ids: ["unsplash:Dwu85P9SOIk", "nasa:PIA12345"], terminal: TerminalSpec(mode: .symbols, columns: 18, rows: 8))
    public static let resultExample = PhotoPictures(
        pictures: [PhotosPictureRequest.resultExample],
        missing: [PictureMissing(id: "nasa:PIA12345", reason: "no picture of nasa:PIA12345 is on this machine: images-assets.nasa.gov does not answer")])
    public static let maximumIDs = 60
    public var ids: [String]
    public var terminal: TerminalSpec
    public init(ids: [String], terminal: TerminalSpec) {
        self.ids = ids
        self.terminal = terminal
    }
    public func validate() throws(RPCError) {
        guard (1...Self.maximumIDs).contains(ids.count) else { throw .invalidInput(.photoIdsCount(maximum: Self.maximumIDs), field: "ids") }
        for id in ids { try PhotoID.validate(id) }
        try terminal.validate()
    }
}

public struct PhotoPictures: Codable, Sendable, Equatable {
    /// In the order asked for, those that could be drawn.
    public var pictures: [PhotoPicture]
    public var missing: [PictureMissing]
    public init(pictures: [PhotoPicture], missing: [PictureMissing]) {
        self.pictures = pictures
        self.missing = missing
    }
}

public struct PictureMissing: Codable, Sendable, Equatable {
    public var id: String
    public var reason: String
    public init(id: String, reason: String) {
        self.id = id
        self.reason = reason
    }
}
