/// Unsplash's colour filter values, and the bucket a photo's dominant colour (`#60544D`) falls in, so
/// `photos.list --color blue` works offline on any source.
public enum ColorBucket: String, Codable, Sendable, CaseIterable {
    case blackAndWhite = "black_and_white"
    case black, white, yellow, orange, red, purple, magenta, green, teal, blue

    /// The bucket of a `#RRGGBB` colour, by hue, saturation and lightness. Greys (low saturation) go to
    /// black, white or black_and_white by lightness.
    public init?(hex: String) {
        var text = Substring(hex)
        if text.hasPrefix("#") { text = text.dropFirst() }
        guard text.count == 6, let value = UInt32(text, radix: 16) else { return nil }
        let r = Double((value >> 16) & 0xFF) / 255
        let g = Double((value >> 8) & 0xFF) / 255
        let b = Double(value & 0xFF) / 255
        let maxC = max(r, g, b), minC = min(r, g, b)
        let lightness = (maxC + minC) / 2
        let delta = maxC - minC
        let saturation = delta == 0 ? 0 : delta / (1 - abs(2 * lightness - 1))
        if saturation < 0.15 || delta < 0.06 {
            if lightness < 0.2 { self = .black } else if lightness > 0.85 { self = .white } else { self = .blackAndWhite }
            return
        }
        if lightness < 0.1 { self = .black; return }
        if lightness > 0.95 { self = .white; return }
        var hue: Double
        if maxC == r {
            hue = 60 * ((g - b) / delta).truncatingRemainder(dividingBy: 6)
        } else if maxC == g {
            hue = 60 * ((b - r) / delta + 2)
        } else {
            hue = 60 * ((r - g) / delta + 4)
        }
        if hue < 0 { hue += 360 }
        switch hue {
        case ..<15: self = .red
        case ..<40: self = .orange
        case ..<70: self = .yellow
        case ..<160: self = .green
        case ..<195: self = .teal
        case ..<255: self = .blue
        case ..<285: self = .purple
        // Purple and magenta share hues around 300°; dark ones read as purple (#800080), bright as magenta.
        case ..<340: self = lightness < 0.35 ? .purple : .magenta
        default: self = .red
        }
    }
}
