/// splashctl's `--help` texts in English (the default, and what the man pages are made from).
extension English {
    static func text(_ help: HelpText) -> String {
        switch help {
        case .splashctlAbstract: "Control splashd, the photo library sync daemon."
        case .splashctlDiscussion:
            "Exit codes follow sysexits.h: 0 ok, 64 usage, 65 invalid input, 66 not found, 69 daemon not running, "
                + "70 internal error, 75 try again later (offline, busy, rate limited), 76 protocol error, 77 not permitted. "
                + "See docs/protocol.md."
        case .socketOption: "Control socket (default: $SPLASHD_SOCKET, else $XDG_RUNTIME_DIR/splashd/control.sock)."
        case .jsonFlag: "Print exactly the daemon's JSON result (errors as the JSON error object on stderr)."
        case .noColorFlag: "No colour, even on a terminal (NO_COLOR is honoured too)."

        case .photoID: "The photo id, e.g. unsplash:Dwu85P9SOIk."
        case .photoIDShort: "The photo id."
        case .page: "Page, from 1."
        case .emailAddress: "E-mail address."
        case .passwordFromFirstLineOfStdin: "Read the password from the first line of standard input."
        case .signInProvider: "Sign in with google or github, in a browser, through the account server (instead of --email)."
        case .noBrowserFlag: "With --provider: open no browser here; print the address, then read back the one the browser ended on."
        case .adoptGuestFlag: "Bring the likes and edits made here without an account into it (asked when not given)."
        case .opID: "The op id (from splashctl queue; a unique prefix is enough)."

        case .setupAbstract: "First run: backend URL, keys, the user units, and signing in."
        case .setupDiscussion:
            """
            Writes $XDG_CONFIG_HOME/splashd/config.toml (mode 0600) with the keys in files beside it \
            (anon_key, unsplash_key, mode 0600), enables splashd.socket for your user when systemd is \
            there, and signs you in. Run it again to change anything; the old config is kept as \
            config.toml.bak.
            """
        case .setupBackendURL: "The Supabase project URL, e.g. https://abcd.supabase.co."
        case .setupAnonKeyFile: "A file holding the project's anon (publishable) key."
        case .setupUnsplashKeyFile: "A file holding an Unsplash access key (optional: without one, Unsplash search is off)."
        case .setupEmail: "Sign in as this e-mail address."
        case .setupSignup: "Create the account (with --username) instead of signing in."
        case .setupUsername: "With --signup: the username."
        case .setupPasswordStdin: "Read the password from standard input."
        case .setupNoEnable: "Do not touch systemd's user units."
        case .setupNoSignIn: "Do not sign in now."

        case .statusAbstract: "Show what the daemon is doing."
        case .watchAbstract: "Print the daemon's events as they happen, until interrupted."
        case .watchType: "Only these event types (repeatable), e.g. photo.changed."

        case .photosAbstract: "Photos in the local library."
        case .photosListAbstract: "List photos in the store (works offline; never waits on the network)."
        case .photosListLiked: "Only liked photos."
        case .photosListEdited: "Only photos with edits."
        case .photosListDismissed: "Only dismissed photos (hidden otherwise)."
        case .photosListSource: "unsplash, nasa or local."
        case .photosListColor: "Colour bucket, e.g. blue, red, black_and_white."
        case .photosListText: "Full-text search over title, description, tags and author."
        case .photosListSort: "created, liked or fetched; prefix '-' for descending (default -fetched; -liked with --liked)."
        case .photosListLimit: "At most this many (1–1000, default 50)."
        case .photosListOffset: "Skip this many."
        case .photosStatsAbstract: "Views and downloads of an Unsplash photo over 30 days, drawn as a chart (--json for the numbers)."
        case .photosStatsID: "An Unsplash photo id (unsplash:...)."
        case .photosShowAbstract: "Show one photo: its picture, title, author and the facts a person reads; liked or not."
        case .photosShowVerbose: "Also every rendition's address, the photo's page, and its files on this machine."

        case .searchAbstract: "Search Unsplash or NASA (a search run before answers at once from the store and refreshes in the background)."
        case .searchQuery: "What to look for."
        case .searchSource: "unsplash (default) or nasa."
        case .searchColor: "Unsplash: a colour, e.g. blue, red, black_and_white."
        case .searchOrientation: "Unsplash: landscape, portrait or squarish."
        case .searchOrder: "Unsplash: relevant or latest."
        case .searchMedia: "NASA: image, video or audio."
        case .searchYearFrom: "NASA: earliest year."
        case .searchYearTo: "NASA: latest year."
        case .searchPerPage: "Results per page (Unsplash up to 30, NASA up to 100)."
        case .searchAgain: "Run search number N of `splashctl history` again."
        case .searchRefresh: "Wait for fresh results (or the source's error) instead of the results kept from before."
        case .historyAbstract: "Your last searches, newest first (run one again with search --again N)."
        case .historySource: "Only unsplash or nasa."

        case .randomAbstract: "Random Unsplash photos (never a dismissed one)."
        case .randomCount: "How many, 1 to 30."
        case .randomTopic: "From this topic (slug or id)."
        case .randomQuery: "Matching this."
        case .topicsAbstract: "Unsplash's topics."
        case .topicsOrder: "featured, latest, oldest or position."
        case .topicAbstract: "One topic's photos."
        case .topicSlug: "The topic's slug, e.g. wallpapers."
        case .topicOrder: "latest, oldest or popular."
        case .topicPerPage: "Per page, 1 to 30."
        case .gridFlag: "Show the photos as a contact sheet of pictures, each id under its picture."
        case .imageOption: "How to draw the photo: auto (detect the terminal), none, symbols, kitty, sixel or iterm."
        case .topicRefresh: "Wait for fresh photos (or Unsplash's error) instead of the page kept from before."

        case .feedKind: "topic or search."
        case .feedValue: "The topic's slug, or the query."
        case .feedSource: "For searches: unsplash (default) or nasa."
        case .followAbstract: "Keep a topic's or a search's newest photos fresh in the background."
        case .followKeep: "How many of the newest to keep fresh, 1 to 30 (default 30)."
        case .unfollowAbstract: "Stop following a topic or a search."
        case .feedsAbstract: "The topics and searches you follow."

        case .likeAbstract: "Add a photo to My Collection (works offline; sent when online)."
        case .likeAllowDuplicate: "Like it even if it looks like a photo already in the library."
        case .unlikeAbstract: "Remove a photo from My Collection."
        case .dismissAbstract: "Never show a photo again in searches, feeds or random picks (stays on this machine)."
        case .dismissUndo: "Bring a dismissed photo back."

        case .syncAbstract: "Send queued changes now; --wait blocks until the queue drains or fails."
        case .syncWait: "Wait until nothing is left to send."
        case .syncTimeout: "With --wait: give up after this many seconds (default 60)."
        case .pauseAbstract: "Pause sync: changes queue as when offline until splashctl resume (kept across restarts)."
        case .pauseFor: "End the pause by itself after this long: 30m, 2h, 1d, 1h30m (1 min to 30 d)."
        case .pauseDownloadsOnly: "Pause only downloads and uploads of whole files; likes and edits still go."
        case .resumeAbstract: "End a pause of sync now."
        case .queueAbstract: "Changes waiting for the server, and those it refused."
        case .queueListAbstract: "List queued changes."
        case .queueListRejected: "Only the changes the server refused."
        case .queueRetryAbstract: "Send a refused or waiting change again, now."
        case .queueDropAbstract: "Give up on a change for good (the local change stays; the server never gets it)."
        case .queueDropYes: "Do not ask for confirmation."

        case .importAbstract: "Add a folder's JPEG, PNG and WebP files to the library as local photos."
        case .importDiscussion:
            """
            Files stay where they are. Each gets its dimensions, its EXIF date and a perceptual hash; a \
            near-duplicate of a photo already in the library is reported and skipped \
            (import.duplicate_threshold). A file that cannot be read is reported and the rest go on.
            """
        case .importPath: "A folder (or one file)."
        case .importRecursive: "Into subfolders too."
        case .importWatch: "Then keep watching the folder: new or changed photos are imported as they appear, across restarts."
        case .importWatching: "List the folders being watched."
        case .importUnwatch: "Stop watching the folder (its photos stay in the library)."

        case .editAbstract: "Apply filters to a photo: save an edit (the original stays), or --preview to a file."
        case .editDiscussion:
            """
            Filters apply in order: --filter sepia:0.8 --filter vignette:1.0,0.6. Parameters left out take \
            their defaults; splashctl filters lists them all.
            """
        case .editFilter: "A filter, NAME[:P1,P2...]; repeat for a chain."
        case .editPreview: "Render a small preview to this JPEG file instead of saving an edit; with no file (or -), draw the original and the preview side by side here."
        case .editSize: "With --preview: the longest side in pixels (16-2048, default 512)."
        case .editOpen: "With --preview: open the preview with xdg-open."
        case .filtersAbstract: "List the filters, their parameters, ranges and defaults."
        case .editsAbstract: "Your saved edits."
        case .editsListAbstract: "List edits, newest first (of one photo when given)."
        case .editsListID: "Only this photo's edits."
        case .editsRemoveAbstract: "Remove an edit here, on the server and in Storage."
        case .editsRemoveID: "The edit id (a unique prefix from splashctl edits list is enough)."

        case .cacheAbstract: "Disk used by the library (kept) and the cache (evicted least-recently-used)."
        case .cacheShowAbstract: "Show library and cache usage."
        case .cachePruneAbstract: "Evict cache files now, least recently used first. The library is never touched."
        case .cachePruneKeep: "Keep this many bytes of the most recently used cache files (default 0: empty the cache)."
        case .libraryAbstract: "The library as seen by other programs."
        case .libraryExportAbstract: "Rebuild the library's folder under Pictures exactly (My Collection/, Edits/)."
        case .libraryExportDiscussion: """
            splashd keeps pictures.folder (default: the XDG Pictures folder's Splash) in step by itself: one hard link \
            (a symbolic link across file systems) per liked photo's file in My Collection/ and per saved edit in \
            Edits/. This puts back what is missing or wrong and removes splashd's entries that should not be there; \
            other files in the folder are left alone. With --check it only compares, and exits with status 1 when the \
            folder is out of step.
            """
        case .libraryExportCheck: "Only compare the folder with the library; change nothing (exit status 1 when out of step)."
        case .openAbstract: "Open the web gallery in your browser."
        case .openDiscussion: """
            splashd serves a gallery on loopback (web.port, default 8426). This asks it for an address that lets one \
            browser in, once and within two minutes, and opens it ($BROWSER, else xdg-open) through a file only you \
            can read, so the address is never on a command line. The browser keeps a session for 30 days; \
            --revoke-all ends every session, and so does signing out.
            """
        case .openPrint: "Print the one-time address instead of opening it."
        case .openRevokeAll: "End every browser session of the gallery."

        case .signupAbstract: "Create an account and sign in to it (asks for the password without echo)."
        case .signupUsername: "Username: 3 to 32 of a-z, 0-9 and '_'."
        case .loginAbstract: "Sign in (asks for the password without echo)."
        case .logoutAbstract: "Sign out; changes not yet sent stay queued for the account."
        case .whoamiAbstract: "Who is signed in."
        case .googleAbstract: "Google Photos: connect splashd to Google, see the connection, end it."
        case .googleConnectAbstract: "Authorise splashd with Google (in a browser) to read the photos you pick in Google Photos."
        case .googleStatusAbstract: "Whether splashd is connected to Google, and why not when Google ended it."
        case .googleDisconnectAbstract: "Revoke splashd's access at Google and forget its tokens (imported photos stay)."
        case .importGooglePhotos: "Import photos you pick in Google Photos (after splashctl google connect), instead of a folder."
        case .googleRefreshFlag: "Refresh the access token now (asks Google whether the connection still holds)."
        case .guestAbstract: "The likes and edits made here without an account, kept on this machine."
        case .guestStatusAbstract: "How many likes and edits the guest has."
        case .guestAdoptAbstract: "Bring the guest's likes and edits into the signed-in account (queued for the server)."
        case .profileAbstract: "Show or change your profile."
        case .profileShowAbstract: "Show your profile."
        case .profileShowRefresh: "Fetch it from the server first."
        case .setUsernameAbstract: "Change your username (applied here at once, sent when online)."
        case .setUsernameName: "3 to 32 of a-z, 0-9 and '_'."
        case .setUsernameWait: "Wait (up to 30 s) for the server's verdict: updated, or why it refused the name."
        case .usersAbstract: "What the server says about everyone."
        case .usersCountAbstract: "How many accounts exist."
        case .usersRecentAbstract: "The newest accounts."
        case .usersRecentLimit(let max, let defaultLimit): "At most this many (1–\(max), default \(defaultLimit))."
        }
    }
}
