internal import CVips
import Dispatch
import Foundation
import Shared

/// Reads images and renders edits with libvips. The public face of this module: everything else in it
/// is how.
///
/// Work runs on one serial queue of its own, never on Swift's cooperative threads (libvips blocks,
/// and uses two worker threads of its own). Results come back as JPEG bytes, except a full-size edit
/// saved for keeping, which goes straight into the open file its caller hands over (and then makes
/// durable and moves into place): held in memory, a 24 MP edit's JPEG was 15 MB, its buffer's growth
/// as much again, and a copy of it a third.
public struct ImageEditor: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Images above this many pixels are refused from their header, before decoding.
        public var maxPixels: Int
        /// JPEG quality of saved edits, 1...100.
        public var jpegQuality: Int

        public init(maxPixels: Int = 64_000_000, jpegQuality: Int = 90) {
            self.maxPixels = maxPixels
            self.jpegQuality = jpegQuality
        }
    }

    public let limits: Limits
    private static let queue = DispatchQueue(label: "splashd.editing", qos: .utility)

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Size and format from the header alone.
    public func probe(_ source: URL) async throws(EditingError) -> ImageInfo {
        try await run { () throws(EditingError) -> ImageInfo in try Self.open(source, limits: limits, sequential: true).info }
    }

    /// The 64-bit DCT perceptual hash of an image file (see PerceptualHash).
    public func perceptualHash(_ source: URL) async throws(EditingError) -> PerceptualHash {
        try await run { () throws(EditingError) -> PerceptualHash in try PerceptualHash.of(file: source, limits: limits) }
    }

    /// A copy of a large photo for drawing terminal pictures from (see ScreenRendition), orientation
    /// applied; nil when the photo is small enough to be drawn from its own file.
    public func screenRendition(_ source: URL) async throws(EditingError) -> RenderedImage? {
        try await run { () throws(EditingError) -> RenderedImage? in
            let opened = try Self.open(source, limits: limits, sequential: true)
            guard opened.info.width * opened.info.height > ScreenRendition.worthwhilePixels else { return nil }
            let thumbnail = try VipsPicture.make("thumbnail") { out in
                source.path.withCString { splashd_vips_thumbnail($0, out, Int32(ScreenRendition.longEdge)) }
            }
            let scale = Double(thumbnail.width) / Double(max(1, opened.info.width))
            return try Self.render(thumbnail, steps: [], scale: scale, quality: ScreenRendition.jpegQuality)
        }
    }

    /// A small rendering, `size` pixels on its longer side at most, decoded with shrink-on-load.
    /// Cancelling the calling task stops it (`EditingError.cancelled`): waiting for its turn, or while
    /// libvips computes it.
    public func preview(source: URL, steps: [FilterStep], size: Int) async throws(EditingError) -> RenderedImage {
        let cancellation = RenderCancellation()
        return try await run(stoppedBy: cancellation) { () throws(EditingError) -> RenderedImage in
            guard !cancellation.isCancelled else { throw .cancelled }
            let opened = try Self.open(source, limits: limits, sequential: true)
            let thumbnail = try VipsPicture.make("thumbnail") { out in
                source.path.withCString { splashd_vips_thumbnail($0, out, Int32(size)) }
            }
            let scale = Double(thumbnail.width) / Double(max(1, opened.info.width))
            return try Self.render(thumbnail, steps: steps, scale: scale, quality: limits.jpegQuality, cancellation: cancellation)
        }
    }

    /// The full-size edit: orientation applied, sRGB, JPEG at the configured quality.
    public func render(source: URL, steps: [FilterStep]) async throws(EditingError) -> RenderedImage {
        try await run { () throws(EditingError) -> RenderedImage in
            let working = try Self.pipeline(try Self.fullSize(source, limits: limits), steps: steps, scale: 1)
            return try Self.encode(working, quality: limits.jpegQuality, cancellation: nil)
        }
    }

    /// The full-size edit written as a JPEG into the open file `descriptor`, from its offset (not
    /// synced, left open). A failure may leave part of it written.
    public func render(source: URL, steps: [FilterStep], into descriptor: Int32) async throws(EditingError) {
        try await run { () throws(EditingError) in
            let working = try Self.pipeline(try Self.fullSize(source, limits: limits), steps: steps, scale: 1)
            guard splashd_vips_jpegsave_fd(working.pointer, descriptor, Int32(limits.jpegQuality), Self.optimizeCoding(working)) == 0 else {
                throw .corrupt(VipsRuntime.takeError())
            }
        }
    }

    // MARK: - Inside the queue

    struct Opened {
        let picture: VipsPicture
        let info: ImageInfo
    }

    /// The source at full size, orientation applied.
    static func fullSize(_ source: URL, limits: Limits) throws(EditingError) -> VipsPicture {
        let opened = try open(source, limits: limits, sequential: true)
        guard opened.info.orientation > 1 else { return opened.picture }
        // Rotating needs the pixels in any order: reopen for random access.
        let random = try open(source, limits: limits, sequential: false)
        return try random.picture.then("autorot") { splashd_vips_autorot($0, $1) }
    }

    static func open(_ source: URL, limits: Limits, sequential: Bool) throws(EditingError) -> Opened {
        try VipsRuntime.start()
        let path = source.path
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .io(.cannotRead(path: path, reason: String(cString: strerror(errno))))
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw .unsupported("\(path) is not a regular file") }
        guard access(path, R_OK) == 0 else { throw .io(.cannotRead(path: path, reason: String(cString: strerror(errno)))) }
        guard let loader = splashd_vips_find_loader(path) else {
            _ = VipsRuntime.takeError()
            throw .unsupported("\(URL(fileURLWithPath: path).lastPathComponent) is not in a known image format (JPEG, PNG, WebP, TIFF, GIF, HEIF)")
        }
        guard let pointer = splashd_vips_open(path, sequential ? 1 : 0) else {
            throw .corrupt(VipsRuntime.takeError())
        }
        let picture = VipsPicture(owning: pointer)
        let swaps = splashd_vips_orientation_swaps(pointer) != 0
        let info = ImageInfo(
            width: swaps ? picture.height : picture.width, height: swaps ? picture.width : picture.height,
            format: ImageInfo.format(ofLoader: String(cString: loader)), orientation: picture.orientation,
            takenAt: splashd_vips_header_string(pointer, "exif-ifd2-DateTimeOriginal").flatMap { ImageInfo.exifDate(String(cString: $0)) })
        guard info.width * info.height <= limits.maxPixels else {
            throw .tooLarge(width: info.width, height: info.height, limitPixels: limits.maxPixels)
        }
        return Opened(picture: picture, info: info)
    }

    /// Normalises to 3-band float sRGB (alpha flattened onto white), filters, and encodes.
    static func render(
        _ image: VipsPicture, steps: [FilterStep], scale: Double, quality: Int, cancellation: RenderCancellation? = nil
    ) throws(EditingError) -> RenderedImage {
        try encode(try pipeline(image, steps: steps, scale: scale), quality: quality, cancellation: cancellation)
    }

    /// The image as 8-bit sRGB with the steps applied, not computed yet.
    static func pipeline(_ image: VipsPicture, steps: [FilterStep], scale: Double) throws(EditingError) -> VipsPicture {
        var working = image
        if working.hasAlpha { working = try working.then("flatten") { splashd_vips_flatten_white($0, $1) } }
        working = try working.then("colourspace") { splashd_vips_to_srgb($0, $1) }
        guard working.bands == 3 else { throw .unsupported("images with \(working.bands) colour channels") }
        working = try working.then("cast") { splashd_vips_cast($0, $1, Int32(SPLASHD_VIPS_FORMAT_FLOAT)) }
        working = try FilterRenderer(scale: scale).apply(steps, to: working)
        // Round, then clip to 0...255 (libvips' cast clips out-of-range values).
        working = try working.then("linear") { input, out in
            var a = 1.0, b = 0.5
            return splashd_vips_linear(input, out, &a, &b, 1)
        }
        return try working.then("cast") { splashd_vips_cast($0, $1, Int32(SPLASHD_VIPS_FORMAT_UCHAR)) }
    }

    /// Computes `working` into a JPEG: this is where libvips does the work of `pipeline`.
    static func encode(_ working: VipsPicture, quality: Int, cancellation: RenderCancellation?) throws(EditingError) -> RenderedImage {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        // Decoding happens here, as the encoder pulls pixels through the pipeline: a damaged file
        // fails now, and nothing has been written anywhere.
        func save() throws(EditingError) {
            guard splashd_vips_jpegsave_buffer(working.pointer, &buffer, &length, Int32(quality), optimizeCoding(working)) == 0 else {
                throw .corrupt(VipsRuntime.takeError())
            }
        }
        if let cancellation { try cancellation.computing(working, save) } else { try save() }
        guard let buffer else { throw .corrupt(VipsRuntime.takeError()) }
        defer { splashd_vips_free(buffer) }
        return RenderedImage(jpeg: Data(bytes: buffer, count: length), width: working.width, height: working.height)
    }

    /// Huffman tables optimised only up to 4 MP: above that libjpeg's second pass would hold all the
    /// coefficients (140 MB at 24 MP), the largest cost of an edit, for a file ~4 % smaller.
    static func optimizeCoding(_ working: VipsPicture) -> Int32 {
        working.width * working.height <= 4_000_000 ? 1 : 0
    }

    /// Runs `body` on the editing queue; with a `cancellation`, cancelling the calling task cancels it.
    private func run<T: Sendable>(
        stoppedBy cancellation: RenderCancellation? = nil, _ body: @escaping @Sendable () throws(EditingError) -> T
    ) async throws(EditingError) -> T {
        let result: Result<T, EditingError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Self.queue.async {
                    continuation.resume(returning: Result { () throws(EditingError) -> T in try body() })
                }
            }
        } onCancel: {
            cancellation?.cancel()
        }
        return try result.get()
    }
}

/// What a header says.
public struct ImageInfo: Sendable, Equatable {
    /// As displayed, after the EXIF orientation.
    public var width: Int
    public var height: Int
    /// jpeg, png, webp, tiff, gif, heif, or the loader's name.
    public var format: String
    public var orientation: Int
    /// EXIF DateTimeOriginal, read as UTC (EXIF has no time zone).
    public var takenAt: Date?

    /// EXIF's "2019:07:14 18:20:11", possibly followed by libvips' description in parentheses.
    static func exifDate(_ text: String) -> Date? {
        let digits = text.prefix(19)
        guard digits.count == 19 else { return nil }
        var components = DateComponents()
        components.timeZone = TimeZone(identifier: "UTC")
        let numbers = digits.split(whereSeparator: { $0 == ":" || $0 == " " }).compactMap { Int($0) }
        guard numbers.count == 6, numbers[0] > 1800 else { return nil }
        (components.year, components.month, components.day) = (numbers[0], numbers[1], numbers[2])
        (components.hour, components.minute, components.second) = (numbers[3], numbers[4], numbers[5])
        return Calendar(identifier: .gregorian).date(from: components)
    }

    static func format(ofLoader loader: String) -> String {
        let name = loader.lowercased()
        for format in ["jpeg", "png", "webp", "tiff", "gif", "heif", "svg", "pdf"] where name.contains(format) { return format }
        return name
    }
}

/// An encoded result.
public struct RenderedImage: Sendable, Equatable {
    public var jpeg: Data
    public var width: Int
    public var height: Int
}
