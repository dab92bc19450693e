#if canImport(Glibc)
import Glibc
#endif

/// Named places where a crash would leave a file and a row, or an op and the server, out of step.
/// Test-only: `SPLASHD_TEST_CRASH_AT=<point>` makes the daemon kill itself with SIGKILL the first time
/// it reaches that point, so the reliability suite can aim its kills instead of hoping to land in a
/// window of microseconds (docs/reliability.md lists what each point checks). Unset, `reach` is one
/// comparison with a constant.
public enum CrashPoint: String, CaseIterable, Sendable {
    /// An edit's rendering is written to its staged file, not yet in place or recorded.
    case editStaged = "edit.staged"
    /// An edit's row and its outbox op are committed; nothing is pushed yet.
    case editRecorded = "edit.recorded"
    /// An edit's rendering is in Storage; the server's `edits` row is not written yet.
    case editUploaded = "edit.uploaded"
    /// An edit's removal is committed while its upload op is being sent.
    case editRemovedInFlight = "edit.removed_in_flight"
    /// A photo's file moved between the library and the cache; its row still says the old place.
    case imageMoved = "image.moved"
    /// A library download (a liked photo's file) took its final name; its row is not written yet.
    case downloadRenamed = "download.renamed"
    /// An imported file is copied into the library; its row is not written yet.
    case importCopied = "import.copied"
    /// A batch of the guest's likes or edits is the account's now, its ops queued; more remain.
    case guestBatchAdopted = "guest.batch_adopted"
    /// The Pictures folder is about to get an entry it is missing (a liked photo's file arrived, or an
    /// edit was saved); the entry is not made yet.
    case picturesLinking = "pictures.linking"

    /// The point this process was told to die at, read once.
    public static let armed: CrashPoint? = getenv("SPLASHD_TEST_CRASH_AT").flatMap { CrashPoint(rawValue: String(cString: $0)) }

    /// Dies here, by SIGKILL, when this is the armed point: no cleanup, no flush, as a power cut would.
    public func reach() {
        guard Self.armed == self else { return }
        let line = "<2>splashd: crash point \(rawValue) reached (SPLASHD_TEST_CRASH_AT); killing itself with SIGKILL\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        kill(getpid(), SIGKILL)
        while true { pause() }
    }
}
