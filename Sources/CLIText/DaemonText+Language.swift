import Shared

extension DaemonText {
    /// The sentence in `language`. English is the daemon's own rendering, the one it sends as `message`.
    public func text(_ language: Language = .current) -> String {
        switch language {
        case .english: english
        case .brazilianPortuguese: brazilianPortuguese
        }
    }
}
