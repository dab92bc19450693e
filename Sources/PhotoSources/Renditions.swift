import Foundation

/// Which URL of a photo's `photos.urls` object to fetch for a variant. Unsplash names its renditions
/// raw/full/regular/small/thumb, NASA orig/large/medium/small/thumb; a source that lacks the variant
/// asked for gets its nearest one.
public enum Renditions {
    static let fallbacks: [String: [String]] = [
        "regular": ["large", "full", "medium", "orig", "raw", "small"],
        "full": ["orig", "raw", "large", "regular"],
        "raw": ["orig", "full"],
        "small": ["medium", "regular", "thumb"],
        "thumb": ["small"],
    ]

    public static func url(_ json: String?, variant: String) -> String? {
        guard let json, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        for key in [variant] + (fallbacks[variant] ?? []) {
            if let url = object[key] as? String, !url.isEmpty { return url }
        }
        return nil
    }
}
