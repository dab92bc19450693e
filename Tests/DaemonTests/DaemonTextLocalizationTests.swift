import CLIText
import Foundation
import Shared
import Testing

/// The daemon's error sentences in both languages splashctl speaks: every sentence has an example,
/// each reads in English and in Portuguese with its values, and splashctl shows the Portuguese under
/// pt_BR (the English `message` when the daemon sent no sentence it knows).
@Suite struct DaemonTextLocalizationTests {
    /// The case names declared in `DaemonText`, read from its source, so an example cannot be forgotten.
    static func declaredCases() throws -> Set<String> {
        try DeclaredCases.names(of: "DaemonText", in: "Sources/Shared/JSONRPC/DaemonText.swift")
    }

    static func caseName(_ text: DaemonText) -> String { DeclaredCases.name(of: text) }

    /// The values of a sentence that must show in every language: its strings and whole numbers.
    static func placeholders(_ text: DaemonText) -> [String] {
        func collect(_ value: Any) -> [String] {
            switch value {
            case let text as String: [text]
            case let number as Int: [String(number)]
            default: Mirror(reflecting: value).children.flatMap { collect($0.value) }
            }
        }
        return Mirror(reflecting: text).children.flatMap { collect($0.value) }
    }

    /// Sentences that show some values otherwise: reason codes as words, pixels as megapixels, a
    /// feed's kind or a capability's name as a Portuguese noun.
    static let valuesShownOtherwise: Set<String> = [
        "weakPassword", "imageTooLarge", "notFollowing", "capabilityMissing", "paramWrongType", "paramNull",
    ]

    @Test func everyCaseHasAnExample() throws {
        let declared = try Self.declaredCases()
        let examples = DaemonText.examples.map(Self.caseName)
        #expect(declared.count > 100, "read \(declared.count) cases from DaemonText.swift")
        #expect(Set(examples) == declared, "missing: \(declared.subtracting(examples).sorted()); unknown: \(Set(examples).subtracting(declared).sorted())")
        #expect(examples.count == Set(examples).count, "one example per case")
    }

    @Test(arguments: DaemonText.examples)
    func everySentenceIsTranslatedWithItsValues(text: DaemonText) {
        let english = text.text(.english)
        let portuguese = text.text(.brazilianPortuguese)
        let name = Self.caseName(text)
        #expect(english == text.english)
        #expect(!english.trimmingCharacters(in: .whitespaces).isEmpty, "\(name): empty in English")
        #expect(!portuguese.trimmingCharacters(in: .whitespaces).isEmpty, "\(name): empty in Portuguese")
        #expect(english != portuguese, "\(name): not translated: \(english)")
        guard !Self.valuesShownOtherwise.contains(name) else { return }
        for value in Self.placeholders(text) {
            #expect(english.contains(value), "\(name): '\(value)' missing from the English: \(english)")
            #expect(portuguese.contains(value), "\(name): '\(value)' missing from the Portuguese: \(portuguese)")
        }
    }

    /// Sentences whose words change with their values (a count of one, an empty list, a value left out),
    /// each with the words it must read.
    static let branches: [(DaemonText, String)] = [
        (DaemonText.filterParameterCount(filter: "sepia", expected: 1, parameters: ["amount"], given: 2), "recebe 1 parâmetro (amount)"),
        (.filterParameterCount(filter: "vignette", expected: 2, parameters: ["strength", "radius"], given: 3), "recebe 2 parâmetros"),
        (.lineTooLong(limit: 1), "maior que 1 byte;"),
        (.weakPassword(reasons: ["length"], minimumLength: 6, message: ""), "tem menos de 6 caracteres"),
        (.mustBeOneOf(name: "order", choices: ["relevant", "latest"]), "order precisa ser relevant ou latest"),
        (.imageTooLarge(width: 1200, height: 1000, limitPixels: 1_000_000), "(1,2 MP), acima do limite de 1,0 MP"),
        (.notFollowing(kind: "topic", value: "wallpapers"), "você não segue o tópico 'wallpapers'"),
        (.notFollowing(kind: "search", value: "tram"), "você não segue a busca 'tram'"),
        (.capabilityMissing(capability: "image files"), "neste daemon: arquivos de imagem"),
        (.sourceRateLimited(why: .hourlyLimitUsedUp(service: "NASA"), minutes: 18),
         "o limite de pedidos por hora da NASA se esgotou; volta a ter espaço em até 18 min"),
        (.serviceFailed(service: "Unsplash", status: 502), "o Unsplash falhou (HTTP 502)"),
        (.paramWrongType(method: "photos.list", path: "limit", expected: "integer"), "photos.list: limit: esperava um inteiro"),
        (.serverEndedSession(code: "session_not_found", keptChanges: 1), "1 alteração na fila foi mantida"),
        (.serverEndedSession(code: "session_not_found", keptChanges: 0), "0 alterações na fila foram mantidas"),
        (.paramNull(method: "photos.list", path: "", expected: "object"), "a mensagem: esperava um objeto, veio null"),
        (.tooManyAttemptsServerSays(seconds: nil), "tentar de novo mais tarde"),
        (.tooManyAttemptsServerSays(seconds: 30), "tentar de novo em 30 s"),
        (.weakPassword(reasons: [], minimumLength: 6, message: "Password is too weak"), "fraca demais: Password is too weak"),
        (.sourceRateLimited(why: .hourlyLimitUsedUp(service: "Unsplash"), minutes: nil), "por hora do Unsplash se esgotou"),
        (.filterParameterCount(filter: "grayscale", expected: 0, parameters: [], given: 1), "grayscale recebe 0 parâmetros, não 1"),
        ]

    @Test(arguments: branches)
    func portugueseCountsAndNumbersReadRight(text: DaemonText, expected: String) {
        let portuguese = text.text(.brazilianPortuguese)
        #expect(portuguese.contains(expected), "\(portuguese)")
    }

    // MARK: What splashctl shows

    @Test func splashctlShowsTheSentenceInItsLanguage() {
        let error = RPCError(.notFound, .unknownPhoto(id: "unsplash:abc"), field: "id")
        #expect(error.text(.brazilianPortuguese) == "a foto unsplash:abc não está na biblioteca; busque-a ou abra-a antes")
        #expect(error.text(.english) == "no photo unsplash:abc in the library; search for it or open it first")
        #expect(error.text(Language.from(environment: ["LANG": "pt_BR.UTF-8"])) == error.text(.brazilianPortuguese))
    }

    /// An older daemon sends no sentence, a newer one may send one this splashctl does not know: both
    /// show the daemon's English.
    @Test func withoutAKnownSentenceSplashctlShowsTheMessage() throws {
        let older = RPCError(code: ErrorKind.notFound.code, message: "no photo x in the library", data: RPCError.Details(kind: .notFound))
        #expect(older.text(.brazilianPortuguese) == "no photo x in the library")
        let json = #"{"code":-32003,"message":"no album 7","data":{"kind":"not_found","text":{"unknown_album":{"album":7}}}}"#
        let newer = try JSONCoding.decoder().decode(RPCError.self, from: Data(json.utf8))
        #expect(newer.text(.brazilianPortuguese) == "no album 7")
    }

    /// The sentence a real daemon error carries, read off the wire, is shown in Portuguese.
    @Test func aSentenceFromTheWireIsShownInPortuguese() throws {
        let json = #"{"code":-32602,"message":"page must be 1 or more","data":{"field":"page","kind":"invalid_input","text":{"page_below_one":{}}}}"#
        let error = try JSONCoding.decoder().decode(RPCError.self, from: Data(json.utf8))
        #expect(error.text(.brazilianPortuguese) == "page precisa ser 1 ou mais")
    }

    /// The gallery's page renders `error.data.text` in Portuguese itself (web/daemon-text.js): every
    /// example's and branch's wire form beside CLIText's sentence, in the file the page's test
    /// (integration/gallery/test_words.py) holds it to. `UPDATE_GOLDEN=1 swift test` rewrites it.
    @Test func thePagesPortugueseSentencesAreSplashctls() throws {
        let encoder = JSONCoding.encoder()
        let pairs = try (DaemonText.examples + Self.branches.map(\.0)).map { text -> [String: Any] in
            ["text": try JSONSerialization.jsonObject(with: encoder.encode(text)), "portuguese": text.text(.brazilianPortuguese)]
        }
        try Self.expectGolden(pairs, "daemon-text-pt-BR.json", "CLIText's sentences", "web/daemon-text.js")
    }

    /// `value` as JSON against the page's golden file `name` in integration/gallery, or written there
    /// with `UPDATE_GOLDEN=1`.
    static func expectGolden(_ value: Any, _ name: String, _ source: String, _ page: String) throws {
        let written = try JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            + Data("\n".utf8)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let golden = root.appendingPathComponent("integration/gallery/" + name)
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try written.write(to: golden)
            return
        }
        #expect(String(decoding: written, as: UTF8.self) == (try String(contentsOf: golden, encoding: .utf8)),
                "\(name) differs from \(source); run UPDATE_GOLDEN=1 swift test, then make \(page) agree")
    }
    /// Every filter of the catalogue, and every parameter of each, has its words in Portuguese, and
    /// none is for a filter or parameter the catalogue does not have.
    @Test func everyFilterAndParameterHasItsPortuguese() {
        #expect(Set(FilterText.portuguese.keys) == Set(FilterCatalog.all.map(\.name)))
        for filter in FilterCatalog.all {
            #expect(Set(FilterText.portuguese[filter.name]?.parameters.keys ?? [:].keys) == Set(filter.parameters.map(\.name)), "\(filter.name)")
            #expect(FilterText.summary(of: filter, .brazilianPortuguese) != filter.summary, "\(filter.name)")
            #expect(FilterText.summary(of: filter, .english) == filter.summary)
        }
        let newer = FilterDefinition("posterize", "Fewer levels per channel.", [FilterParameter("levels", 2, 32, default: 4, "Levels.")])
        #expect(FilterText.summary(of: newer, .brazilianPortuguese) == "Fewer levels per channel.", "a newer daemon's filter in its English")
        #expect(FilterText.summary(of: newer.parameters[0], in: newer, .brazilianPortuguese) == "Levels.")
    }

    /// The page describes the filters in Portuguese itself (web/filter-text.js) with splashctl's words:
    /// the file the page's test (integration/gallery/test_words.py) holds it to. `UPDATE_GOLDEN=1 swift
    /// test` rewrites it.
    @Test func thePagesFilterWordsAreSplashctls() throws {
        let table = FilterText.portuguese.mapValues { ["summary": $0.summary, "parameters": $0.parameters] as [String: Any] }
        try Self.expectGolden(table, "filter-text-pt-BR.json", "CLIText's FilterText", "web/filter-text.js")
    }
}
