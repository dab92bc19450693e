import CLIText
import Foundation
import Shared
@testable import SplashCtlCommands
import Testing
import TestSupport

/// splashctl speaks English and Brazilian Portuguese: every message in both, the language chosen
/// from the environment the way gettext chooses, and the real binary doing it.
@Suite struct LocalizationTests {
    // MARK: Every message in both languages

    /// The case names declared in `Message`, read from its source, so an example cannot be forgotten.
    static func declaredCases() throws -> Set<String> {
        try DeclaredCases.names(of: "Message", in: "Sources/CLIText/Message.swift", until: "public func text")
    }

    static func caseName(_ message: Message) -> String { DeclaredCases.name(of: message) }

    /// The associated values of a message, as the text they should show up as.
    static func placeholders(_ message: Message) -> [String] {
        func collect(_ value: Any) -> [String] {
            switch value {
            case let text as String: return [text]
            case let number as Int: return [String(number)]
            default:
                let mirror = Mirror(reflecting: value)
                if mirror.displayStyle == .optional { return mirror.children.flatMap { collect($0.value) } }
                return mirror.children.flatMap { collect($0.value) }
            }
        }
        return Mirror(reflecting: message).children.flatMap { collect($0.value) }
    }

    @Test func everyCaseHasAnExample() throws {
        let declared = try Self.declaredCases()
        let examples = Message.examples.map(Self.caseName)
        #expect(declared.count > 100, "read \(declared.count) cases from Message.swift")
        #expect(Set(examples) == declared, "missing: \(declared.subtracting(examples).sorted()); unknown: \(Set(examples).subtracting(declared).sorted())")
        #expect(examples.count == Set(examples).count, "one example per case")
    }

    @Test func everyMessageIsTranslatedWithItsPlaceholders() {
        for message in Message.examples {
            let english = message.text(.english)
            let portuguese = message.text(.brazilianPortuguese)
            let name = Self.caseName(message)
            #expect(!english.trimmingCharacters(in: .whitespaces).isEmpty, "\(name): empty in English")
            #expect(!portuguese.trimmingCharacters(in: .whitespaces).isEmpty, "\(name): empty in Portuguese")
            // A sentence (more than one word) left as the English text is an untranslated copy.
            if english.split(separator: " ").count > 1 {
                #expect(english != portuguese, "\(name): not translated: \(english)")
            }
            for value in Self.placeholders(message) {
                #expect(english.contains(value), "\(name): '\(value)' missing from the English: \(english)")
                #expect(portuguese.contains(value), "\(name): '\(value)' missing from the Portuguese: \(portuguese)")
            }
        }
    }

    /// Every message that counts, with its counts at 1, reads in the singular in both languages: no
    /// "1 photos", "1 curtidas". Every counting case has such an example.
    @Test func everyCountReadsInTheSingularAtOne() throws {
        let counting = Set(Message.examples.filter { message in
            Mirror(reflecting: message).children.contains { child in
                child.value is Int || Mirror(reflecting: child.value).children.contains { $0.value is Int }
            }
        }.map(Self.caseName))
        let covered = Set(Message.singularExamples.map(Self.caseName))
        #expect(counting.subtracting(covered).isEmpty, "no singular example: \(counting.subtracting(covered).sorted())")
        let plural = try Regex(#"(^|[^0-9.,])1 [a-zà-ú]+s\b"#)
        for message in Message.singularExamples {
            for language in Language.allCases {
                let text = message.text(language)
                #expect(text.firstMatch(of: plural) == nil, "\(Self.caseName(message)) in \(language): \(text)")
            }
        }
    }

    @Test func singularAndPluralBothRead() {
        #expect(Message.importedPhotos(1).text(.english) == "imported 1 photo")
        #expect(Message.importedPhotos(3).text(.english) == "imported 3 photos")
        #expect(Message.importedPhotos(1).text(.brazilianPortuguese) == "1 foto importada")
        #expect(Message.importedPhotos(3).text(.brazilianPortuguese) == "3 fotos importadas")
        #expect(Message.sizeInFiles(size: "2 MB", files: 1).text(.brazilianPortuguese) == "2 MB em 1 arquivo")
    }

    @Test func columnsAndLabelsExistInBothLanguages() {
        for language in Language.allCases {
            let columns = Column.allCases.map { $0.text(language) }
            #expect(columns.allSatisfy { !$0.isEmpty && $0 == $0.uppercased() }, "\(language): \(columns)")
            let labels = Label.allCases.map { $0.text(language) }
            #expect(labels.allSatisfy { !$0.isEmpty }, "\(language): \(labels)")
            #expect(Set(labels).count == labels.count, "\(language): two labels read the same")
        }
        #expect(Column.whatItDoes.text(.brazilianPortuguese) != Column.whatItDoes.text(.english))
        #expect(Label.libraryDirectory.text(.brazilianPortuguese) != Label.libraryDirectory.text(.english))
        let aligned = Table.labelled([(.email, "a@b.c"), (.memberSince, "2025")], width: nil, language: .brazilianPortuguese)
        #expect(aligned == "  e-mail        a@b.c\n  membro desde  2025")
    }

    /// `status` in Portuguese: its longer labels and sentences wrap under their value's column at the
    /// terminal's width instead of running past it.
    @Test func labelledValuesWrapAtTheTerminalsWidth() {
        let reason = "conectado a um servidor que não responde ao pedido de saúde há 30 segundos"
        let lines = Table.labelled([(.connectivity, "degradado — " + reason), (.outbox, "0 pendentes")], width: 60,
                                   language: .brazilianPortuguese).components(separatedBy: "\n")
        let column = "  \(Label.connectivity.text(.brazilianPortuguese))  ".count
        #expect(lines.count > 2)
        #expect(lines.allSatisfy { $0.count <= 60 }, "no line past the terminal")
        #expect(lines.dropFirst().prefix(lines.count - 2).allSatisfy { $0.hasPrefix(String(repeating: " ", count: column)) },
                "a wrapped line starts under its value")
        #expect(lines.joined(separator: " ").split(separator: " ").joined(separator: " ").contains(reason))
    }

    // MARK: Relative times and numbers

    @Test func relativeTimesAndSizesAreLocalized() {
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        #expect(Formatting.relative(now.addingTimeInterval(-20), now: now, language: .english) == "just now")
        #expect(Formatting.relative(now.addingTimeInterval(-20), now: now, language: .brazilianPortuguese) == "agora mesmo")
        #expect(Formatting.relative(now.addingTimeInterval(-150), now: now, language: .english) == "2 min ago")
        #expect(Formatting.relative(now.addingTimeInterval(-150), now: now, language: .brazilianPortuguese) == "há 2 min")
        #expect(Formatting.relative(now.addingTimeInterval(-7300), now: now, language: .brazilianPortuguese) == "há 2 h")
        #expect(Formatting.relative(now.addingTimeInterval(-3 * 86_400), now: now, language: .brazilianPortuguese) == "há 3 d")
        #expect(Formatting.relativeFuture(now.addingTimeInterval(300), now: now, language: .english) == "in 5 min")
        #expect(Formatting.relativeFuture(now.addingTimeInterval(300), now: now, language: .brazilianPortuguese) == "em 5 min")
        #expect(Formatting.relativeFuture(now, now: now, language: .brazilianPortuguese) == "agora")
        #expect(Formatting.bytes(1_500_000, language: .english) == "1.5 MB")
        #expect(Formatting.bytes(1_500_000, language: .brazilianPortuguese) == "1,5 MB")
        #expect(Formatting.bytes(999, language: .brazilianPortuguese) == "999 B")
        #expect(Formatting.rate(2_000_000, language: .english) == "2 MB/s")
        #expect(Formatting.rate(1_500, language: .brazilianPortuguese) == "1,5 KB/s")
        #expect(Formatting.rate(512, language: .english) == "512 B/s")
        #expect(Formatting.duration(5400, language: .brazilianPortuguese) == "1,5 h")
        #expect(Formatting.duration(5400, language: .english) == "1.5 h")
    }

    // MARK: Choosing the language

    @Test(arguments: [
        ([:], Language.english),
        (["LANG": "pt_BR.UTF-8"], .brazilianPortuguese),
        (["LANG": "pt_BR"], .brazilianPortuguese),
        (["LANG": "pt"], .brazilianPortuguese),
        (["LANG": "C"], .english),
        (["LANG": "POSIX"], .english),
        (["LANG": "C.UTF-8"], .english),
        (["LANG": "en_US.UTF-8"], .english),
        (["LANG": "de_DE.UTF-8"], .english),
        (["LANG": ""], .english),
        (["LC_MESSAGES": "pt_BR.UTF-8", "LANG": "en_US.UTF-8"], .brazilianPortuguese),
        (["LC_MESSAGES": "C", "LANG": "pt_BR.UTF-8"], .english),
        (["LC_MESSAGES": "", "LANG": "pt_BR.UTF-8"], .brazilianPortuguese),
        (["LC_ALL": "pt_BR.UTF-8", "LC_MESSAGES": "C", "LANG": "C"], .brazilianPortuguese),
        (["LC_ALL": "C", "LC_MESSAGES": "pt_BR.UTF-8", "LANG": "pt_BR.UTF-8"], .english),
        (["LC_ALL": "", "LANG": "pt_BR.UTF-8"], .brazilianPortuguese),
        (["LC_CTYPE": "pt_BR.UTF-8"], .english),
    ] as [([String: String], Language)])
    func languageFromTheEnvironment(environment: [String: String], expected: Language) {
        #expect(Language.from(environment: environment) == expected, "\(environment)")
    }

    // MARK: The real splashctl

    @Test func splashctlSpeaksTheEnvironmentsLanguage() async throws {
        let notRunning = try await run(
            DaemonProcess.splashctlPath, ["--socket", "/nonexistent/splashd.sock", "status"], environment: ["LANG": "pt_BR.UTF-8"])
        #expect(notRunning.status == 69)
        #expect(notRunning.stderr.contains("o splashd não está em execução"), "\(notRunning.stderr)")

        let dir = TemporaryDirectory()
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process(directory: dir.path)
            _ = try await daemon.waitUntilListening()
            let env = ["SPLASHD_SOCKET": daemon.socketPath, "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": dir.path + "/config"]

            let portuguese = try await run(DaemonProcess.splashctlPath, ["status"], environment: env.merging(["LANG": "pt_BR.UTF-8"]) { $1 })
            #expect(portuguese.status == 0)
            #expect(portuguese.stdout.contains("splashd \(SplashVersion.current)"), "\(portuguese.stdout)")
            #expect(portuguese.stdout.contains("sem sessão"), "\(portuguese.stdout)")
            #expect(portuguese.stdout.contains("conta") && portuguese.stdout.contains("fila de envio"), "\(portuguese.stdout)")
            #expect(portuguese.stdout.contains("Primeira vez?"), "\(portuguese.stdout)")
            #expect(!portuguese.stdout.contains("signed out"), "\(portuguese.stdout)")

            let english = try await run(DaemonProcess.splashctlPath, ["status"], environment: env.merging(["LANG": "C"]) { $1 })
            #expect(english.status == 0)
            #expect(english.stdout.contains("signed out") && english.stdout.contains("account"), "\(english.stdout)")
            #expect(!english.stdout.contains("sem sessão"), "\(english.stdout)")

            // LC_ALL wins over LANG, as with gettext.
            let overridden = try await run(
                DaemonProcess.splashctlPath, ["status"], environment: env.merging(["LANG": "pt_BR.UTF-8", "LC_ALL": "C"]) { $1 })
            #expect(overridden.stdout.contains("signed out"), "\(overridden.stdout)")

            // --json is never translated (the help is: HelpTextTests).
            let json = try await run(DaemonProcess.splashctlPath, ["--json", "status"], environment: env.merging(["LANG": "pt_BR.UTF-8"]) { $1 })
            #expect(json.status == 0)
            let status = try JSONCoding.decoder().decode(DaemonStatus.self, from: Data(json.stdout.utf8))
            #expect(status.pid == daemon.pid)
            #expect(!json.stdout.contains("sessão"))

            // A ValidationError of splashctl's own is translated too.
            let usage = try await run(
                DaemonProcess.splashctlPath, ["photos", "list", "--sort", "sideways"], environment: env.merging(["LANG": "pt_BR.UTF-8"]) { $1 })
            #expect(usage.status == 64)
            #expect(usage.stderr.contains("--sort deve ser um destes"), "\(usage.stderr)")
        }
    }
}
