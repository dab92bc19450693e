import Shared

/// Why an image could not be read, edited or written. Each case becomes a clear protocol error
/// (WireErrors maps them) and none leaves a file or a row behind. A file's failure is a sentence of
/// the protocol's (DaemonText), so the wire carries it for clients in other languages.
public enum EditingError: Error, Equatable, CustomStringConvertible {
    /// Not an image libvips can read (a text file, an unsupported format).
    case unsupported(String)
    /// An image that cannot be decoded: truncated, corrupt.
    case corrupt(String)
    /// Above the configured pixel limit; checked from the header, before any pixel is decoded.
    case tooLarge(width: Int, height: Int, limitPixels: Int)
    /// Reading or writing a file failed (permissions, a missing file).
    case io(DaemonText)
    /// The disk (or the quota) is full: nothing was written, and the same request succeeds once
    /// there is room.
    case noSpace(DaemonText)
    /// libvips itself failed.
    case engine(String)
    /// The render was stopped: its result is not wanted any more (a preview for a slider position
    /// already left).
    case cancelled

    public var description: String {
        switch self {
        case .unsupported(let detail): "not an image splashd can read: \(detail)"
        case .corrupt(let detail): "the image is damaged: \(detail)"
        case .tooLarge(let width, let height, let limit):
            "the image is \(width) × \(height) (\(megapixels(width * height)) MP), above the limit of \(megapixels(limit)) MP (images.max_megapixels)"
        case .io(let text), .noSpace(let text): text.english
        case .engine(let detail): "the image engine failed: \(detail)"
        case .cancelled: "the render was cancelled"
        }
    }

    private func megapixels(_ pixels: Int) -> String {
        let value = Double(pixels) / 1_000_000
        return value >= 10 ? String(Int(value.rounded())) : String((value * 10).rounded() / 10)
    }
}
