import Shared
import Testing

@Suite struct FilterCatalogTests {
    @Test func parsesTheCommandLineForm() throws {
        #expect(try FilterStep(parsing: "sepia:0.8") == FilterStep(filter: "sepia", params: [0.8]))
        #expect(try FilterStep(parsing: "Vignette:1.0, 0.6") == FilterStep(filter: "vignette", params: [1.0, 0.6]))
        #expect(try FilterStep(parsing: "mono") == FilterStep(filter: "mono", params: []))
        #expect(FilterStep(filter: "vignette", params: [1, 0.6]).description == "vignette:1,0.6")
        for bad in ["", ":1", "sepia:", "sepia:abc", "sepia:1,,2", "blur:nan", "blur:inf"] {
            #expect(throws: RPCError.self, "\(bad)") { try FilterStep(parsing: bad) }
        }
    }

    @Test func fillsDefaultsAndChecksRanges() throws {
        let resolved = try FilterCatalog.resolve([FilterStep(filter: "vignette", params: [0.5]), FilterStep(filter: "mono")])
        #expect(resolved == [FilterStep(filter: "vignette", params: [0.5, 1]), FilterStep(filter: "mono", params: [])])

        func refusal(_ steps: [FilterStep]) -> RPCError? {
            do {
                _ = try FilterCatalog.resolve(steps)
                return nil
            } catch {
                return error
            }
        }
        let unknown = refusal([FilterStep(filter: "mono"), FilterStep(filter: "posterize")])
        #expect(unknown?.kind == .invalidInput && unknown?.data?.field == "filters[1]")
        #expect(unknown?.message.contains("unknown filter 'posterize'") == true)
        let range = refusal([FilterStep(filter: "sepia", params: [1.5])])
        #expect(range?.message == "sepia intensity must be between 0 and 1, not 1.5")
        #expect(refusal([FilterStep(filter: "mono", params: [1])])?.message.contains("takes 0 parameter(s)") == true)
        #expect(refusal([FilterStep(filter: "blur", params: [-1])]) != nil)
        #expect(refusal([FilterStep(filter: "blur", params: [.nan])]) != nil)
        #expect(refusal([]) != nil)
        #expect(refusal(Array(repeating: FilterStep(filter: "mono"), count: 33)) != nil)
    }

    @Test func everyDefaultIsInsideItsRange() {
        for definition in FilterCatalog.all {
            for parameter in definition.parameters {
                #expect(parameter.minimum <= parameter.defaultValue && parameter.defaultValue <= parameter.maximum, "\(definition.name).\(parameter.name)")
            }
        }
        #expect(Set(FilterCatalog.all.map(\.name)).count == FilterCatalog.all.count)
    }
}
