// The page's words in English and Brazilian Portuguese, chosen after the browser's languages.
// Markup names a string with data-i18n (text), data-i18n-label (aria-label) or
// data-i18n-placeholder; code asks t(key, values).
const strings = {
  en: {
    "nav.library": "Library", "nav.triage": "Triage", "nav.label": "Screens",
    "library.title": "Library", "filters.label": "Filters",
    "filter.view": "Show", "view.liked": "My Collection", "view.all": "All photos", "view.edited": "Edited",
    "view.dismissed": "Dismissed",
    "filter.source": "Source", "source.any": "Any source", "source.unsplash": "Unsplash", "source.nasa": "NASA",
    "source.local": "Folders",
    "filter.color": "Colour", "color.any": "Any colour", "color.black_and_white": "Black and white", "color.black": "Black",
    "color.white": "White", "color.yellow": "Yellow", "color.orange": "Orange", "color.red": "Red",
    "color.purple": "Purple", "color.magenta": "Magenta", "color.green": "Green", "color.teal": "Teal", "color.blue": "Blue",
    "filter.sort": "Sort", "sort.default": "Newest first", "sort.-liked": "Liked, newest first", "sort.liked": "Liked, oldest first",
    "sort.-fetched": "Added, newest first", "sort.fetched": "Added, oldest first",
    "sort.-created": "Taken, newest first", "sort.created": "Taken, oldest first",
    "filter.text": "Words", "filter.textPlaceholder": "Title, tags, author…",
    "count.one": "1 photo", "count.other": "{n} photos", "count.none": "No photos here yet.",
    "status.connecting": "Connecting…",
    "status.notAnswering": "splashd is not answering; trying again…",
    "status.ended": "This browser's session has ended: run splashctl open to come back.",
    "account.signed_in": "signed in", "account.signed_out": "signed out", "account.signed_in_offline": "signed in (not confirmed yet)",
    "connectivity.online": "online", "connectivity.offline": "offline", "connectivity.unknown": "checking the network",
    "connectivity.degraded": "some services do not answer",
    "detail.close": "Close", "detail.like": "Like", "detail.unlike": "Unlike", "detail.dismiss": "Dismiss",
    "detail.restore": "Bring back", "detail.by": "by {author}", "detail.source": "See it on {site}",
    "detail.size": "Size", "detail.taken": "Taken", "detail.added": "Added", "detail.liked": "Liked",
    "detail.camera": "Camera", "detail.exposure": "Exposure", "detail.place": "Place", "detail.tags": "Tags",
    "detail.renditions": "Renditions", "detail.files": "On this machine", "detail.noFiles": "No file here yet.",
    "detail.chart": "The last 30 days", "detail.views": "Views", "detail.downloads": "Downloads",
    "detail.total": "{total} in all, {change} in these 30 days", "detail.noStats": "No statistics: {reason}",
    "detail.missing": "This photo is not in the library.",
    "triage.title": "Triage", "triage.help": "→ favourite · ← dismiss · Backspace undo",
    "triage.favourite": "Favourite", "triage.dismiss": "Dismiss", "triage.undo": "Undo",
    "triage.empty": "Nothing left to sort: every photo here is liked or dismissed. Search or ask for random photos with splashctl.",
    "triage.liked": "Liked {title}.", "triage.dismissed": "Dismissed {title}.", "triage.undone": "Undone: {title} is back.",
    "triage.duplicate": "Not liked: it looks like {twin}, already in the library.",
    "triage.left": "{n} to sort",
    "untitled": "Untitled",
  },
  "pt-BR": {
    "nav.library": "Biblioteca", "nav.triage": "Triagem", "nav.label": "Telas",
    "library.title": "Biblioteca", "filters.label": "Filtros",
    "filter.view": "Mostrar", "view.liked": "Minha coleção", "view.all": "Todas as fotos", "view.edited": "Editadas",
    "view.dismissed": "Descartadas",
    "filter.source": "Origem", "source.any": "Qualquer origem", "source.unsplash": "Unsplash", "source.nasa": "NASA",
    "source.local": "Pastas",
    "filter.color": "Cor", "color.any": "Qualquer cor", "color.black_and_white": "Preto e branco", "color.black": "Preto",
    "color.white": "Branco", "color.yellow": "Amarelo", "color.orange": "Laranja", "color.red": "Vermelho",
    "color.purple": "Roxo", "color.magenta": "Magenta", "color.green": "Verde", "color.teal": "Verde-azulado",
    "color.blue": "Azul",
    "filter.sort": "Ordem", "sort.default": "Mais novas primeiro", "sort.-liked": "Curtidas, mais novas primeiro", "sort.liked": "Curtidas, mais antigas primeiro",
    "sort.-fetched": "Adicionadas, mais novas primeiro", "sort.fetched": "Adicionadas, mais antigas primeiro",
    "sort.-created": "Tiradas, mais novas primeiro", "sort.created": "Tiradas, mais antigas primeiro",
    "filter.text": "Palavras", "filter.textPlaceholder": "Título, tags, autor…",
    "count.one": "1 foto", "count.other": "{n} fotos", "count.none": "Nenhuma foto aqui ainda.",
    "status.connecting": "Conectando…",
    "status.notAnswering": "O splashd não está respondendo; tentando de novo…",
    "status.ended": "A sessão deste navegador terminou: rode splashctl open para voltar.",
    "account.signed_in": "conectado", "account.signed_out": "desconectado", "account.signed_in_offline": "conectado (ainda não confirmado)",
    "connectivity.online": "online", "connectivity.offline": "offline", "connectivity.unknown": "verificando a rede",
    "connectivity.degraded": "alguns serviços não respondem",
    "detail.close": "Fechar", "detail.like": "Curtir", "detail.unlike": "Descurtir", "detail.dismiss": "Descartar",
    "detail.restore": "Trazer de volta", "detail.by": "por {author}", "detail.source": "Ver no {site}",
    "detail.size": "Tamanho", "detail.taken": "Tirada em", "detail.added": "Adicionada em", "detail.liked": "Curtida em",
    "detail.camera": "Câmera", "detail.exposure": "Exposição", "detail.place": "Lugar", "detail.tags": "Tags",
    "detail.renditions": "Versões", "detail.files": "Neste computador", "detail.noFiles": "Nenhum arquivo aqui ainda.",
    "detail.chart": "Os últimos 30 dias", "detail.views": "Visualizações", "detail.downloads": "Downloads",
    "detail.total": "{total} no total, {change} nestes 30 dias", "detail.noStats": "Sem estatísticas: {reason}",
    "detail.missing": "Esta foto não está na biblioteca.",
    "triage.title": "Triagem", "triage.help": "→ favoritar · ← descartar · Backspace desfazer",
    "triage.favourite": "Favoritar", "triage.dismiss": "Descartar", "triage.undo": "Desfazer",
    "triage.empty": "Nada mais para separar: todas as fotos aqui foram curtidas ou descartadas. Busque ou peça fotos aleatórias com o splashctl.",
    "triage.liked": "{title} curtida.", "triage.dismissed": "{title} descartada.", "triage.undone": "Desfeito: {title} voltou.",
    "triage.duplicate": "Não curtida: parece com {twin}, que já está na biblioteca.",
    "triage.left": "{n} para separar",
    "untitled": "Sem título",
  },
};

/// The first of the browser's languages the page has, Portuguese of any country as Brazil's.
export const language = (() => {
  for (const wanted of navigator.languages ?? [navigator.language]) {
    if (wanted.toLowerCase().startsWith("pt")) return "pt-BR";
    if (wanted.toLowerCase().startsWith("en")) return "en";
  }
  return "en";
})();

export function t(key, values = {}) {
  const text = strings[language][key] ?? strings.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

export const numbers = new Intl.NumberFormat(language);
export const dates = new Intl.DateTimeFormat(language, { dateStyle: "medium" });

/// Puts the words into the markup under `root`.
export function translate(root = document) {
  document.documentElement.lang = language;
  for (const element of root.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
  for (const element of root.querySelectorAll("[data-i18n-label]")) element.setAttribute("aria-label", t(element.dataset.i18nLabel));
  for (const element of root.querySelectorAll("[data-i18n-placeholder]")) element.placeholder = t(element.dataset.i18nPlaceholder);
}
