import Shared

/// Which of the bus's events can change what the Pictures folder should hold: a like, unlike or edit
/// (`photo.changed`), a library file that arrived (`images.changed` finished), files moved or an edit
/// removed (the liked, edited or file counts of `library.changed` moved), another account acting.
///
/// Why it filters: the bus says much more than that — a session restored, confirmed or refreshed says
/// `account.changed` for the same account, a pull's new photos move the photo count — and every wake
/// costs a whole reconcile, which reads every liked photo and both directories. With 10,000 liked photos
/// those idle reconciles took 16 % of the daemon's CPU while it pushed the likes.
struct PicturesFolderWakes: Sendable {
    /// The account the folder was last woken for (or made for at the start).
    private var account: String
    /// The library's counts when last seen.
    private var library: LibraryCounts

    init(account: String, library: LibraryCounts) {
        self.account = account
        self.library = library
    }

    /// Whether `event` may change the folder; `actingAccount` is the account acting now. Remembers what
    /// it saw, so that the same account or the same counts again wake nothing.
    mutating func wakes(on event: Event, actingAccount: String) -> Bool {
        switch event {
        case .photoChanged:
            return true
        case .imagesChanged(let progress):
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
