#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Support

/// A file in the state directory that says a run is going on, and since when: made at start, removed
/// by a clean stop. Found at start, it says the last run did not end cleanly (a crash, a kill, the
/// power), and since when that run wrote files that nobody has checked since (`FileAudit`).
struct RunMark {
    let path: String

    init(stateDirectory: String) {
        path = stateDirectory + "/running"
    }

    /// Marks this run as begun at `now`, durably; returns when the last run began if it did not end
    /// cleanly. A mark that cannot be read (cut while it was written) says "unclean, since when is
    /// unknown": the distant past, so that every file is checked.
    func begin(now: Date) throws(FileError) -> Date? {
        var previous: Date?
        if access(path, F_OK) == 0 {
            let text = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            previous = text.flatMap(Int64.init).map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? .distantPast
        }
        try DurableFile.replace(path, with: Array("\(Int64(now.timeIntervalSince1970 * 1000))\n".utf8))
        return previous
    }

    /// A clean stop: the next start checks nothing. Not flushed: a mark that comes back after a cut
    /// only costs the next start a check.
    func end() {
        unlink(path)
    }
}
