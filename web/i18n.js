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
    "library.start": "Nothing in your collection yet. Photos to like are in {search} (Unsplash and NASA), one at a time in {triage}, or in a folder of yours watched from {status}.",
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
    "nav.search": "Search", "nav.account": "Account", "nav.status": "Status",
    "search.title": "Search", "search.query": "Words", "search.source": "Source", "search.orientation": "Orientation",
    "orientation.any": "Any shape", "orientation.landscape": "Landscape", "orientation.portrait": "Portrait",
    "orientation.squarish": "Square", "search.order": "Order", "order.relevant": "Most relevant", "order.latest": "Latest",
    "search.yearFrom": "From year", "search.yearTo": "To year", "search.submit": "Search", "search.random": "Random photos",
    "search.history": "Last searches", "search.topics": "Topics", "search.more": "More",
    "search.stale": "from this machine, searched {when}", "search.refreshing": "asking the source again", "search.likeAnyway": "Like it anyway",
    "search.duplicate": "Not liked: it looks like this photo, already in the library:",
    "editor.title": "Edit", "editor.original": "Original", "editor.preview": "Preview", "editor.save": "Save the edit",
    "editor.reset": "Start again", "editor.edits": "Edits of this photo", "editor.none": "No edits yet.",
    "editor.remove": "Remove", "editor.saved": "Saved: it goes to the account when it can.", "detail.edit": "Edit",
    "editState.pending": "waiting to be sent", "editState.synced": "in the account", "editState.rejected": "refused by the server",
    "editState.guest": "kept here (no account)",
    "account.title": "Account", "account.signIn": "Sign in", "account.signUp": "Sign up", "account.email": "E-mail",
    "account.password": "Password", "account.username": "Username", "account.with.google": "Sign in with Google",
    "account.with.github": "Sign in with GitHub", "account.waitingForProvider": "Waiting for the sign-in in the other tab…",
    "account.guest": "You are using splashd without an account: your likes and edits stay on this machine.",
    "account.guestKept": "Made here without an account: likes {likes}, edits {edits}.",
    "account.adopt": "Bring what was made here into the account (likes {likes}, edits {edits})",
    "account.adoptNow": "Bring them into this account", "account.rename": "Change username",
    "account.memberSince": "Member since", "account.profileState": "Profile", "account.sync.synced": "in step with the server",
    "account.sync.pending": "change waiting to be sent", "account.sync.rejected": "change refused by the server",
    "account.stale": "may be out of date", "account.noUsername": "No username",
    "account.users": "Users", "account.userCount": "{n} users have signed up", "account.signOut": "Sign out",
    "account.signOutEndsGallery": "Signing out also closes this gallery: splashctl open brings it back.",
    "account.updated": "Updated! The server has {username}.", "account.unchanged": "{username} is already your username.",
    "account.refused": "Refused: {reason}", "account.queued": "Not sent yet: it goes when the server can be reached.",
    "status.title": "Status", "status.services": "Services", "status.network": "Network", "status.live": "Live changes",
    "status.account": "Account", "status.library": "Library", "status.libraryCounts": "{photos} photos, {liked} liked, {edited} edited",
    "status.version": "Daemon", "status.since": "since {when}", "status.outbox": "Outbox: {pending} waiting, {rejected} refused",
    "status.outboxEmpty": "Nothing waiting to be sent.", "status.retry": "Retry", "status.drop": "Drop",
    "status.cache": "Files and cache", "status.libraryFiles": "Library", "status.cacheFiles": "Cache", "status.memory": "In memory",
    "status.downloads": "Downloads", "status.downloadCounts": "{downloading} downloading, {waiting} waiting",
    "status.folders": "Watched folders", "status.folderPath": "Folder", "status.recursive": "with its subfolders",
    "status.watch": "keep watching it", "status.import": "Import", "status.unwatch": "Stop watching",
    "status.googleOff": "Not set up on this machine.", "status.googleConnect": "Not connected: splashctl google connect connects it.",
    "status.googlePick": "Pick photos from Google Photos", "status.googleOpen": "Open Google Photos' picker",
    "status.imageProgress": "{photo}: {change} · {downloading} downloading, {waiting} waiting",
    "status.importProgress": "Importing {root}: {done} of {total}",
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
    "library.start": "Nada na sua coleção ainda. Há fotos para curtir na {search} (Unsplash e NASA), uma de cada vez na {triage}, ou numa pasta sua vigiada em {status}.",
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
    "nav.search": "Busca", "nav.account": "Conta", "nav.status": "Estado",
    "search.title": "Busca", "search.query": "Palavras", "search.source": "Origem", "search.orientation": "Orientação",
    "orientation.any": "Qualquer formato", "orientation.landscape": "Paisagem", "orientation.portrait": "Retrato",
    "orientation.squarish": "Quadrada", "search.order": "Ordem", "order.relevant": "Mais relevantes", "order.latest": "Mais recentes",
    "search.yearFrom": "Do ano", "search.yearTo": "Até o ano", "search.submit": "Buscar", "search.random": "Fotos aleatórias",
    "search.history": "Últimas buscas", "search.topics": "Temas", "search.more": "Mais",
    "search.stale": "deste computador, buscado em {when}", "search.refreshing": "perguntando de novo à origem", "search.likeAnyway": "Curtir mesmo assim",
    "search.duplicate": "Não curtida: parece com esta foto, que já está na biblioteca:",
    "editor.title": "Editar", "editor.original": "Original", "editor.preview": "Prévia", "editor.save": "Salvar a edição",
    "editor.reset": "Recomeçar", "editor.edits": "Edições desta foto", "editor.none": "Nenhuma edição ainda.",
    "editor.remove": "Remover", "editor.saved": "Salva: vai para a conta quando puder.", "detail.edit": "Editar",
    "editState.pending": "esperando para ser enviada", "editState.synced": "na conta", "editState.rejected": "recusada pelo servidor",
    "editState.guest": "guardada aqui (sem conta)",
    "account.title": "Conta", "account.signIn": "Entrar", "account.signUp": "Criar conta", "account.email": "E-mail",
    "account.password": "Senha", "account.username": "Nome de usuário", "account.with.google": "Entrar com o Google",
    "account.with.github": "Entrar com o GitHub", "account.waitingForProvider": "Esperando a entrada na outra aba…",
    "account.guest": "Você está usando o splashd sem conta: suas curtidas e edições ficam neste computador.",
    "account.guestKept": "Feito aqui sem conta: curtidas {likes}, edições {edits}.",
    "account.adopt": "Trazer para a conta o que foi feito aqui (curtidas {likes}, edições {edits})",
    "account.adoptNow": "Trazer para esta conta", "account.rename": "Mudar o nome de usuário",
    "account.memberSince": "Membro desde", "account.profileState": "Perfil", "account.sync.synced": "em dia com o servidor",
    "account.sync.pending": "mudança esperando para ser enviada", "account.sync.rejected": "mudança recusada pelo servidor",
    "account.stale": "pode estar desatualizado", "account.noUsername": "Sem nome de usuário",
    "account.users": "Usuários", "account.userCount": "{n} usuários se cadastraram", "account.signOut": "Sair",
    "account.signOutEndsGallery": "Sair também fecha esta galeria: splashctl open a traz de volta.",
    "account.updated": "Atualizado! O servidor tem {username}.", "account.unchanged": "{username} já é o seu nome de usuário.",
    "account.refused": "Recusado: {reason}", "account.queued": "Ainda não enviado: vai quando o servidor responder.",
    "status.title": "Estado", "status.services": "Serviços", "status.network": "Rede", "status.live": "Mudanças ao vivo",
    "status.account": "Conta", "status.library": "Biblioteca", "status.libraryCounts": "{photos} fotos, {liked} curtidas, {edited} editadas",
    "status.version": "Daemon", "status.since": "desde {when}", "status.outbox": "Saída: {pending} esperando, {rejected} recusadas",
    "status.outboxEmpty": "Nada esperando para ser enviado.", "status.retry": "Tentar de novo", "status.drop": "Descartar",
    "status.cache": "Arquivos e cache", "status.libraryFiles": "Biblioteca", "status.cacheFiles": "Cache", "status.memory": "Na memória",
    "status.downloads": "Downloads", "status.downloadCounts": "{downloading} baixando, {waiting} esperando",
    "status.folders": "Pastas observadas", "status.folderPath": "Pasta", "status.recursive": "com as subpastas",
    "status.watch": "continuar observando", "status.import": "Importar", "status.unwatch": "Parar de observar",
    "status.googleOff": "Não configurado neste computador.", "status.googleConnect": "Não conectado: splashctl google connect conecta.",
    "status.googlePick": "Escolher fotos do Google Photos", "status.googleOpen": "Abrir o seletor do Google Photos",
    "status.imageProgress": "{photo}: {change} · {downloading} baixando, {waiting} esperando",
    "status.importProgress": "Importando {root}: {done} de {total}",
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

/// `key`'s words with elements (links) in place of its `{name}`s: a list to append.
export function tElements(key, elements) {
  const text = strings[language][key] ?? strings.en[key] ?? key;
  return text.split(/\{(\w+)\}/).map((part, index) => (index % 2 ? elements[part] ?? "" : part));
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
