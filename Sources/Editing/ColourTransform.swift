import Foundation

/// An affine colour transform on 0...255 RGB: `out = matrix · in + offset`. The photo effects and the
/// colour controls are all of this shape, so a run of them folds into one transform and costs one
/// pass over the pixels however long the run is.
struct ColourTransform: Equatable, Sendable {
    /// Row-major 3×3.
    var matrix: [Double]
    var offset: [Double]

    static let identity = ColourTransform(matrix: [1, 0, 0, 0, 1, 0, 0, 0, 1], offset: [0, 0, 0])

    /// Rec. 709 luma weights: what "grey" means for every black-and-white effect here.
    static let luma: [Double] = [0.2126, 0.7152, 0.0722]

    static let grey = ColourTransform(matrix: luma + luma + luma, offset: [0, 0, 0])

    /// The classic sepia matrix (Microsoft's, used by most photo tools).
    static let sepiaTone = ColourTransform(
        matrix: [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131], offset: [0, 0, 0])

    static func saturation(_ s: Double) -> ColourTransform {
        identity.blended(with: grey, amount: 1 - s)
    }

    /// Around mid-grey, so the middle tone stays where it is.
    static func contrast(_ c: Double) -> ColourTransform {
        ColourTransform(matrix: [c, 0, 0, 0, c, 0, 0, 0, c], offset: Array(repeating: 127.5 * (1 - c), count: 3))
    }

    /// `amount` is a fraction of white.
    static func brightness(_ amount: Double) -> ColourTransform {
        ColourTransform(matrix: identity.matrix, offset: Array(repeating: 255 * amount, count: 3))
    }

    static func tint(_ red: Double, _ green: Double, _ blue: Double) -> ColourTransform {
        ColourTransform(matrix: identity.matrix, offset: [red, green, blue])
    }

    static func scale(_ factor: Double) -> ColourTransform {
        ColourTransform(matrix: [factor, 0, 0, 0, factor, 0, 0, 0, factor], offset: [0, 0, 0])
    }

    static let invert = ColourTransform(matrix: [-1, 0, 0, 0, -1, 0, 0, 0, -1], offset: [255, 255, 255])

    /// `self` then `next`: next.matrix · (self.matrix · x + self.offset) + next.offset.
    func then(_ next: ColourTransform) -> ColourTransform {
        var matrix = [Double](repeating: 0, count: 9)
        var offset = [Double](repeating: 0, count: 3)
        for row in 0..<3 {
            for column in 0..<3 {
                matrix[row * 3 + column] = (0..<3).reduce(0) { $0 + next.matrix[row * 3 + $1] * self.matrix[$1 * 3 + column] }
            }
            offset[row] = (0..<3).reduce(next.offset[row]) { $0 + next.matrix[row * 3 + $1] * self.offset[$1] }
        }
        return ColourTransform(matrix: matrix, offset: offset)
    }

    /// (1 - amount) · self + amount · other.
    func blended(with other: ColourTransform, amount: Double) -> ColourTransform {
        ColourTransform(
            matrix: zip(matrix, other.matrix).map { (1 - amount) * $0 + amount * $1 },
            offset: zip(offset, other.offset).map { (1 - amount) * $0 + amount * $1 })
    }

    /// Applies the transform to one pixel (tests, and the docs' examples).
    func apply(_ rgb: [Double]) -> [Double] {
        (0..<3).map { row in (0..<3).reduce(offset[row]) { $0 + matrix[row * 3 + $1] * rgb[$1] } }
    }

    /// The transform a colour filter stands for, or nil for a filter that works on neighbourhoods
    /// (blur, sharpen, vignette, pixellate). `params` are resolved (FilterCatalog.resolve).
    static func of(_ filter: String, _ params: [Double]) -> ColourTransform? {
        switch filter {
        case "sepia": identity.blended(with: sepiaTone, amount: params[0])
        case "mono": grey
        case "noir": grey.then(.contrast(1.35)).then(.brightness(-0.02))
        case "tonal": grey.then(.contrast(0.8)).then(.brightness(0.03))
        case "chrome": saturation(1.25).then(.contrast(1.1))
        case "fade": saturation(0.7).then(.contrast(0.8)).then(.brightness(0.05))
        case "instant": saturation(0.85).then(.contrast(0.9)).then(.tint(10, 5, -12))
        case "process": saturation(0.9).then(.contrast(1.12)).then(.tint(-8, 2, 14))
        case "transfer": saturation(1.1).then(.contrast(1.05)).then(.tint(12, 4, -10))
        case "invert": invert
        case "color": saturation(params[2]).then(.contrast(params[1])).then(.brightness(params[0]))
        // Stops act on linear light; on gamma-2.2 values that is a scale by 2^(ev / 2.2).
        case "exposure": scale(pow(2, params[0] / 2.2))
        default: nil
        }
    }
}
