import Foundation

/// A 64-bit DCT perceptual hash (the "pHash" of Zauner's thesis, as NicePhotoApp used): the image
/// shrunk to 32 × 32 grey, its 2-D DCT, the 8 × 8 lowest frequencies but the DC term compared with
/// their median. Near-duplicates — a re-encode, a resize, a small crop or colour change — land a few
/// bits apart; different photos about half of 64.
public struct PerceptualHash: Sendable, Equatable, Hashable, CustomStringConvertible {
    public let value: UInt64

    public init(value: UInt64) {
        self.value = value
    }

    public init?(hex: String) {
        guard let value = UInt64(hex, radix: 16) else { return nil }
        self.value = value
    }

    /// The hash of 32 × 32 grey pixels.
    public init(grey pixels: RawPixels) {
        precondition(pixels.width == 32 && pixels.height == 32 && pixels.bands == 1, "pHash reads 32 × 32 grey pixels")
        let n = 32
        let input = pixels.bytes.map(Double.init)
        // Separable DCT-II; only the 8 lowest frequencies in each direction are needed.
        let cosines: [[Double]] = (0..<8).map { u in (0..<n).map { x in cos(Double((2 * x + 1) * u) * Double.pi / Double(2 * n)) } }
        var rows = [Double](repeating: 0, count: n * 8)  // for each y, 8 frequencies along x
        for y in 0..<n {
            for u in 0..<8 {
                var sum = 0.0
                for x in 0..<n { sum += input[y * n + x] * cosines[u][x] }
                rows[y * 8 + u] = sum
            }
        }
        var coefficients: [Double] = []
        for v in 0..<8 {
            for u in 0..<8 {
                var sum = 0.0
                for y in 0..<n { sum += rows[y * 8 + u] * cosines[v][y] }
                coefficients.append(sum)
            }
        }
        let ac = Array(coefficients.dropFirst())
        let median = ac.sorted()[ac.count / 2]
        var bits: UInt64 = 0
        for (index, coefficient) in coefficients.enumerated() where index > 0 && coefficient > median {
            bits |= 1 << UInt64(index)
        }
        value = bits
    }

    /// The hash of an image file.
    public static func of(file: URL, limits: ImageEditor.Limits) throws(EditingError) -> PerceptualHash {
        PerceptualHash(grey: try PixelReader.grey(file: file, size: 32, limits: limits))
    }

    public func distance(to other: PerceptualHash) -> Int {
        (value ^ other.value).nonzeroBitCount
    }

    public var description: String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
