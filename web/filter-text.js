// The filter catalogue's descriptions in Brazilian Portuguese, as splashctl says them
// (Sources/CLIText/FilterText.swift, whose words these are). `filters.list` sends the catalogue in
// English; a filter's and a parameter's name are identifiers (what splashctl's --filter takes) and stay.
// A filter this page does not know (a newer daemon's) keeps the daemon's English.
// integration/gallery/test_words.py compares this table with filter-text-pt-BR.json, which a Swift test
// writes from FilterText.
import { language } from "/i18n.js";

export const portuguese = {
  blur: { summary: "Desfoque gaussiano.", parameters: { radius: "Desvio padrão, em pixels da imagem em tamanho real." } },
  chrome: { summary: "Cores vivas com um pouco mais de contraste.", parameters: {} },
  color: { summary: "Controles de cor.", parameters: { brightness: "Somado a cada canal, como fração do branco.", contrast: "Em torno do cinza médio; 1 mantém.", saturation: "0 é cinza, 1 mantém, 2 dobra." } },
  exposure: { summary: "Ajuste de exposição em stops, como numa câmera.", parameters: { ev: "Stops: +1 dobra a luz, -1 reduz à metade." } },
  fade: { summary: "Cores desbotadas com os pretos clareados.", parameters: {} },
  instant: { summary: "Um visual quente e um pouco desbotado de filme instantâneo.", parameters: {} },
  invert: { summary: "Negativo: cada canal invertido.", parameters: {} },
  mono: { summary: "Preto e branco com a gama tonal do original.", parameters: {} },
  noir: { summary: "Preto e branco com contraste forte.", parameters: {} },
  pixellate: { summary: "Blocos quadrados da cor média.", parameters: { scale: "Tamanho do bloco, em pixels da imagem em tamanho real." } },
  process: { summary: "Sombras frias e contraste mais firme, como filme de processo cruzado.", parameters: {} },
  sepia: { summary: "Tons marrons quentes, misturados ao original conforme a intensidade.", parameters: { intensity: "0 mantém o original, 1 é sépia total." } },
  sharpen: { summary: "Máscara de nitidez.", parameters: { amount: "Quanto do detalhe é devolvido; 0 mantém." } },
  tonal: { summary: "Preto e branco com contraste suave.", parameters: {} },
  transfer: { summary: "Cores vintage quentes e saturadas.", parameters: {} },
  vignette: { summary: "Escurece (ou, com intensidade negativa, clareia) em direção aos cantos.", parameters: { intensity: "O quanto os cantos escurecem.", radius: "Onde a queda começa, como fração do caminho até os cantos × 2." } },
};

/// What `filter` does, in the page's language.
export function filterSummary(filter) {
  return (language === "pt-BR" && portuguese[filter.name]?.summary) || filter.summary;
}

/// What `parameter` of `filter` sets, in the page's language.
export function parameterSummary(filter, parameter) {
  return (language === "pt-BR" && portuguese[filter.name]?.parameters[parameter.name]) || parameter.summary;
}
