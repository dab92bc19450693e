/// Every `--help` text of splashctl: the commands' abstracts and discussions and the help of each
/// option, flag and argument, one case per text. Like `Message`, the catalogues (`English`,
/// `BrazilianPortuguese`, in `English+HelpText.swift` and `BrazilianPortuguese+HelpText.swift`) switch
/// over every case, so a help text missing from one language does not compile. Command and option
/// names, JSON keys, paths and example commands stay untranslated inside the texts.
///
/// A discussion is one paragraph (its source lines joined with `\`), so that ArgumentParser wraps it
/// evenly to the terminal instead of breaking it again at the source's line ends.
///
/// Not translated: the words swift-argument-parser writes itself ("USAGE:", "ARGUMENTS:", "OPTIONS:",
/// "SUBCOMMANDS:", "Show help information.", "(default: …)", its own parse errors). It offers no hook
/// for them, and changing them would mean keeping a fork of it; a Portuguese help therefore has
/// English headings around Portuguese texts.
///
/// ArgumentParser reads `help:` when a command's property wrappers are initialised and
/// `configuration` when it is first read, both after `Language.current` is fixed for the process, so
/// a lookup at those points gives the environment's language.
public enum HelpText: Sendable, Equatable {
    // splashctl and the options every command takes
    case splashctlAbstract
    case splashctlDiscussion
    case socketOption
    case jsonFlag
    case noColorFlag

    // Shared by several commands
    /// An argument naming a photo, with an example id.
    case photoID
    /// An argument naming a photo, the example already given by the command's abstract.
    case photoIDShort
    case page
    case emailAddress
    case passwordFromFirstLineOfStdin
    case adoptGuestFlag
    /// `login --provider` and `--no-browser`.
    case signInProvider
    case noBrowserFlag
    /// `queue retry` and `queue drop`: the op's id.
    case opID

    // setup
    case setupAbstract
    case setupDiscussion
    case setupBackendURL
    case setupAnonKeyFile
    case setupUnsplashKeyFile
    case setupEmail
    case setupSignup
    case setupUsername
    case setupPasswordStdin
    case setupNoEnable
    case setupNoSignIn

    // status, watch
    case statusAbstract
    case watchAbstract
    case watchType

    // photos
    case photosAbstract
    case photosListAbstract
    case photosListLiked
    case photosListEdited
    case photosListDismissed
    case photosListSource
    case photosListColor
    case photosListText
    case photosListSort
    case photosListLimit
    case photosListOffset
    case photosStatsAbstract
    case photosStatsID
    case photosShowAbstract
    case photosShowVerbose

    // search, history
    case searchAbstract
    case searchQuery
    case searchSource
    case searchColor
    case searchOrientation
    case searchOrder
    case searchMedia
    case searchYearFrom
    case searchYearTo
    case searchPerPage
    case searchAgain
    case searchRefresh
    case historyAbstract
    case historySource

    // random, topics, topic
    case randomAbstract
    case randomCount
    case randomTopic
    case randomQuery
    case topicsAbstract
    case topicsOrder
    case topicAbstract
    case topicSlug
    case topicOrder
    case topicPerPage
    case topicRefresh
    case imageOption
    case gridFlag

    // follow, unfollow, feeds
    case feedKind
    case feedValue
    case feedSource
    case followAbstract
    case followKeep
    case unfollowAbstract
    case feedsAbstract

    // like, unlike, dismiss
    case likeAbstract
    case likeAllowDuplicate
    case unlikeAbstract
    case dismissAbstract
    case dismissUndo

    // sync, queue
    case syncAbstract
    case syncWait
    case syncTimeout
    case pauseAbstract
    case pauseFor
    case pauseDownloadsOnly
    case resumeAbstract
    case queueAbstract
    case queueListAbstract
    case queueListRejected
    case queueRetryAbstract
    case queueDropAbstract
    case queueDropYes

    // import
    case importAbstract
    case importDiscussion
    case importPath
    case importRecursive
    case importWatch
    case importWatching
    case importUnwatch

    // edit, filters, edits
    case editAbstract
    case editDiscussion
    case editFilter
    case editPreview
    case editSize
    case editOpen
    case filtersAbstract
    case editsAbstract
    case editsListAbstract
    case editsListID
    case editsRemoveAbstract
    case editsRemoveID

    // cache
    case cacheAbstract
    case cacheShowAbstract
    case cachePruneAbstract
    case cachePruneKeep

    // library export (the Pictures folder)
    case libraryAbstract
    case libraryExportAbstract
    case libraryExportDiscussion
    case libraryExportCheck

    // open (the web gallery)
    case openAbstract
    case openDiscussion
    case openPrint
    case openRevokeAll

    // Account: signup, login, logout, whoami, guest, profile, users
    case signupAbstract
    case signupUsername
    case loginAbstract
    case logoutAbstract
    case whoamiAbstract
    case guestAbstract
    case googleAbstract
    case googleConnectAbstract
    case googleStatusAbstract
    case googleDisconnectAbstract
    case googleRefreshFlag
    case importGooglePhotos
    case guestStatusAbstract
    case guestAdoptAbstract
    case profileAbstract
    case profileShowAbstract
    case profileShowRefresh
    case setUsernameAbstract
    case setUsernameName
    case setUsernameWait
    case usersAbstract
    case usersCountAbstract
    case usersRecentAbstract
    /// The bounds come from the protocol (`UsersRecentRequest`), which CLIText does not import.
    case usersRecentLimit(max: Int, default: Int)

    /// This help text in `language` (the environment's by default).
    public func text(_ language: Language = .current) -> String {
        switch language {
        case .english: English.text(self)
        case .brazilianPortuguese: BrazilianPortuguese.text(self)
        }
    }
}
