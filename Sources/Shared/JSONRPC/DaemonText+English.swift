extension DaemonText {
    /// The sentence in English: what the daemon sends as `error.message` and writes to its log.
    public var english: String {
        switch self {
        case .requestNotAnObject: "a request must be a JSON object (batches are not supported)"
        case .notJson(let detail): "not valid JSON: \(detail)"
        case .badRequestId: "id must be a string, an integer or null"
        case .badJsonrpcVersion: "jsonrpc must be \"2.0\""
        case .methodMissing: "method is missing or not a string"
        case .unknownMethod(let method): "unknown method '\(method)'; daemon.describe lists every method"
        case .invalidParams(let method, let detail): "invalid params for \(method): \(detail)"
        case .paramWrongType(let method, let path, let expected):
            "invalid params for \(method): \(path.isEmpty ? "the message" : path): expected \(Self.article(expected))"
        case .paramNull(let method, let path, let expected):
            "invalid params for \(method): \(path.isEmpty ? "the message" : path): expected \(Self.article(expected)), found null"
        case .paramRequired(let method, let path): "invalid params for \(method): \(path.isEmpty ? "the message" : path) is required"
        case .internalErrorIn(let method): "internal error in \(method); see the daemon's log"
        case .peerNotAllowed(let uid): "permission denied: only uid \(uid) and root may use this socket"
        case .tooManyConnections(let limit): "too many control connections (\(limit)); try again"
        case .lineTooLong(let limit): "request line longer than \(limit) bytes; closing the connection"
        case .connectionClosing: "the connection is closing"
        case .unknownSubscription(let subscription): "no subscription \(subscription) on this connection"
        case .cancelledByClient(let method): "\(method) was cancelled at the client's request"
        case .cancelIsANotification: "$/cancelRequest is a notification: send it without an id"

        case .mustBeBetween(let name, let minimum, let maximum): "\(name) must be between \(minimum) and \(maximum)"
        case .mustBeBetweenNot(let name, let minimum, let maximum, let given):
            "\(name) must be between \(minimum) and \(maximum), not \(given)"
        case .mustBeOneOf(let name, let choices): "\(name) must be \(Self.list(choices, or: "or"))"
        case .pageBelowOne: "page must be 1 or more"
        case .negativeOffset(let given): "offset must be 0 or more, not \(given)"
        case .negativeKeepBytes: "keep_bytes cannot be negative"
        case .pathNotAbsolute: "path must be an absolute path"
        case .pathNotAbsoluteRelativeMadeAbsolute: "path must be an absolute path (splashctl makes relative ones absolute)"
        case .topicNotSlugOrId: "topic must be a slug or id"
        case .queryLength(let maximum): "query must be 1 to \(maximum) characters"
        case .searchQueryLength(let maximum): "the query must be 1 to \(maximum) characters"
        case .textLength(let maximum): "text must be 1 to \(maximum) characters"
        case .notATopicSlug(let slug): "'\(slug)' is not a topic slug"
        case .unknownColour(let color, let known): "unknown colour '\(color)'; use one of " + known.joined(separator: ", ")
        case .unknownEventType(let type, let known): "unknown event type '\(type)'; known: " + known.joined(separator: ", ")
        case .searchLocalSource: "search unsplash or nasa; local and Google photos are in photos.list"
        case .nasaFiltersNeedNasa: "media, year_from and year_to are NASA filters; add source nasa"
        case .unsplashFiltersOnly: "color, orientation and order are Unsplash filters"
        case .yearFromAfterYearTo: "year_from is after year_to"
        case .perPageOutOfRange(let maximum, let source, let given): "per_page must be between 1 and \(maximum) for \(source), not \(given)"
        case .notAPhotoId(let id): "'\(id)' is not a photo id; ids look like unsplash:Dwu85P9SOIk, nasa:PIA12345 or local:<hash>"
        case .statisticsUnsplashOnly: "statistics exist for Unsplash photos only"
        case .feedValueLength(let maximum): "a feed needs a topic slug or a query (1 to \(maximum) characters)"
        case .topicsAreUnsplash: "topics are Unsplash's"
        case .followUnsplashOrNasa: "follow unsplash or nasa"
        case .notAnEditId(let editId): "'\(editId)' is not an edit id; splashctl edits list shows them"

        case .noFilters: "give at least one filter (splashctl filters lists them)"
        case .tooManyFilters(let maximum, let given): "at most \(maximum) filters in one edit, not \(given)"
        case .unknownFilter(let filter, let known): "unknown filter '\(filter)'; known filters: " + known.joined(separator: ", ")
        case .filterParameterCount(let filter, let expected, let parameters, let given):
            "\(filter) takes \(expected) parameter(s)"
                + (parameters.isEmpty ? "" : " (" + parameters.joined(separator: ", ") + ")")
                + ", not \(given)"
        case .filterParameterOutOfRange(let filter, let parameter, let minimum, let maximum, let given):
            "\(filter) \(parameter) must be between \(FilterCatalog.format(minimum)) and \(FilterCatalog.format(maximum)), not \(FilterCatalog.format(given))"
        case .filterStepWithoutName(let step): "'\(step)' has no filter name; write e.g. sepia:0.8"
        case .filterParameterNotANumber(let value, let step): "'\(value)' in '\(step)' is not a number; write e.g. vignette:1.0,0.6"

        case .usernameLength(let minimum, let maximum, let given): "a username is \(minimum) to \(maximum) characters, not \(given)"
        case .usernameCharacters: "a username may hold only lower-case letters a-z, digits 0-9 and '_'"
        case .emailRequired: "an e-mail address is required"
        case .emailTooLong(let maximum): "an e-mail address is at most \(maximum) bytes"
        case .notAnEmail(let email): "'\(email)' is not an e-mail address"
        case .passwordRequired: "a password is required"
        case .passwordTooLong(let maximum): "a password is at most \(maximum) bytes"

        case .notSignedIn: "not signed in; run: splashctl login --email <address>"
        case .notSignedInBecause(let why): "not signed in: \(why.english)"
        case .serverEndedSession(let code, let keptChanges):
            "the server ended the session (\(code)); sign in again — \(keptChanges) queued change(s) are kept for this account"
        case .sessionFileMovedAside(let problem, let movedTo): "the session file \(problem.english); it was moved to \(movedTo); sign in again"
        case .sessionFileCannotBeRead: "cannot be read"
        case .sessionFileHoldsNoUser: "holds empty tokens or no user"
        case .sessionFileNotASession(let detail): "is not a session (\(detail))"
        case .signInToSync: "sign in to sync (splashctl login); what you do signed out is kept on this machine"
        case .signInToAdopt: "sign in first (splashctl login): the guest's likes and edits are brought into the signed-in account"
        case .noAccountServer:
            "no account server is configured; set backend.url and backend.anon_key (or SPLASHD_BACKEND_URL and SPLASHD_ANON_KEY)"
        case .googleNotConfigured:
            "no Google client is configured: make a Desktop OAuth client in a Google Cloud project of yours and set google.client_id and google.client_secret"
        case .googleNotConnected: "splashd is not connected to Google; run splashctl google connect"
        case .googleConnectionEnded(let reason): "the connection to Google ended (\(reason)); run splashctl google connect again — imported photos stay"
        case .googleRefused(let error, let reason): "Google refused (\(error)): \(reason)"
        case .googleScopeNotGranted: "the Google Photos picker permission was left unticked; run splashctl google connect and allow it"
        case .googleUnreachable(let detail): "cannot reach Google: \(detail); try again when online"
        case .googleLocalFailure(let detail): "Google, on this machine: \(detail)"
        case .googleUnknownSession: "no such Google Photos picking session (splashctl import --google-photos starts one)"
        case .browserFlowUnknown(let again): "no such sign-in: it finished, was given up, or never began; start again with \(again)"
        case .browserFlowTimedOut(let minutes, let again):
            "the browser did not come back within \(minutes) minutes; the sign-in was given up (start again with \(again))"
        case .browserFlowWrongState(let again):
            "the browser came back with another sign-in's answer (its state does not match); nothing was signed in, start again with \(again)"
        case .browserFlowRefused(let error, let reason): "the sign-in was refused (\(error)): \(reason)"
        case .browserFlowNoCode(let again): "the browser came back without a code; nothing was signed in, start again with \(again)"
        case .browserFlowNotACallback(let url): "\(url) is not this sign-in's callback address (http://127.0.0.1:…/callback?…)"
        case .browserFlowCannotListen(let detail): "cannot listen on 127.0.0.1 for the browser's return: \(detail)"
        case .providerSignInCodeRefused(let code, let message):
            "the account server refused the sign-in's code (\(code): \(message)); start again with splashctl login --provider"
        case .noAccountServerToSyncWith: "no account server is configured; nothing to sync with"
        case .accountServerUnreachable(let why): "cannot reach the account server: \(why.english); try again when online"
        case .accountServerAnswerTooLarge(let why): "the account server's answer was refused: \(why.english)"
        case .accountServerUnusable(let why): "cannot use the account server: \(why.english)"
        case .accountServerUnreadable(let status): "the account server sent an answer splashd cannot read (HTTP \(status)); try again later"
        case .accountServerRedirect(let status): "the account server answered with a redirect (HTTP \(status)); check backend.url"
        case .accountServerFailedUnreadably(let status): "the account server failed (HTTP \(status)) with an unreadable answer; try again later"
        case .accountServerFailed(let status): "the account server failed (HTTP \(status)); try again later"
        case .accountServerRefused(let message): "the account server refused: \(message)"
        case .tooManyAttemptsServerSays(let seconds):
            "too many attempts; the server asks to try again" + (seconds.map { " in \($0) s" } ?? " later")
        case .tooManyAttempts: "too many attempts; try again later"
        case .wrongCredentials: "wrong e-mail or password"
        case .accountExists: "an account with this e-mail address already exists; sign in instead"
        case .weakPassword(let reasons, let minimumLength, let message):
            "the password is too weak: "
                + (reasons.isEmpty ? message : reasons.map { reason in
                    switch reason {
                    case "length": "it is shorter than \(minimumLength) characters"
                    case "characters": "it needs more kinds of characters (lower case, upper case, digits, symbols)"
                    case "pwned": "it appears in known data breaches"
                    default: reason
                    }
                }.joined(separator: "; "))
        case .emailNotConfirmed: "the e-mail address is not confirmed yet; follow the link sent to it, then sign in"
        case .accountBanned: "this account is banned on the server"
        case .serverRefusedInput(let message): "the server refused the input: \(message)"
        case .signupsClosed: "the server does not accept new accounts"
        case .accountLocalFailure(let detail): detail

        case .photoSourcesUnavailable: "photo sources are not available (no HTTP client)"
        case .unsplashKeyMissing: "no Unsplash access key is configured; set unsplash.access_key_file (or SPLASHD_UNSPLASH_ACCESS_KEY)"
        case .hourlyLimitUsedUp(let service): "\(service)'s hourly request limit is used up"
        case .serviceRedirect(let service, let status): "\(service) answered with a redirect (HTTP \(status)); check its API URL"
        case .serviceFailed(let service, let status): "\(service) failed (HTTP \(status))"
        case .serviceAnswerNotJson(let service): "\(service)'s answer is not the expected JSON"
        case .cannotReachService(let service, let why): "cannot reach \(service): \(why.english)"
        case .serviceAnswerRefused(let service, let why): "\(service)'s answer was refused: \(why.english)"
        case .cannotUseService(let service, let why): "cannot use \(service): \(why.english)"
        case .sourceUnreachable(let why): "\(why.english); try again when online"
        case .sourceNotFound(let message): message
        case .sourceRefused(let status, let message): "the photo service refused the request (HTTP \(status)): \(message)"
        case .sourceUnreadable(let why): "the photo service sent an answer splashd cannot read: \(why.english)"
        case .sourceRateLimited(let why, let minutes): why.english + (minutes.map { "; it has room again within \($0) min" } ?? "")
        case .notFollowing(let kind, let value): "not following \(kind) '\(value)'; splashctl feeds lists them"

        case .networkError(let curlCode, let message): "network error (curl \(curlCode)): \(message)"
        case .noAnswerInTime: "no answer in time (the connection or the transfer stalled)"
        case .tlsUnverified(let message):
            "the server's TLS identity could not be verified (\(message)); a private CA can be given as network.ca_file"
        case .serverAnsweredStatus(let status): "the server answered HTTP \(status)"
        case .answerTooLarge(let limit): "the answer was larger than \(Self.byteSize(limit)), so splashd stopped reading it"
        case .insecureUrl(let host): "plain http:// to \(host) is refused; only loopback hosts may use http, use https://"
        case .requestCancelled: "the request was cancelled"
        case .invalidUrl: "not a valid http(s) URL"
        case .invalidHeader(let name): "the request header \(name) holds a line break or NUL"
        case .tooManyRedirects: "too many redirects (a redirect loop?)"
        case .sizeMismatch(let expected, let actual): "got \(actual) bytes where \(expected) were announced"
        case .checksumMismatch: "the file's checksum did not match"
        case .cannotWriteFile(let path, let reason): "cannot write \(path): \(reason)"
        case .shuttingDown: "splashd is shutting down"

        case .photoNotInStore(let id): "no photo \(id) in the store; splashctl photos list shows what is here"
        case .unknownPhoto(let id): "no photo \(id) in the library; search for it or open it first"
        case .unknownEdit(let id): "no edit \(id); splashctl edits list shows them"
        case .unreadablePath(let path, let reason): "\(path): \(reason)"
        case .unknownOp(let id): "no queued op \(id); splashctl queue lists them"
        case .opInFlight(let id): "op \(id) is being sent right now; try again in a moment"
        case .duplicate(let id, let twin, let distance):
            "\(id) looks like \(twin), already in your library (\(distance) of 64 bits apart); like it anyway with --allow-duplicate"
        case .importRunning(let path): "an import of \(path) is running; wait for it to finish"
        case .folderNotWatched(let path): "\(path) is not watched; splashctl import --watching lists the watched folders"
        case .watchingUnavailable: "folders cannot be watched here (inotify is unavailable); see the daemon's log"
        case .capabilityMissing(let capability): "not available in this daemon: \(capability) (its log says why)"

        case .imageTooLarge(let width, let height, let limitPixels):
            "the image is \(width) × \(height) (\(Self.megapixels(width * height)) MP), above the limit of \(Self.megapixels(limitPixels)) MP (images.max_megapixels)"
        case .originalNotAnImage(let detail): "the photo's original cannot be edited: not an image splashd can read: \(detail)"
        case .originalDamaged(let detail): "the photo's original cannot be edited: the image is damaged: \(detail)"
        case .diskFull(let why, let directory): "\(why.english) in \(directory); free some space and try again"
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        case .cannotCreateFolder(let path, let reason): "cannot create \(path): \(reason)"
        case .cannotSaveEdit(let reason): "cannot save the edit: \(reason)"
        case .cannotMoveEditIntoLibrary(let reason): "cannot move the edit into the library: \(reason)"
        case .originalNotBrought(let id): "the original of \(id) could not be brought to this machine"
        case .imageEngineFailed(let detail): "the image engine failed: \(detail)"
        case .originalNotHereOffline(let id): "the original of \(id) is not on this machine and downloads are unavailable"
        case .originalDownloadFailed(let id, let reason): "cannot download the original of \(id): \(reason)"
        case .pictureNeedsRoom: "a picture needs at least 1 column and 1 row"
        case .photoIdsCount(let maximum): "ids must hold 1 to \(maximum) photo ids"
        case .noPictureHere(let id): "no picture of \(id) is on this machine, and downloads are unavailable"
        case .noPictureHereBecause(let id, let reason): "no picture of \(id) is on this machine: \(reason)"
        case .pictureCannotBeDrawn(let id, let path, let reason): "the picture of \(id) cannot be drawn from \(path): \(reason)"
        case .noPicturesFolder: "there is no Pictures folder: pictures.folder is not set and there is no home directory"
        case .picturesExportOff(let folder): "pictures.export is off in splashd's config; nothing is kept in \(folder)"
        case .notProbedYet: "not probed yet"
        case .noBackendConfigured: "no backend configured"
        case .backendAnswers: "backend answers"
        case .backendRefusesApiKey(let status): "backend refuses the API key (HTTP \(status)); check the configured anon key"
        case .backendRateLimited: "backend answered 429 (rate limited)"
        case .backendAnsweredStatus(let status): "backend answered \(status)"
        case .backendUnreachable(let detail): "backend unreachable: \(detail)"
        case .backendSilent(let seconds): "backend did not answer within \(Self.seconds(seconds))"
        case .backendTlsFailed(let detail): "TLS with the backend failed: \(detail)"
        case .healthUrlPlainHttp(let host): "health URL refused: plain http to \(host) is allowed only to loopback"
        case .healthUrlInvalid: "health URL is not a valid http(s) URL"
        case .apiKeyBadCharacters: "API key holds characters not allowed in a header"
        case .backendRedirected: "backend answered with a redirect"
        case .backendOversized: "backend answered with an oversized body"
        case .backendUnexpected: "backend answered unexpectedly"
        case .liveSignedOutOrOffline: "signed out or offline"
        case .liveSocketClosed: "the server closed the socket"
        case .liveJoinRefused(let reason): "the join was refused: \(reason)"
        case .liveHeartbeatUnanswered(let seconds): "no answer to a heartbeat within \(Self.seconds(seconds))"
        case .liveJoinUnanswered(let seconds): "no answer to the join within \(Self.seconds(seconds))"
        case .liveCannotConnect(let detail): "cannot open the live channel: \(detail)"
        case .galleryOff: "the web gallery is off in splashd's config (web.enabled)"
        case .galleryNotListening(let reason): "the web gallery is not listening: \(reason)"
        case .askedFromTheGallery(let method): "\(method) is asked over splashd's control socket, not from the gallery"
        }
    }

    /// A JSON type with its English article: "an integer", "a string".
    public static func article(_ jsonType: String) -> String {
        (jsonType.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + jsonType
    }

    /// A size limit as HTTP states it: whole MiB when it is one, else bytes.
    public static func byteSize(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }

    /// "a, b or c" with `or` the language's word.
    public static func list(_ items: [String], or: String) -> String {
        guard let last = items.last, items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(or) " + last
    }

    /// Seconds as a timeout is read: "3 s", "2.5 s".
    public static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int(value)) s" : "\(value) s"
    }

    /// Megapixels the way the image limit is configured: whole above 10, one decimal below ("1.5").
    public static func megapixels(_ pixels: Int) -> String {
        let value = Double(pixels) / 1_000_000
        return value >= 10 ? String(Int(value.rounded())) : String((value * 10).rounded() / 10)
    }
}
