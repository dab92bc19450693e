/// Every sentence splashctl itself prints, one case per message; the parts that vary are associated
/// values. The catalogues (`English`, `BrazilianPortuguese`) switch over every case, so a message
/// missing from one language does not compile. Table headers are `Column`, row labels `Label`.
///
/// Values passed in may already carry terminal colour (splashctl styles names and ids); the
/// catalogues only place them. Words that come from the daemon (error messages, states such as
/// `synced`) are passed through untouched.
public enum Message: Sendable, Equatable {
    // Reaching the daemon
    case daemonNotRunning(path: String)
    case socketPermissionDenied(path: String)
    case socketPathTooLong(path: String)
    case cannotConnect(path: String, reason: String)
    case connectionLost(reason: String)
    case unexpectedAnswer(reason: String)

    // Relative times (Formatting)
    case justNow
    case minutesAgo(Int)
    case hoursAgo(Int)
    case daysAgo(Int)
    case now
    case inDuration(String)

    // Status
    case daemonHeader(pid: Int, uptime: String)
    case signedOut
    case signedIn
    case signedInOffline
    case asName(String)
    case online
    /// The live channel's states (`status`): changes arrive as they happen, or it is joining, down, off.
    case liveOn
    case liveJoining
    case liveDown
    case liveOff
    case offline
    case degraded
    case unknown
    case outboxCounts(pending: Int, inFlight: Int, rejected: Int)
    case notSinceStart
    case libraryCounts(photos: Int, liked: Int, edited: Int, dismissed: Int)
    case firstTimeSetupHint
    /// This device's clock against the account server's (`status`): in step to within a precision, or
    /// behind or ahead by a duration (changes are ordered by the server's clock all the same).
    case clockInStep(precision: String)
    case clockBehind(String)
    case clockAhead(String)
    /// What the desktop says of this machine (`status`), and what waits for it.
    case meteredNetwork
    case unmeteredNetwork
    /// The rate limits in force (`status`): a rate such as "2 MB/s", or none.
    case downloadsAtMost(String)
    case downloadsUnlimited
    case uploadsAtMost(String)
    case uploadsUnlimited
    case onBattery
    case onMains
    case powerSaverOn
    case downloadsWait
    case syncPaused
    case backgroundWorkWaits
    case desktopUnknown
    case desktopSilent
    /// Liked or edited photos whose originals stay on the device that has them (too large, refused).
    case originalsNotShared(Int)
    /// `photos show`: this photo's original is not shared with the account's other devices, and why.
    case originalNotShared(String)

    // Account
    case usernameTaken(wanted: String, given: String)
    case changeUsernameHint
    case queuedChangesKept(Int)
    case serverNotToldOfLogout
    case sessionRefreshedBefore(String)
    case profileInSync
    case profileWaitingToBeSent
    case profileRefusedByServer
    case noUsername
    case mayBeOutOfDate
    case usernameAlready(String)
    case usernameSetTo(String)
    case offlineAsOf(String)
    case accountCount(Int)
    /// Asked at a sign-in when the guest (signed out, this machine) has likes or edits.
    case adoptGuestQuestion(likes: Int, edits: Int)
    /// `login --provider`: the browser was asked to open `url`.
    case signingInInBrowser(url: String)
    /// `login --provider --no-browser`: where to go, then what to paste back.
    case openThisAddressToSignIn(url: String)
    case pasteTheAddressTheBrowserEndedOn
    /// `open`: the browser was asked to open the gallery; or where to go, when none could be.
    case galleryOpening
    case openThisAddressForTheGallery(url: String)
    case gallerySessionsEnded
    case emailOrProvider
    /// `google status` and `google connect`.
    case googleConnected(since: String, tokenUntil: String)
    case googleNotConnected
    case googleEnded(reason: String)
    case googleNotConfigured
    case googleDisconnected(told: Bool)
    case googlePhotosAlone
    case pickInGooglePhotos(url: String)
    case pickingInBrowser(url: String)
    case googlePicksEnded(String)
    case googlePicksSummary(imported: Int, duplicates: Int, skipped: Int, failed: Int)
    case guestAdopted(likes: Int, edits: Int)
    case guestKept(likes: Int, edits: Int)
    case guestCounts(likes: Int, edits: Int)
    /// A like made signed out.
    case keptAsGuest
    /// Above the list of a photo's renditions in `photos show`.
    case renditions
    /// `import --watch`, `--watching`, `--unwatch`.
    case watchingAlone
    case importWhat
    case watchOrUnwatch
    case nowWatching(String)
    case noFoldersWatched
    case withSubfolders
    case watchedSince(String)
    /// `status`: each photo service and image host, on its own.
    case servicesHeading
    case serviceUp
    case serviceDown
    /// The pause of sync (`pause`, `resume`, `status`): until a time, until `resume`, or none.
    case syncPausedUntil(String)
    case downloadsPausedUntil(String)
    case syncPausedUntilResume
    case downloadsPausedUntilResume
    case syncRunning
    /// `pause --for` given what is not a length of time, or one out of range.
    case pauseLengthUnreadable(String)
    case pauseLengthOutOfRange(String)
    /// Desktop notifications (the daemon's, in the language of its environment): what needs the person.
    case notifySignedOutSummary
    case notifySignedOutBody(reason: String)
    case notifySignIn
    case notifyRejectedSummary(Int)
    case notifyRejectedBody
    case notifyDuplicateSummary
    case notifyDuplicateBody
    case notifyShow
    case notifyGooglePickSummary
    case notifyGoogleEndedSummary
    case notifyGoogleEndedBody(reason: String)
    case notifyDiskFullSummary
    case notifyDiskFullBody(directory: String)
    /// No photo service asked since the start (`status`).
    case noServiceAskedYet
    /// Connectivity when no account server is configured: nothing is offline, there is none.
    case noAccountServer
    case triedAgain(String)
    /// `profile set-username --wait`: the server's verdict.
    case usernameUpdated(String)
    case usernameRefused(name: String, reason: String)
    case usernameStillQueued(name: String, reason: String?)
    case passwordPrompt
    case noPasswordOnStdin
    case noPasswordGiven
    case noTerminalForPassword
    case cannotReadTerminalSettings
    case cannotTurnOffEcho

    // Photos, search, browsing
    case noPhotos
    case noPhotosMatch
    case noPhotosOnPage(total: Int)
    case rangeOfTotal(from: Int, to: Int, total: Int)
    case optionMustBeOneOf(option: String, values: String)
    case noSearchNumber(Int)
    case whatToSearchFor
    case storedResultsFrom(String)
    /// Why the store answered: the daemon's words for the source's failure.
    case staleBecause(String)
    /// When a service over its hourly budget takes requests again (a clock time).
    case roomAgainBy(String)
    /// The store answered and a fresh page is on its way.
    case refreshingInBackground
    case nothingFoundFor(query: String)
    case searchPage(page: Int, pages: Int, total: Int, source: String)
    case noSearchesYet
    case fromYear(Int)
    case toYear(Int)
    case storedTopicsFrom(String)
    case byAuthor(String)
    case takenOn(String)
    case tags(String)
    case camera(String)
    case location(String)
    case page(String)
    case looksLike(id: String)
    case bitsApart(Int)
    case likedWhen(String)
    case notLiked
    case dismissedWhen(String)
    case noLocalFile
    case missingOnDisk(location: String)
    case downloadingBytes(bytes: String, total: String?)
    case downloadFailed(attempts: Int, error: String, nextTry: String?)
    case statsViews
    case statsDownloads
    case peakPerDay(Int)
    case changeInDays(change: Int, days: Int, total: Int)

    // Likes and dismissals
    case liked
    case dismissed
    case noChange
    case queuedForServer

    // Feeds
    case followTopicOrSearch
    case whichTopic
    case whichSearch
    case notFollowingAnything
    case notYet

    // Sync and queue
    case sentChanges(Int)
    case nothingLeftToSend
    case stillQueued(Int)
    case refusedByServer(Int)
    case offlineChangesGoOutLater
    /// `sync --wait` stopped at its timeout; the reason is the daemon's (English).
    case syncTimedOut(reason: String)
    /// `sync --wait` stopped: the account server does not answer.
    case syncOffline(reason: String)
    case noRefusedChanges
    case nothingQueued
    case nextTry(String)
    case dropNeedsConfirmation(op: String)
    case dropConfirm(op: String)
    case kept
    case prefixMatchesOps(prefix: String, count: Int)

    // Import
    case importedPhotos(Int)
    case alreadyInLibrary(Int)
    case otherFilesIgnored(Int)
    case duplicate
    case duplicateSkipped(path: String, of: String, distance: Int)
    /// `queue`: a like held because its photo looks like one in the library, and how to decide.
    case heldAsDuplicate(of: String, distance: Int, opId: String, photo: String)
    /// `cache`: the memory tier of decoded pictures, and how often each tier answered.
    case memoryTier(size: String, pictures: Int, limit: String)
    case pictureHitRates(memory: Int, memoryReads: Int, disk: Int, diskReads: Int)
    /// `photos show`: why no picture is drawn above the details (the daemon's reason).
    case noPicture(String)
    /// `status`: likes held as near-duplicates.
    case duplicatesWaiting(Int)
    case failed

    // Editing
    case needAFilter
    case sizeAndOpenNeedPreview
    case savedEdit(edit: String, photo: String, filters: String)
    case uploaded
    case queuedForUpload
    case cannotWrite(path: String, reason: String)
    case previewWritten(width: Int, height: Int, path: String)
    case xdgOpenMissing(path: String)
    case cannotStartXdgOpen(path: String)
    case filtersExample
    case noEditsOf(String)
    case noEditsYet
    case downloadingParenthesized
    case editAlreadyRemoved(String)
    case editRemovedServerHearsLater(String)
    case editRemovedNeverLeft(String)
    case noEditStartsWith(String)
    case prefixMatchesEdits(prefix: String, count: Int)

    // Cache
    case sizeInFiles(size: String, files: Int)
    case ofAtMost(String)
    case downloadingFiles(Int)
    case filesWaitingToRetry(Int)
    case keepCannotBeNegative
    case pruned(files: Int, bytes: String, cacheBytes: String)

    // The Pictures folder (library export)
    case picturesFolderInStep(entries: Int, folder: String)
    case picturesFolderOutOfStep(missing: Int, extra: Int, wrong: Int, folder: String)
    case picturesFolderMissing(String)
    case picturesFolderExtra(String)
    case picturesFolderWrong(String)
    case picturesFolderRebuilt(entries: Int, made: Int, removed: Int, folder: String)
    case picturesFolderSymlinks(Int)
    case picturesFolderFollowing

    // Watch
    case watchingFrom(seq: Int)
    case libraryCountsShort(photos: Int, liked: Int, edited: Int)
    case imageQueueCounts(downloading: Int, waiting: Int)
    case importDone
    case importCounts(imported: Int, duplicates: Int, failed: Int)
    case configurationReloaded
    case daemonStopping
    case eventsMissed(Int)

    // Setup
    case promptBackendURL
    case notAnHTTPURL(String)
    case promptAnonKey
    case promptUnsplashKey
    case promptEmail
    case promptUsername
    case wroteConfig(path: String)
    case previousConfigIs(path: String)
    case enabledSocket
    case noUserManager(reason: String)
    case noSystemctl
    case noUserManagerForSession
    case cannotStart(program: String)
    case couldNotEnableSocket(String)
    case signedInAs(String)
    case setupDone
    case signupNeedsUsername
    case giveFlagOrRunOnTerminal(flag: String)
    case cannotRead(path: String)
    case keyOnOneLine(path: String)

    /// This message in `language` (the environment's by default).
    public func text(_ language: Language = .current) -> String {
        switch language {
        case .english: English.text(self)
        case .brazilianPortuguese: BrazilianPortuguese.text(self)
        }
    }
}

/// Table column headers.
public enum Column: CaseIterable, Sendable {
    case id, colour, size, liked, by, title, author, slug, photos, about, username, joined
    case filter, whatItDoes, edit, photo, filters, state, saved, file
    case kind, source, feed, refreshed, number, query, results, when, op, what, tries, note

    public func text(_ language: Language = .current) -> String {
        switch language {
        case .english: English.text(self)
        case .brazilianPortuguese: BrazilianPortuguese.text(self)
        }
    }
}

/// Labels in front of values (`status`, `whoami`, `profile`, `cache`).
public enum Label: CaseIterable, Sendable {
    case account, connectivity, liveChanges, outbox, synced, library, files, socket, state, libraryDirectory, cache, memory, clock
    /// The desktop's word on this machine: a metered network, the battery, power saver (`status`).
    case thisMachine
    case pause
    /// The rate limits in force (`status`).
    case bandwidth
    /// `edit --preview` drawn: the captions under the two pictures.
    case original, filtered
    case email, userID, profile, session, memberSince, lastSignIn, fetched

    public func text(_ language: Language = .current) -> String {
        switch language {
        case .english: English.text(self)
        case .brazilianPortuguese: BrazilianPortuguese.text(self)
        }
    }
}
