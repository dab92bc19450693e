import Shared

extension RPCError {
    /// What splashctl shows for a daemon error: its sentence in `language` when the daemon sent one
    /// this splashctl knows, else the daemon's English `message` (an older daemon sends no `text`; a
    /// newer one's unknown sentence decodes as none).
    public func text(_ language: Language = .current) -> String {
        data?.text?.text(language) ?? message
    }
}
