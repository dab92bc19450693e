// swift-tools-version:6.1
// splashd: a systemd-managed photo library sync daemon, and splashctl, its thin client.
//
// Folders show the architecture (see docs/architecture.md):
//   Shared        protocol types only, no I/O (JSON-RPC envelope, one type per method, events, errors)
//   SplashClient  typed client over the control socket (used by splashctl and by tests)
//   Store         SQLite through GRDB: schema, migrations, queries
//   Library       domain logic over the store (photo queries, likes, status counters)
//   Control       the transport adapter: Unix socket server, peer check, framing, router
//   Systemd       sd_notify, socket activation, watchdog (libsystemd)
//   Journal       swift-log handler writing structured fields to journald or stderr
//   HTTP          libcurl multi client
//   OAuth         PKCE and the loopback redirect listener (NIOHTTP1) of browser sign-ins (RFC 8252)
//   GooglePhotos  Google's OAuth for a Desktop client and the Photos Picker API
//   Account       Supabase Auth, the session, profiles and user lists
//   Connectivity  netlink + active probe: online, offline, degraded
//   Desktop       D-Bus through sd-bus: metered networks, battery, power saver, suspend (logind)
//   Sync          the outbox push engine (and pull)
//   PhotoSources  Unsplash and NASA: search, kept in the store
//   Editing       libvips: filters, previews, image headers, perceptual hashes
//   Realtime      Supabase Realtime's Phoenix protocol (live changes)
//   Web           the web gallery: Hummingbird on loopback, its guard, sessions and picture answers
//   Daemon        composition root: config (TOML through TOMLKit), directories, the service graph
//   SplashCtlCommands  splashctl's commands (a library, so tests run them in-process)
//   splashd, splashctl  executables that only wire things together
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    // A module uses only what it imports itself, so every edge between modules is declared.
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "splashd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "splashd", targets: ["splashd"]),
        .executable(name: "splashctl", targets: ["splashctl"]),
        .library(name: "SplashClient", targets: ["SplashClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // C libraries, each a pkg-config system library with a module map and shim.h.
        // (libsqlite3 arrives the same way through GRDB's own GRDBSQLite system library target.)
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CSDBus", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // libvips is opened at its first use (dlopen), not linked: CVips is a C target that finds its
        // functions by name, and CGLib gives it GLib's headers, which <vips/vips.h> needs.
        .systemLibrary(name: "CGLib", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .target(name: "CVips", dependencies: ["CGLib"]),
        .systemLibrary(name: "CChafa", pkgConfig: "chafa", providers: [.apt(["libchafa-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLinux"),

        .target(name: "Shared", swiftSettings: strict),
        // What several modules need, written once: the retry backoff, durable file writes, SHA-256,
        // durations for logs, change signals, the test-only crash points.
        .target(name: "Support", dependencies: ["CCrypto", "CLinux"], swiftSettings: strict),
        .target(name: "SplashClient", dependencies: ["Shared"], swiftSettings: strict),
        .target(
            name: "Store",
            dependencies: ["Shared", "Support", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict),
        .target(
            name: "Library",
            dependencies: [
                "Shared", "Support", "Store", "Editing",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        .target(
            name: "Journal",
            dependencies: ["CSystemd", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        .target(
            name: "Systemd",
            dependencies: ["CSystemd", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        .target(
            name: "Desktop",
            dependencies: [
                "CSDBus", "Support",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .target(
            name: "HTTP",
            dependencies: ["CCurl", "Support", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        .target(
            name: "OAuth",
            dependencies: [
                "Support", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .target(
            name: "GooglePhotos",
            dependencies: [
                "OAuth", "HTTP", "Support", "Shared", "Store", "Library", "Editing", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // The account server's wire: Auth, PostgREST and Storage requests, their errors and times, and
        // the rows of its tables as they are sent and read.
        .target(name: "Supabase", dependencies: ["Shared", "Support", "HTTP"], swiftSettings: strict),
        .target(
            name: "Account",
            dependencies: [
                "Shared", "Support", "Store", "HTTP", "OAuth", "Supabase",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .target(
            name: "Connectivity",
            dependencies: [
                "Shared", "Support", "HTTP",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .target(
            name: "Sync",
            dependencies: [
                "Shared", "Support", "Store", "Library", "HTTP", "Account", "Supabase", "Editing", "Connectivity",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .target(name: "Editing", dependencies: ["CVips", "Shared"], swiftSettings: strict),
        // Photos drawn for a terminal: libchafa over pixels libvips decodes, and the memory tier of
        // decoded pixels in front of the files on disk.
        .target(name: "Pictures", dependencies: ["CChafa", "Editing", "Shared"], swiftSettings: strict),
        // Supabase Realtime's Phoenix protocol: messages, what the server's frames mean, the rejoin steps.
        .target(
            name: "Realtime",
            dependencies: [
                "Shared", "Support",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "WSClient", package: "swift-websocket"),
            ],
            swiftSettings: strict),
        .target(
            name: "PhotoSources",
            dependencies: [
                "Shared", "Support", "Store", "HTTP", "Connectivity",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .target(
            name: "Control",
            dependencies: [
                "Shared",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .target(
            name: "Web",
            dependencies: [
                "CLinux", "Control", "Shared", "Support",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .target(
            name: "Daemon",
            dependencies: [
                "Shared", "Support", "Store", "Library", "Editing", "Control", "Systemd", "Journal", "HTTP", "Account", "Supabase", "Connectivity", "Sync", "PhotoSources",
                "Realtime", "Pictures", "OAuth", "GooglePhotos", "Web", "Desktop", "CLIText", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            swiftSettings: strict),

        .executableTarget(
            name: "splashd",
            dependencies: ["Daemon", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict),
        // splashctl's words, and the daemon's error sentences (Shared's DaemonText), in English and Brazilian
        // Portuguese (a library so tests can reach them).
        .target(name: "CLIText", dependencies: ["Shared"], swiftSettings: strict),
        // splashctl's commands, a library under the executable so that tests run them in-process.
        .target(
            name: "SplashCtlCommands",
            dependencies: [
                "Shared", "Support", "SplashClient", "CLIText",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        .executableTarget(name: "splashctl", dependencies: ["SplashCtlCommands"], swiftSettings: strict),

        // Helpers shared by the test targets: temporary directories, the real daemon as a child process,
        // a notify socket that plays systemd's part.
        // The daemon's own graph in a test's process, for the test targets that speak to it in-process
        // (DaemonTests) or through a control server of their own (ControlTests).
        .target(
            name: "DaemonTestSupport",
            dependencies: [
                "Daemon", "Control", "Library", "Shared", "SplashClient", "Store", "Systemd", "TestSupport", "Web",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/DaemonTestSupport", swiftSettings: strict),
        .target(
            name: "TestSupport", dependencies: ["Shared", "SplashClient", "HTTP", .product(name: "Clocks", package: "swift-clocks")],
            path: "Tests/TestSupport", swiftSettings: strict),

        .testTarget(name: "RealtimeTests", dependencies: ["Realtime", "Shared"], swiftSettings: strict),
        .testTarget(name: "SupportTests", dependencies: ["Support", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SharedTests", dependencies: ["Shared"], exclude: ["Golden"], swiftSettings: strict),
        .testTarget(name: "StoreTests", dependencies: ["Store", "Library", "Shared", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "ControlTests",
            dependencies: ["Control", "Daemon", "DaemonTestSupport", "Shared", "SplashClient", "Library", "Store", "Support", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "Daemon", "Account", "Supabase", "Editing", "HTTP", "Library", "PhotoSources", "Shared", "SplashClient", "Systemd", "Journal",
                "TestSupport", "DaemonTestSupport", "CLIText", "SplashCtlCommands", "Control", "Store", "Desktop", "Sync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "WebTests",
            dependencies: [
                "Web", "Daemon", "DaemonTestSupport", "Control", "Shared", "SplashClient", "Store", "Support", "TestSupport",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "Support", "TestSupport"], exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "ConnectivityTests",
            dependencies: ["Connectivity", "HTTP", "Shared", "Support", "TestSupport", .product(name: "Clocks", package: "swift-clocks")],
            exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "SyncTests",
            dependencies: [
                "Sync", "Daemon", "Account", "Supabase", "Shared", "Support", "SplashClient", "Store", "Library", "HTTP", "TestSupport", "CLIText",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "SourceTests",
            dependencies: ["PhotoSources", "Daemon", "Editing", "HTTP", "Shared", "SplashClient", "Store", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "EditingTests", dependencies: ["Editing", "CVips", "Pictures", "Shared"], exclude: ["Fixtures", "Golden"], swiftSettings: strict),
        .testTarget(
            name: "AccountTests",
            dependencies: ["Account", "Supabase", "Daemon", "OAuth", "Shared", "SplashClient", "Store", "HTTP", "TestSupport"],
            swiftSettings: strict),
    ]
)
