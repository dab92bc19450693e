extension KeyedDecodingContainer {
    /// A sentence where one may be (`error.data.text`, a status's `text`): absent, or one this client does
    /// not know (a newer daemon's, or parts changed), decodes as nil; the English beside it still says it.
    public func decodeSentenceIfPresent(forKey key: Key) -> DaemonText? {
        (try? decodeIfPresent(DaemonText.self, forKey: key)) ?? nil
    }
}
