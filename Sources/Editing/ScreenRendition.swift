/// A screen-sized copy of a large photo, kept in the cache, that terminal pictures are drawn from.
///
/// Why: a 24-megapixel JPEG costs about 150 ms to decode however small the picture, because entropy
/// decoding every coefficient is most of the work and shrink-on-load cannot skip it; its 1600-pixel
/// copy decodes in a few milliseconds. The copy is made once, off the downloads' path, when the file
/// arrives (or after the first picture drawn from a file that had none).
public enum ScreenRendition {
    /// The copy's longer side, in pixels: enough for any symbol picture up to the terminal size cap and
    /// for a pixel-mode picture up to 1600 pixels on its longer side; a larger box is drawn from the file.
    public static let longEdge = 1600
    /// Photos of at most this many pixels get no copy: their own file decodes in about 20 ms or less.
    public static let worthwhilePixels = 3_000_000
    /// The copy's JPEG quality: it is looked at through a terminal, never printed.
    public static let jpegQuality = 85

    /// Whether a copy serves a picture whose decode box is `width` × `height`: the copy would be shrunk
    /// (or kept) to fit, never enlarged, so the picture is as sharp as one drawn from the file.
    public static func serves(boxWidth width: Int, boxHeight height: Int) -> Bool {
        max(width, height) <= longEdge
    }

    /// The cache file's variant in `photo_files`.
    public static let variant = "screen"
}
