import CLIText
import Foundation
import Shared
import Testing
import TestSupport

/// splashctl's `--help` in English and Brazilian Portuguese: every help text in both catalogues, every
/// text the real binary's help shows taken from them, and the help in the environment's language.
/// (ArgumentParser's own words, "USAGE:", "OPTIONS:", "Show help information.", stay English.)
@Suite struct HelpTextTests {
    // MARK: Every help text in both languages

    /// Help texts that read the same in both languages on purpose (a list of option values, a name).
    /// None today: even "unsplash, nasa or local." has its "ou". Add a case here only for a text with
    /// nothing to translate.
    static let sameInBothLanguages: Set<String> = []

    /// The case names declared in `HelpText`, read from its source, so an example cannot be forgotten.
    static func declaredCases() throws -> Set<String> {
        try DeclaredCases.names(of: "HelpText", in: "Sources/CLIText/HelpText.swift", until: "public func text")
    }

    static func caseName(_ help: HelpText) -> String { DeclaredCases.name(of: help) }

    /// The examples, with the values the binary really shows where a text varies.
    static var asTheBinaryShowsThem: [HelpText] {
        HelpText.examples.map { help in
            if case .usersRecentLimit = help {
                return .usersRecentLimit(max: UsersRecentRequest.maxLimit, default: UsersRecentRequest.defaultLimit)
            }
            return help
        }
    }

    @Test func everyCaseHasAnExample() throws {
        let declared = try Self.declaredCases()
        let examples = HelpText.examples.map(Self.caseName)
        #expect(declared.count > 100, "read \(declared.count) cases from HelpText.swift")
        #expect(
            Set(examples) == declared,
            "missing: \(declared.subtracting(examples).sorted()); unknown: \(Set(examples).subtracting(declared).sorted())")
        #expect(examples.count == Set(examples).count, "one example per case")
    }

    @Test func everyHelpTextIsTranslated() throws {
        // English words that no Portuguese sentence has: one of them outside `code` is an English
        // phrase left in a translation.
        let english = try Regex(#"\b(the|and|or|of|to|in|is|for|with|from|this|your|when|only|not|on|by|it)\b"#).ignoresCase()
        for help in HelpText.examples {
            let name = Self.caseName(help)
            let inEnglish = help.text(.english)
            let inPortuguese = help.text(.brazilianPortuguese)
            #expect(!inEnglish.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(name): empty in English")
            #expect(!inPortuguese.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(name): empty in Portuguese")
            if !Self.sameInBothLanguages.contains(name) {
                #expect(inEnglish != inPortuguese, "\(name): not translated: \(inEnglish)")
            }
            let outsideCode = inPortuguese.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset.isMultiple(of: 2) }.map(\.element).joined(separator: " ")
            #expect(outsideCode.firstMatch(of: english) == nil, "\(name): English left in the Portuguese: \(inPortuguese)")
        }
    }

    @Test func aVaryingHelpTextShowsItsValuesInBothLanguages() {
        let limit = HelpText.usersRecentLimit(max: 997, default: 991)
        #expect(limit.text(.english) == "At most this many (1–997, default 991).")
        #expect(limit.text(.brazilianPortuguese) == "No máximo esta quantidade (1–997, padrão 991).")
    }

    // MARK: The real splashctl

    /// ArgumentParser's own help texts, which it gives no way to translate.
    static let argumentParsersOwn: Set<String> = ["Show help information.", "Show subcommand help information.", "Show the version."]

    static func splashctl(_ arguments: [String], _ environment: [String: String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess.run(DaemonProcess.splashctlPath, arguments, environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 })
    }

    /// Every abstract and discussion in a dump of the command tree (ArgumentParser's ToolInfo JSON).
    static func texts(inDump value: Any) -> Set<String> {
        switch value {
        case let object as [String: Any]:
            var texts = Set(["abstract", "discussion"].compactMap { object[$0] as? String })
            for child in object.values { texts.formUnion(Self.texts(inDump: child)) }
            return texts
        case let array as [Any]:
            return array.reduce(into: Set<String>()) { $0.formUnion(Self.texts(inDump: $1)) }
        default:
            return []
        }
    }

    /// The whole command tree, as the man pages see it (`--experimental-dump-help`): every abstract,
    /// discussion and option help is one of the catalogue's texts in the environment's language, and
    /// every text of the catalogue is used. A literal left in a command, or a lookup missing, fails here.
    @Test(arguments: [("C", Language.english), ("pt_BR.UTF-8", .brazilianPortuguese)])
    func theWholeCommandTreeComesFromTheCatalogue(lang: String, language: Language) async throws {
        let dump = try await Self.splashctl(["--experimental-dump-help"], ["LANG": lang])
        #expect(dump.status == 0, "\(dump.stderr)")
        let shown = Self.texts(inDump: try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)))
        let catalogue = Set(Self.asTheBinaryShowsThem.map { $0.text(language) })
        #expect(shown.count > 100, "read \(shown.count) texts from the dump")
        #expect(shown.subtracting(catalogue).subtracting(Self.argumentParsersOwn).isEmpty,
                "\(language): shown but not from the catalogue: \(shown.subtracting(catalogue).subtracting(Self.argumentParsersOwn).sorted())")
        #expect(catalogue.subtracting(shown).isEmpty, "\(language): in the catalogue but never shown: \(catalogue.subtracting(shown).sorted())")
    }

    /// A page of help and texts it must show.
    struct HelpPage: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var texts: [HelpText]
        var testDescription: String { "splashctl " + arguments.joined(separator: " ") }
    }

    static let pages = [
        HelpPage(arguments: ["--help"], texts: [.splashctlAbstract, .splashctlDiscussion, .likeAbstract, .syncAbstract]),
        HelpPage(arguments: ["like", "--help"], texts: [.likeAbstract, .photoID, .likeAllowDuplicate, .socketOption, .jsonFlag, .noColorFlag]),
        HelpPage(arguments: ["photos", "list", "--help"], texts: [.photosListAbstract, .photosListSort, .photosListLimit]),
        HelpPage(arguments: ["import", "--help"], texts: [.importAbstract, .importDiscussion, .importWatch]),
        HelpPage(arguments: ["help", "queue", "drop"], texts: [.queueDropAbstract, .opID, .queueDropYes]),
        HelpPage(
            arguments: ["users", "recent", "--help"],
            texts: [.usersRecentAbstract, .usersRecentLimit(max: UsersRecentRequest.maxLimit, default: UsersRecentRequest.defaultLimit)]),
    ]

    /// The help as a reader sees it, with ArgumentParser's line wrapping undone: runs of spaces and
    /// line breaks read as one space.
    static func unwrapped(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The rendered help is Portuguese under pt_BR and English otherwise (LC_ALL over LANG, as gettext).
    @Test(arguments: pages)
    func helpSpeaksTheEnvironmentsLanguage(page: HelpPage) async throws {
        for (environment, language) in [
            (["LANG": "pt_BR.UTF-8"], Language.brazilianPortuguese), (["LANG": "C"], .english), ([:], .english),
            (["LANG": "pt_BR.UTF-8", "LC_ALL": "C"], .english), (["LANG": "C", "LC_MESSAGES": "pt_BR.UTF-8"], .brazilianPortuguese),
        ] {
            let other: Language = language == .english ? .brazilianPortuguese : .english
            let help = try await Self.splashctl(page.arguments, environment)
            #expect(help.status == 0, "\(environment): \(help.stderr)")
            let shown = Self.unwrapped(help.stdout)
            #expect(shown.contains("USAGE:"), "ArgumentParser's headings stay: \(help.stdout)")
            for text in page.texts {
                #expect(shown.contains(Self.unwrapped(text.text(language))), "\(environment): missing \(text.text(language))\n\(help.stdout)")
                #expect(!shown.contains(Self.unwrapped(text.text(other))), "\(environment): shows \(text.text(other))")
            }
        }
    }
}
