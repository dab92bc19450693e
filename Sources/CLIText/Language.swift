import Foundation

/// The languages splashctl speaks, chosen from the environment the way gettext chooses a message
/// catalogue: the first non-empty of LC_ALL, LC_MESSAGES and LANG. A value starting with `pt`
/// (pt_BR.UTF-8, pt_BR, pt) selects Brazilian Portuguese; anything else, unset, C or POSIX, English.
public enum Language: String, CaseIterable, Sendable {
    case english = "en"
    case brazilianPortuguese = "pt_BR"

    public static func from(environment: [String: String]) -> Language {
        let value = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        return value.hasPrefix("pt") ? .brazilianPortuguese : .english
    }

    /// The process's language, read once.
    public static let current = from(environment: ProcessInfo.processInfo.environment)

    /// `value` with `places` decimals and this language's decimal separator ("1.5" / "1,5").
    public func decimal(_ value: Double, places: Int = 1) -> String {
        let text = String(format: "%.\(places)f", value)
        return self == .brazilianPortuguese ? text.replacingOccurrences(of: ".", with: ",") : text
    }
}
