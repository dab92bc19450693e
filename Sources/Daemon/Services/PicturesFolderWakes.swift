import Shared

/// What the Pictures folder follows of the bus: which events can change what it should hold — a like,
/// unlike or edit (`photo.changed`), a library file that arrived (`images.changed` finished), an edit
/// removed (the liked, edited or file counts of `library.changed` moved), files moved between the
/// library and the cache (the store says so: `filesMoved`), another account acting — how many of them
/// rang and which the reconciles have covered, and the downloads the image queue last announced.
///
/// Why it filters: the bus says much more than that — a session restored, confirmed or refreshed says
/// `account.changed` for the same account, a pull's new photos move the photo count — and every wake
/// costs a whole reconcile, which reads every liked photo and both directories. With 10,000 liked photos
/// those idle reconciles took 16 % of the daemon's CPU while it pushed the likes.
///
/// Why it counts: one file's arrival says `library.changed` and then `images.changed`, and a reconcile
/// that began after both needs no second one. Every event is published after the change it describes
/// is in the store, so a reconcile that reads the store after a wake covers it.
struct PicturesFolderWakes: Sendable {
    /// The account the folder was last woken for (or made for at the start).
    private var account: String
    /// The library's counts when last seen.
    private var library: LibraryCounts
    /// Wakes so far; those covered by the last reconcile begun, and by the last one finished.
    private var rung = 0
    private var begun = 0
    private var finished = 0
    /// Wakes rung when the folder last looked whether the library is still changing (`stillChanging`).
    private var looked = 0
    /// Library downloads in flight, as the image queue last announced them: the folder waits for them
    /// by what the bus said, so that the reconcile after the last one begins after its `finished` rang.
    private(set) var downloading = 0

    init(account: String, library: LibraryCounts) {
        self.account = account
        self.library = library
    }

    /// Whether `event` may change the folder; `actingAccount` is the account acting now. Remembers what
    /// it saw, so that the same account or the same counts again wake nothing.
    mutating func wakes(on event: Event, actingAccount: String) -> Bool {
        let wakes = changesTheFolder(event, actingAccount: actingAccount)
        if wakes { rung += 1 }
        return wakes
    }

    /// Files moved between the library and the cache (`PhotoLibrary.followFileMoves`): a liked photo's
    /// file back from the cache belongs in the folder, and no count says so — a move changes none.
    mutating func filesMoved() {
        rung += 1
    }

    /// The folder begins to wait for a burst of wakes to settle: the wakes so far are the ones it answers.
    mutating func settleBegins() {
        looked = rung
    }

    /// Whether wakes rang since the folder last looked (or began to settle): the library is still
    /// changing, as while a pull applies page after page of likes, and a reconcile now would be followed
    /// by another at once. Each reconcile reads every liked photo: during a new device's pull of 100,000
    /// likes, one every settle took 23 % of the daemon's CPU.
    mutating func stillChanging() -> Bool {
        defer { looked = rung }
        return rung > looked
    }

    /// A reconcile begins, before it reads the store: what it will cover, or nil when every wake so far
    /// was covered by one begun already (the doorbell remembers a ring that the last reconcile answered).
    mutating func beginReconcile() -> Int? {
        guard rung > begun else { return nil }
        begun = rung
        return rung
    }

    /// A reconcile that began at `covering` ended.
    mutating func finishReconcile(covering: Int) {
        finished = max(finished, covering)
    }

    /// Some wake has no finished reconcile after it: the folder is still following the library.
    var following: Bool { rung > finished }

    private mutating func changesTheFolder(_ event: Event, actingAccount: String) -> Bool {
        switch event {
        case .photoChanged:
            return true
        case .imagesChanged(let progress):
            downloading = progress.downloading
            return progress.change == .finished
        case .accountChanged:
            defer { account = actingAccount }
            return actingAccount != account
        case .libraryChanged(let counts):
            defer { library = counts }
            return (counts.liked, counts.edited, counts.files) != (library.liked, library.edited, library.files)
        default:
            return false
        }
    }
}
