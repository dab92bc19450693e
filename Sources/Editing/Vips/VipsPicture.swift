internal import CVips

/// Owns one `VipsImage` reference and drops it in `deinit`. Every libvips call that makes a new image
/// goes through `make`, which turns a failure into an `EditingError` carrying libvips' message.
final class VipsPicture: @unchecked Sendable {
    // @unchecked: a VipsImage is immutable once built, and libvips' reference counting is thread-safe.
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        splashd_vips_unref(pointer)
    }

    var width: Int { Int(splashd_vips_width(pointer)) }
    var height: Int { Int(splashd_vips_height(pointer)) }
    var bands: Int { Int(splashd_vips_bands(pointer)) }
    var hasAlpha: Bool { splashd_vips_hasalpha(pointer) != 0 }
    var orientation: Int { Int(splashd_vips_orientation(pointer)) }

    /// Runs one libvips operation that writes a new image to `out`.
    static func make(
        _ what: String, _ operation: (UnsafeMutablePointer<OpaquePointer?>) -> Int32
    ) throws(EditingError) -> VipsPicture {
        var out: OpaquePointer?
        guard operation(&out) == 0, let out else { throw .engine("\(what): \(VipsRuntime.takeError())") }
        return VipsPicture(owning: out)
    }

    /// This image through one operation.
    func then(
        _ what: String, _ operation: (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>) -> Int32
    ) throws(EditingError) -> VipsPicture {
        try Self.make(what) { out in operation(pointer, out) }
    }
}
