import Shared

extension ConnectivityStatus {
    /// Why the network is as it is, in `language` when the daemon sent a sentence this splashctl knows,
    /// else the daemon's English `reason`.
    public func reasonText(_ language: Language = .current) -> String {
        text?.text(language) ?? reason
    }
}

extension LiveChannelStatus {
    /// Why the live channel is down, as `ConnectivityStatus.reasonText` says it; nil when no reason came.
    public func reasonText(_ language: Language = .current) -> String? {
        text?.text(language) ?? reason
    }
}
