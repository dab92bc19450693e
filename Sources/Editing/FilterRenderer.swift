internal import CVips
import Shared

/// Applies a resolved pipeline to an image in float sRGB. Runs of colour filters fold into one
/// `ColourTransform` (one pass); the rest are libvips operations that stream, so memory stays at a few
/// strips of the image whatever its size.
///
/// `scale` is output pixels per original pixel: a preview renders at a fraction of the size, and the
/// filters that measure in pixels (blur, sharpen, pixellate) shrink with it so the preview looks like
/// the saved edit.
struct FilterRenderer {
    let scale: Double

    func apply(_ steps: [FilterStep], to start: VipsPicture) throws(EditingError) -> VipsPicture {
        var image = start
        var pending: ColourTransform?
        for step in steps {
            let params = step.params ?? []
            if let transform = ColourTransform.of(step.filter, params) {
                pending = pending.map { $0.then(transform) } ?? transform
                continue
            }
            if let transform = pending {
                image = try colour(image, transform)
                pending = nil
            }
            image = try spatial(step.filter, params, image)
        }
        if let transform = pending { image = try colour(image, transform) }
        return image
    }

    private func colour(_ image: VipsPicture, _ transform: ColourTransform) throws(EditingError) -> VipsPicture {
        let matrixed = try transform.matrix.withUnsafeBufferPointer { matrix throws(EditingError) in
            try image.then("recomb") { splashd_vips_recomb($0, $1, matrix.baseAddress) }
        }
        guard transform.offset.contains(where: { $0 != 0 }) else { return matrixed }
        return try linear(matrixed, multiply: [1, 1, 1], add: transform.offset)
    }

    private func spatial(_ filter: String, _ params: [Double], _ image: VipsPicture) throws(EditingError) -> VipsPicture {
        switch filter {
        case "blur":
            let sigma = params[0] * scale
            guard sigma >= 0.2 else { return image }
            return try image.then("gaussblur") { splashd_vips_gaussblur($0, $1, sigma) }
        case "sharpen":
            // Unsharp mask: (1 + a)·image − a·blurred.
            let amount = params[0]
            guard amount > 0 else { return image }
            let sigma = max(0.5, 1.5 * scale)
            let blurred = try image.then("gaussblur") { splashd_vips_gaussblur($0, $1, sigma) }
            let lifted = try linear(image, multiply: [1 + amount], add: [0])
            let detail = try linear(blurred, multiply: [-amount], add: [0])
            return try VipsPicture.make("add") { splashd_vips_add(lifted.pointer, detail.pointer, $0) }
        case "vignette":
            return try vignette(image, intensity: params[0], radius: params[1])
        case "pixellate":
            let block = Int((params[0] * scale).rounded())
            guard block > 1 else { return image }
            let width = image.width, height = image.height
            let small = try image.then("shrink") { splashd_vips_shrink($0, $1, Double(block)) }
            let blocks = try small.then("zoom") { splashd_vips_zoom($0, $1, Int32(block)) }
            return try blocks.then("embed") { splashd_vips_embed_copy($0, $1, Int32(width), Int32(height)) }
        default:
            // FilterCatalog.resolve lets only known filters through; this is a programming error.
            throw .engine("no renderer for filter '\(filter)'")
        }
    }

    /// Multiplies the image by a mask that is 1 inside `radius` and falls off with the square of the
    /// distance beyond it: f = 1 − intensity · max(0, (d − r₀) / (1.2 − r₀))², d being the distance from
    /// the centre as a fraction of the half-diagonal. Built from libvips' coordinate image, so it
    /// streams like everything else.
    private func vignette(_ image: VipsPicture, intensity: Double, radius: Double) throws(EditingError) -> VipsPicture {
        guard intensity != 0 else { return image }
        let width = image.width, height = image.height
        let halfX = Double(width) / 2, halfY = Double(height) / 2
        let halfDiagonal = (halfX * halfX + halfY * halfY).squareRoot()
        let start = min(radius / 2, 1)
        let span = 1.2 - start
        let coordinates = try VipsPicture.make("xyz") { splashd_vips_xyz($0, Int32(width), Int32(height)) }
        let centred = try linear(
            coordinates, multiply: [1 / halfDiagonal, 1 / halfDiagonal],
            add: [(0.5 - halfX) / halfDiagonal, (0.5 - halfY) / halfDiagonal])
        let squares = try VipsPicture.make("multiply") { splashd_vips_multiply(centred.pointer, centred.pointer, $0) }
        let meanSquare = try squares.then("bandmean") { splashd_vips_bandmean($0, $1) }
        let sumSquares = try linear(meanSquare, multiply: [2], add: [0])
        let distance = try sumSquares.then("pow") { splashd_vips_pow($0, $1, 0.5) }
        let beyond = try linear(distance, multiply: [1 / span], add: [-start / span])
        // max(0, t) = (t + |t|) / 2
        let magnitude = try beyond.then("abs") { splashd_vips_abs($0, $1) }
        let sum = try VipsPicture.make("add") { splashd_vips_add(beyond.pointer, magnitude.pointer, $0) }
        let positive = try linear(sum, multiply: [0.5], add: [0])
        let squared = try VipsPicture.make("multiply") { splashd_vips_multiply(positive.pointer, positive.pointer, $0) }
        let mask = try linear(squared, multiply: [-intensity], add: [1])
        return try VipsPicture.make("multiply") { splashd_vips_multiply(image.pointer, mask.pointer, $0) }
    }

    private func linear(_ image: VipsPicture, multiply: [Double], add: [Double]) throws(EditingError) -> VipsPicture {
        try multiply.withUnsafeBufferPointer { a throws(EditingError) in
            try add.withUnsafeBufferPointer { b throws(EditingError) in
                try image.then("linear") { splashd_vips_linear($0, $1, a.baseAddress, b.baseAddress, Int32(a.count)) }
            }
        }
    }
}
