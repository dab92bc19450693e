import ArgumentParser
import CLIText

/// The short ids a person types for what splashctl lists (edits, queued ops), as `git` takes an
/// abbreviated hash: the one listed id the text begins. Resolved here, among the ids the daemon
/// listed: the daemon's methods take whole ids only.
enum ShortID {
    /// The one of `ids` that `text` begins; nil when it begins none. Several are a usage error, in the
    /// words `ambiguous` gives for their count.
    static func resolve(_ text: String, among ids: [String], ambiguous: (Int) -> Message) throws -> String? {
        let matches = ids.filter { $0.hasPrefix(text) }
        guard matches.count <= 1 else { throw ValidationError(ambiguous(matches.count).text()) }
        return matches.first
    }
}
