/// Every filter splashd can apply, with its parameters, their ranges and defaults. The names follow
/// SplashEdit's Core Image filters; docs/editing.md says what each one does to the pixels.
///
/// Pure data: the daemon validates pipelines against it, splashctl lists it (`splashctl filters`)
/// and parses `--filter name:p1,p2` with it, so both sides agree on what a filter takes.
public enum FilterCatalog {
    public static let all: [FilterDefinition] = [
        FilterDefinition("sepia", "Warm brown tones, blended with the original by intensity.", [
            FilterParameter("intensity", 0, 1, default: 1, "0 keeps the original, 1 is full sepia.")]),
        FilterDefinition("mono", "Black and white with the original's tonal range.", []),
        FilterDefinition("noir", "Black and white with strong contrast.", []),
        FilterDefinition("chrome", "Vivid colour with a little more contrast.", []),
        FilterDefinition("fade", "Washed-out colour with lifted blacks.", []),
        FilterDefinition("instant", "A warm, slightly faded instant-film look.", []),
        FilterDefinition("process", "Cool shadows and firmer contrast, like cross-processed film.", []),
        FilterDefinition("tonal", "Black and white with soft contrast.", []),
        FilterDefinition("transfer", "Warm, saturated vintage colour.", []),
        FilterDefinition("invert", "Negative: every channel inverted.", []),
        FilterDefinition("color", "Colour controls.", [
            FilterParameter("brightness", -1, 1, default: 0, "Added to every channel, as a fraction of white."),
            FilterParameter("contrast", 0, 4, default: 1, "Around mid-grey; 1 leaves it."),
            FilterParameter("saturation", 0, 2, default: 1, "0 is grey, 1 leaves it, 2 doubles it."),
        ]),
        FilterDefinition("exposure", "Exposure adjustment in stops, as a camera would.", [
            FilterParameter("ev", -4, 4, default: 0.5, "Stops: +1 doubles the light, -1 halves it.")]),
        FilterDefinition("blur", "Gaussian blur.", [
            FilterParameter("radius", 0, 100, default: 10, "Standard deviation in pixels of the full-size image.")]),
        FilterDefinition("sharpen", "Unsharp mask.", [
            FilterParameter("amount", 0, 2, default: 0.4, "How much of the detail is added back; 0 leaves it.")]),
        FilterDefinition("vignette", "Darkens (or, with a negative intensity, lightens) towards the corners.", [
            FilterParameter("intensity", -1, 1, default: 1, "How dark the corners get."),
            FilterParameter("radius", 0, 2, default: 1, "Where the falloff starts, as a fraction of the way to the corners × 2."),
        ]),
        FilterDefinition("pixellate", "Square blocks of the average colour.", [
            FilterParameter("scale", 1, 200, default: 8, "Block size in pixels of the full-size image.")]),
    ]

    /// The longest pipeline an edit may have.
    public static let maxSteps = 32

    public static func definition(named name: String) -> FilterDefinition? {
        all.first { $0.name == name }
    }

    /// Checks a pipeline and fills in defaults for the parameters left out, so a stored edit always
    /// says exactly what was applied. `field` names the offending step (`filters[2]`).
    public static func resolve(_ steps: [FilterStep]) throws(RPCError) -> [FilterStep] {
        guard !steps.isEmpty else { throw .invalidInput(.noFilters, field: "filters") }
        guard steps.count <= maxSteps else {
            throw .invalidInput(.tooManyFilters(maximum: maxSteps, given: steps.count), field: "filters")
        }
        var resolved: [FilterStep] = []
        for (index, step) in steps.enumerated() {
            let field = "filters[\(index)]"
            guard let definition = definition(named: step.filter) else {
                throw .invalidInput(.unknownFilter(filter: String(step.filter.prefix(40)), known: all.map(\.name)), field: field)
            }
            let params = step.params ?? []
            guard params.count <= definition.parameters.count else {
                throw .invalidInput(
                    .filterParameterCount(
                        filter: definition.name, expected: definition.parameters.count, parameters: definition.parameters.map(\.name),
                        given: params.count),
                    field: field)
            }
            var full: [Double] = []
            for (position, parameter) in definition.parameters.enumerated() {
                let value = position < params.count ? params[position] : parameter.defaultValue
                guard value.isFinite, value >= parameter.minimum, value <= parameter.maximum else {
                    throw .invalidInput(
                        .filterParameterOutOfRange(
                            filter: definition.name, parameter: parameter.name, minimum: parameter.minimum, maximum: parameter.maximum,
                            given: value),
                        field: field)
                }
                full.append(value)
            }
            resolved.append(FilterStep(filter: definition.name, params: full))
        }
        return resolved
    }

    /// A parameter as written on the command line (`sepia:0.8`), in every language: whole numbers
    /// without ".0".
    public static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// One filter of the catalogue.
public struct FilterDefinition: Codable, Sendable, Equatable {
    public var name: String
    public var summary: String
    public var parameters: [FilterParameter]

    public init(_ name: String, _ summary: String, _ parameters: [FilterParameter]) {
        self.name = name
        self.summary = summary
        self.parameters = parameters
    }
}

/// One parameter of a filter: its range and the value used when it is left out.
public struct FilterParameter: Codable, Sendable, Equatable {
    public var name: String
    public var minimum: Double
    public var maximum: Double
    public var defaultValue: Double
    public var summary: String

    public init(_ name: String, _ minimum: Double, _ maximum: Double, default defaultValue: Double, _ summary: String) {
        self.name = name
        self.minimum = minimum
        self.maximum = maximum
        self.defaultValue = defaultValue
        self.summary = summary
    }

    enum CodingKeys: String, CodingKey {
        case name, minimum, maximum, defaultValue = "default", summary
    }
}
