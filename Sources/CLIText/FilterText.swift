import Shared

/// The filter catalogue's descriptions in splashctl's language. The catalogue (`FilterCatalog`) is
/// English data the daemon sends as it is; a filter's and a parameter's name are its identifiers (what
/// `--filter sepia:0.8` and the page's sliders name) and stay as they are. web/filter-text.js holds the
/// same Portuguese, kept equal by a golden file (integration/gallery/filter-text-pt-BR.json).
public enum FilterText {
    /// What `filter` does, in `language`; a filter this splashctl does not know (a newer daemon's) in
    /// the daemon's English.
    public static func summary(of filter: FilterDefinition, _ language: Language = .current) -> String {
        guard language == .brazilianPortuguese, let words = portuguese[filter.name] else { return filter.summary }
        return words.summary
    }

    /// What `parameter` of `filter` sets, in `language`.
    public static func summary(of parameter: FilterParameter, in filter: FilterDefinition, _ language: Language = .current) -> String {
        guard language == .brazilianPortuguese, let words = portuguese[filter.name]?.parameters[parameter.name] else {
            return parameter.summary
        }
        return words
    }

    public struct Words: Sendable, Equatable {
        public var summary: String
        public var parameters: [String: String]
    }

    public static let portuguese: [String: Words] = [
        "sepia": Words(summary: "Tons marrons quentes, misturados ao original conforme a intensidade.", parameters: [
            "intensity": "0 mantém o original, 1 é sépia total."]),
        "mono": Words(summary: "Preto e branco com a gama tonal do original.", parameters: [:]),
        "noir": Words(summary: "Preto e branco com contraste forte.", parameters: [:]),
        "chrome": Words(summary: "Cores vivas com um pouco mais de contraste.", parameters: [:]),
        "fade": Words(summary: "Cores desbotadas com os pretos clareados.", parameters: [:]),
        "instant": Words(summary: "Um visual quente e um pouco desbotado de filme instantâneo.", parameters: [:]),
        "process": Words(summary: "Sombras frias e contraste mais firme, como filme de processo cruzado.", parameters: [:]),
        "tonal": Words(summary: "Preto e branco com contraste suave.", parameters: [:]),
        "transfer": Words(summary: "Cores vintage quentes e saturadas.", parameters: [:]),
        "invert": Words(summary: "Negativo: cada canal invertido.", parameters: [:]),
        "color": Words(summary: "Controles de cor.", parameters: [
            "brightness": "Somado a cada canal, como fração do branco.",
            "contrast": "Em torno do cinza médio; 1 mantém.",
            "saturation": "0 é cinza, 1 mantém, 2 dobra."]),
        "exposure": Words(summary: "Ajuste de exposição em stops, como numa câmera.", parameters: [
            "ev": "Stops: +1 dobra a luz, -1 reduz à metade."]),
        "blur": Words(summary: "Desfoque gaussiano.", parameters: [
            "radius": "Desvio padrão, em pixels da imagem em tamanho real."]),
        "sharpen": Words(summary: "Máscara de nitidez.", parameters: [
            "amount": "Quanto do detalhe é devolvido; 0 mantém."]),
        "vignette": Words(summary: "Escurece (ou, com intensidade negativa, clareia) em direção aos cantos.", parameters: [
            "intensity": "O quanto os cantos escurecem.",
            "radius": "Onde a queda começa, como fração do caminho até os cantos × 2."]),
        "pixellate": Words(summary: "Blocos quadrados da cor média.", parameters: [
            "scale": "Tamanho do bloco, em pixels da imagem em tamanho real."]),
    ]
}
