internal import CVips
import Foundation

/// Decoded 8-bit pixels, row by row, `bands` values per pixel.
public struct RawPixels: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var bands: Int
    public var bytes: [UInt8]

    public func value(x: Int, y: Int, band: Int) -> UInt8 {
        bytes[(y * width + x) * bands + band]
    }
}

/// Pixels out of an encoded image: golden-image tests compare them, the perceptual hash reads a
/// 32 × 32 grey one.
public enum PixelReader {
    /// Every pixel of an encoded image (JPEG, PNG, ...) as 8-bit sRGB.
    public static func rgb(encoded data: Data) throws(EditingError) -> RawPixels {
        try decoding(data, width: 1 << 20, height: 1 << 20) { decoded throws(EditingError) in
            try raw(try decoded.then("colourspace") { splashd_vips_to_srgb($0, $1) })
        }
    }

    /// `data` decoded to fit inside `width` × `height` and made into pixels by `pixels`, inside the scope
    /// that keeps the bytes alive: the decoder reads them lazily.
    private static func decoding(
        _ data: Data, width: Int, height: Int, _ pixels: (VipsPicture) throws(EditingError) -> RawPixels
    ) throws(EditingError) -> RawPixels {
        try VipsRuntime.start()
        var bytes = [UInt8](data)
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(EditingError) -> RawPixels in
                try pixels(try VipsPicture.make("decode") { out in
                    splashd_vips_thumbnail_buffer_box(buffer.baseAddress, buffer.count, out, Int32(max(1, width)), Int32(max(1, height)))
                })
            }
        }
        return try result.get()
    }

    /// `file` shrunk to exactly `size` × `size` grey pixels (orientation applied).
    public static func grey(file: URL, size: Int, limits: ImageEditor.Limits) throws(EditingError) -> RawPixels {
        _ = try ImageEditor.open(file, limits: limits, sequential: true)
        let small = try VipsPicture.make("thumbnail") { out in
            file.path.withCString { splashd_vips_thumbnail_forced($0, out, Int32(size), Int32(size)) }
        }
        var image = small
        if image.hasAlpha { image = try image.then("flatten") { splashd_vips_flatten_white($0, $1) } }
        image = try image.then("colourspace") { splashd_vips_to_bw($0, $1) }
        image = try image.then("cast") { splashd_vips_cast($0, $1, Int32(SPLASHD_VIPS_FORMAT_UCHAR)) }
        return try raw(image)
    }

    /// `file` shrunk (never enlarged) to fit inside `width` × `height`, orientation applied, as 8-bit
    /// sRGB with alpha (4 bands, rows of width × 4 bytes): what a terminal picture is drawn from.
    /// JPEG shrink-on-load keeps a 24-megapixel photo's decode small.
    public static func rgba(file: URL, width: Int, height: Int, limits: ImageEditor.Limits) throws(EditingError) -> RawPixels {
        _ = try ImageEditor.open(file, limits: limits, sequential: true)
        let image = try VipsPicture.make("thumbnail") { out in
            file.path.withCString { splashd_vips_thumbnail_box($0, out, Int32(max(1, width)), Int32(max(1, height))) }
        }
        return try rgba(image)
    }

    /// An encoded image (a preview's JPEG) as `rgba(file:)` makes a file.
    public static func rgba(encoded data: Data, width: Int, height: Int) throws(EditingError) -> RawPixels {
        try decoding(data, width: width, height: height) { decoded throws(EditingError) in try rgba(decoded) }
    }

    private static func rgba(_ picture: VipsPicture) throws(EditingError) -> RawPixels {
        var image = try picture.then("colourspace") { splashd_vips_to_srgb($0, $1) }
        if !image.hasAlpha { image = try image.then("alpha") { splashd_vips_addalpha($0, $1) } }
        let pixels = try raw(image)
        guard pixels.bands == 4 else { throw .unsupported("images with \(pixels.bands - 1) colour channels") }
        return pixels
    }

    static func raw(_ image: VipsPicture) throws(EditingError) -> RawPixels {
        let eight = try image.then("cast") { splashd_vips_cast($0, $1, Int32(SPLASHD_VIPS_FORMAT_UCHAR)) }
        var length = 0
        guard let memory = splashd_vips_write_memory(eight.pointer, &length) else {
            throw .corrupt(VipsRuntime.takeError())
        }
        defer { splashd_vips_free(memory) }
        let bytes = [UInt8](UnsafeRawBufferPointer(start: memory, count: length))
        return RawPixels(width: eight.width, height: eight.height, bands: eight.bands, bytes: bytes)
    }
}
