/// Every sentence the daemon puts in an error, as data: which sentence, and the parts of it that
/// vary. The daemon stays language-neutral: it sends the sentence in `error.data.text` and its English
/// rendering (`english`) in `error.message`, so the two never disagree; a client that speaks another
/// language renders `text` itself (splashctl: CLIText) and falls back to `message` when `text` is
/// absent (an older daemon) or unknown to it (a newer one).
///
/// On the wire it is Swift's own encoding of an enum through `JSONCoding`: an object with one key, the
/// sentence's snake_case name, whose value holds the varying parts by their snake_case names:
/// `{"unknown_photo": {"id": "unsplash:abc"}}`. Associated values named `detail`, `reason` or
/// `message` are free text from outside splashd's catalogue (a curl error, a server's message, a
/// domain error's own words) and are shown as they are in every language; one named `why` is itself
/// a sentence (`{"source_rate_limited": {"minutes": 20, "why": {"hourly_limit_used_up": {...}}}}`).
///
/// Names and labels must survive Foundation's snake_case both ways, so acronyms are written as words
/// (`notJson`, not `notJSON`, which would come back as `notJson` and fail to decode); the round-trip
/// test of every example catches one.
///
/// Adding a case: its English in DaemonText+English.swift, an example in DaemonText+Examples.swift,
/// and its Portuguese in CLIText (the switch does not compile without it).
public enum DaemonText: Hashable, Sendable, Codable {
    // MARK: The control protocol (Router, ControlServer)

    case requestNotAnObject
    case notJson(detail: String)
    case badRequestId
    case badJsonrpcVersion
    case methodMissing
    case unknownMethod(method: String)
    case invalidParams(method: String, detail: String)
    /// `path` is where in the request (`params.photos[2].id`; empty: the request itself); `expected` a JSON
    /// type: boolean, integer, number, string, array or object.
    case paramWrongType(method: String, path: String, expected: String)
    case paramNull(method: String, path: String, expected: String)
    case paramRequired(method: String, path: String)
    case internalErrorIn(method: String)
    case peerNotAllowed(uid: Int)
    case tooManyConnections(limit: Int)
    case lineTooLong(limit: Int)
    case connectionClosing
    case unknownSubscription(subscription: Int)
    case cancelledByClient(method: String)
    /// `$/cancelRequest` sent with an `id`: it is a notification, and gets no answer.
    case cancelIsANotification

    // MARK: Request params (each request's `validate()`)

    /// "`name` must be between `minimum` and `maximum`".
    case mustBeBetween(name: String, minimum: Int, maximum: Int)
    /// "`name` must be between `minimum` and `maximum`, not `given`".
    case mustBeBetweenNot(name: String, minimum: Int, maximum: Int, given: Int)
    /// "`name` must be a, b or c": the choices are protocol words, never translated.
    case mustBeOneOf(name: String, choices: [String])
    case pageBelowOne
    case negativeOffset(given: Int)
    case negativeKeepBytes
    case pathNotAbsolute
    case pathNotAbsoluteRelativeMadeAbsolute
    case topicNotSlugOrId
    case queryLength(maximum: Int)
    case searchQueryLength(maximum: Int)
    case textLength(maximum: Int)
    case notATopicSlug(slug: String)
    case unknownColour(color: String, known: [String])
    case unknownEventType(type: String, known: [String])
    case searchLocalSource
    case nasaFiltersNeedNasa
    case unsplashFiltersOnly
    case yearFromAfterYearTo
    case perPageOutOfRange(maximum: Int, source: String, given: Int)
    case notAPhotoId(id: String)
    case statisticsUnsplashOnly
    case feedValueLength(maximum: Int)
    case topicsAreUnsplash
    case followUnsplashOrNasa
    case notAnEditId(editId: String)

    // MARK: Filters (FilterCatalog, FilterStep)

    case noFilters
    case tooManyFilters(maximum: Int, given: Int)
    case unknownFilter(filter: String, known: [String])
    case filterParameterCount(filter: String, expected: Int, parameters: [String], given: Int)
    case filterParameterOutOfRange(filter: String, parameter: String, minimum: Double, maximum: Double, given: Double)
    case filterStepWithoutName(step: String)
    case filterParameterNotANumber(value: String, step: String)

    // MARK: Account input (AccountRules)

    case usernameLength(minimum: Int, maximum: Int, given: Int)
    case usernameCharacters
    case emailRequired
    case emailTooLong(maximum: Int)
    case notAnEmail(email: String)
    case passwordRequired
    case passwordTooLong(maximum: Int)

    // MARK: Accounts (AccountFailure, the account server's answers)

    case notSignedIn
    /// Signed out by the daemon for `why` (a session file it could not read, the server ending it).
    indirect case notSignedInBecause(why: DaemonText)
    /// The server ended the session (its error `code`); `keptChanges` queued changes wait for the account.
    case serverEndedSession(code: String, keptChanges: Int)
    /// The session file was unreadable (`problem`, one of the three below) and was moved to `movedTo`.
    indirect case sessionFileMovedAside(problem: DaemonText, movedTo: String)
    case sessionFileCannotBeRead
    case sessionFileHoldsNoUser
    case sessionFileNotASession(detail: String)
    case signInToSync
    case signInToAdopt
    case noAccountServer
    // A sign-in in the browser (auth.provider_login, google.connect); `again`: the command that starts
    // another.
    case browserFlowUnknown(again: String)
    case browserFlowTimedOut(minutes: Int, again: String)
    case browserFlowWrongState(again: String)
    /// `error`: the OAuth error code (access_denied, …); `reason`: the server's or provider's words.
    case browserFlowRefused(error: String, reason: String)
    case browserFlowNoCode(again: String)
    case browserFlowNotACallback(url: String)
    case browserFlowCannotListen(detail: String)
    // Google (google.*).
    case googleNotConfigured
    case googleNotConnected
    case googleConnectionEnded(reason: String)
    case googleRefused(error: String, reason: String)
    case googleScopeNotGranted
    case googleUnreachable(detail: String)
    case googleLocalFailure(detail: String)
    case googleUnknownSession
    /// `code`: Auth's error code (flow_state_not_found, flow_state_expired, bad_code_verifier).
    case providerSignInCodeRefused(code: String, message: String)
    case noAccountServerToSyncWith
    /// `why`: an HTTP failure (the sentences under "HTTP" below).
    indirect case accountServerUnreachable(why: DaemonText)
    indirect case accountServerAnswerTooLarge(why: DaemonText)
    indirect case accountServerUnusable(why: DaemonText)
    case accountServerUnreadable(status: Int)
    case accountServerRedirect(status: Int)
    case accountServerFailedUnreadably(status: Int)
    case accountServerFailed(status: Int)
    case accountServerRefused(message: String)
    /// The server's wait, in whole seconds; nil when it did not say.
    case tooManyAttemptsServerSays(seconds: Int?)
    case tooManyAttempts
    case wrongCredentials
    case accountExists
    /// Supabase's reason codes (`length`, `characters`, `pwned`; others shown as they are); none, and
    /// the server's `message` is shown instead.
    case weakPassword(reasons: [String], minimumLength: Int, message: String)
    case emailNotConfirmed
    case accountBanned
    case serverRefusedInput(message: String)
    case signupsClosed
    /// Something on this machine failed before anything was sent (the store); `detail` is for the log.
    case accountLocalFailure(detail: String)

    // MARK: Photo services (SourceError)

    case photoSourcesUnavailable
    case unsplashKeyMissing
    /// `service` is the service's name (Unsplash, NASA), the same in every language.
    case hourlyLimitUsedUp(service: String)
    case serviceRedirect(service: String, status: Int)
    case serviceFailed(service: String, status: Int)
    case serviceAnswerNotJson(service: String)
    indirect case cannotReachService(service: String, why: DaemonText)
    indirect case serviceAnswerRefused(service: String, why: DaemonText)
    indirect case cannotUseService(service: String, why: DaemonText)
    /// `why` (one of the sentences above), and that waiting mends it.
    indirect case sourceUnreachable(why: DaemonText)
    /// The service's own words for a 404.
    case sourceNotFound(message: String)
    case sourceRefused(status: Int, message: String)
    indirect case sourceUnreadable(why: DaemonText)
    /// `why` (the budget used up), and in how many minutes it has room again when that is known.
    indirect case sourceRateLimited(why: DaemonText, minutes: Int?)
    case notFollowing(kind: String, value: String)

    // MARK: HTTP (HTTPError, as a reason inside the account server's and the photo services' failures)

    /// `message` is libcurl's.
    case networkError(curlCode: Int, message: String)
    case noAnswerInTime
    case tlsUnverified(message: String)
    case serverAnsweredStatus(status: Int)
    /// `limit` in bytes.
    case answerTooLarge(limit: Int)
    case insecureUrl(host: String)
    case requestCancelled
    case invalidUrl
    case invalidHeader(name: String)
    case tooManyRedirects
    case sizeMismatch(expected: Int, actual: Int)
    case checksumMismatch
    case cannotWriteFile(path: String, reason: String)
    case shuttingDown

    // MARK: The library and its photos

    case photoNotInStore(id: String)
    case unknownPhoto(id: String)
    case unknownEdit(id: String)
    case unreadablePath(path: String, reason: String)
    case unknownOp(id: String)
    case opInFlight(id: String)
    case duplicate(id: String, twin: String, distance: Int)
    case importRunning(path: String)
    case folderNotWatched(path: String)
    case watchingUnavailable
    case capabilityMissing(capability: String)

    // MARK: Editing (EditingError) and originals

    case imageTooLarge(width: Int, height: Int, limitPixels: Int)
    case originalNotAnImage(detail: String)
    case originalDamaged(detail: String)
    /// `why` (one of the file sentences below) on a full disk or quota in `directory`.
    indirect case diskFull(why: DaemonText, directory: String)
    case cannotRead(path: String, reason: String)
    case cannotCreateFolder(path: String, reason: String)
    case cannotSaveEdit(reason: String)
    case cannotMoveEditIntoLibrary(reason: String)
    case originalNotBrought(id: String)
    case imageEngineFailed(detail: String)
    case originalNotHereOffline(id: String)
    case originalDownloadFailed(id: String, reason: String)

    // MARK: Pictures (photos.picture, photos.pictures)

    case pictureNeedsRoom
    case photoIdsCount(maximum: Int)
    case noPictureHere(id: String)
    case noPictureHereBecause(id: String, reason: String)
    case pictureCannotBeDrawn(id: String, path: String, reason: String)

    // MARK: The Pictures folder (library.export)

    case noPicturesFolder
    case picturesExportOff(folder: String)

    // MARK: Connectivity (ProbeVerdict: why the backend is online, offline or degraded)

    case notProbedYet
    case noBackendConfigured
    case backendAnswers
    case backendRefusesApiKey(status: Int)
    case backendRateLimited
    case backendAnsweredStatus(status: Int)
    case backendUnreachable(detail: String)
    case backendSilent(seconds: Double)
    case backendTlsFailed(detail: String)
    case healthUrlPlainHttp(host: String)
    case healthUrlInvalid
    case apiKeyBadCharacters
    case backendRedirected
    case backendOversized
    case backendUnexpected

    // MARK: The live channel (RealtimeService: why it is down)

    case liveSignedOutOrOffline
    case liveSocketClosed
    /// `reason`: the server's words.
    case liveJoinRefused(reason: String)
    case liveHeartbeatUnanswered(seconds: Double)
    case liveJoinUnanswered(seconds: Double)
    case liveCannotConnect(detail: String)

    // MARK: The web gallery (web.open, web.revoke)

    case galleryOff
    case galleryNotListening(reason: String)
    case askedFromTheGallery(method: String)
}
