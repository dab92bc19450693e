/// Where image files live. Library files: `<data>/library/<source>/<id-safe>.<variant>.jpg`; the path
/// stored in `photo_files` is relative to the data (or cache) directory, so a moved home keeps working.
public enum ImagePaths {
    /// `library/unsplash/Dwu85P9SOIk.regular.jpg`.
    public static func library(source: String, remoteId: String, variant: String) -> String {
        "library/\(safe(source))/\(safe(remoteId)).\(safe(variant)).jpg"
    }

    /// `library/unsplash/X.regular.jpg` → `images/unsplash/X.regular.jpg`: the same file as evictable cache.
    public static func cache(forLibrary path: String) -> String {
        path.hasPrefix("library/") ? "images/" + path.dropFirst("library/".count) : "images/" + path
    }

    /// `images/unsplash/X.regular.jpg` → `library/unsplash/X.regular.jpg`.
    public static func library(forCache path: String) -> String {
        path.hasPrefix("images/") ? "library/" + path.dropFirst("images/".count) : "library/" + path
    }

    /// An edit's rendering, beside its original: `library/unsplash/Dwu85P9SOIk.edit-<edit id>.jpg`.
    public static func edit(source: String, remoteId: String, editId: String) -> String {
        "library/\(safe(source))/\(safe(remoteId)).edit-\(safe(editId)).jpg"
    }

    /// A remote id as a file name: letters, digits, `-` and `_` kept; anything else (NASA ids hold spaces,
    /// a hostile catalogue could send `../`) becomes `_`, and then a short hash of the original keeps two
    /// ids that differ only there apart. Never starts with a dot, never longer than 120 bytes.
    public static func safe(_ text: String) -> String {
        var out = ""
        var changed = false
        for scalar in text.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_" {
                out.unicodeScalars.append(scalar)
            } else {
                out.append("_")
                changed = true
            }
        }
        if out.isEmpty || out.utf8.count > 120 {
            out = String(out.prefix(120))
            changed = true
        }
        guard changed else { return out }
        return out + "-" + fnv1a(text)
    }

    /// 64-bit FNV-1a in hex: stable across runs and machines (Swift's Hasher is seeded per process).
    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
