// The daemon's error sentences in Brazilian Portuguese, rendered from `error.data.text` as splashctl
// renders them (Sources/CLIText/DaemonText+BrazilianPortuguese.swift, whose words these are): the daemon
// sends each sentence as data, `{"name": {parts}}`, and its English in `error.message`. Parts named
// `detail`, `reason` or `message` are words from outside splashd and stay as they came. A sentence this
// page does not know (a newer daemon's) gives null, and the page shows the English.
// integration/gallery/test_words.py renders every DaemonText example here and compares each with
// CLIText's (daemon-text-pt-BR.json, written by a Swift test from the Swift catalogue).

/// `text`'s sentence in Portuguese; null when some part of it is not known here.
export function portuguese(text) {
  try {
    return render(text);
  } catch {
    return null;
  }
}

function render(text) {
  const [name] = Object.keys(text ?? {});
  const sentence = sentences[name];
  if (!sentence) throw new Error(`no sentence ${name}`);
  return sentence(text[name] ?? {});
}

const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;
const list = (items, or) => (items.length > 1 ? `${items.slice(0, -1).join(", ")} ${or} ${items[items.length - 1]}` : items[0] ?? "");
const the = (service) => (service === "NASA" ? "a " : "o ") + service;
const of = (service) => (service === "NASA" ? "da " : "do ") + service;
const jsonTypes = { boolean: "um booleano", integer: "um inteiro", number: "um número", string: "uma string", array: "uma lista", object: "um objeto" };
const jsonType = (name) => jsonTypes[name] ?? name;
const feedKinds = { topic: "o tópico", search: "a busca" };
const feedKind = (kind) => feedKinds[kind] ?? kind;
const capabilities = { editing: "edição", importing: "importação", "image files": "arquivos de imagem", accounts: "contas" };
const capabilityName = (name) => capabilities[name] ?? name;
const decimalComma = (number) => number.replaceAll(".", ",");
/// A number as Swift's String(Double) writes it: "1.5", "2.0".
const swiftDouble = (value) => (Number.isInteger(value) ? value.toFixed(1) : String(value));
/// Megapixels as the image limit is configured: whole from 10, one decimal below.
const megapixels = (pixels) => {
  const value = pixels / 1_000_000;
  return value >= 10 ? String(Math.round(value)) : swiftDouble(Math.round(value * 10) / 10);
};
/// A filter's number as the catalogue writes it ("2", "0.8").
const formatNumber = (value) => String(value);
const byteSize = (bytes) => (bytes >= 1 << 20 && bytes % (1 << 20) === 0 ? `${bytes / (1 << 20)} MiB` : `${bytes} bytes`);
const weakness = {
  length: (minimum) => `tem menos de ${plural(minimum, "caractere", "caracteres")}`,
  characters: () => "precisa de mais tipos de caracteres (minúsculas, maiúsculas, dígitos, símbolos)",
  pwned: () => "aparece em vazamentos de dados conhecidos",
};

const sentences = {
  request_not_an_object: () => `um pedido precisa ser um objeto JSON (lotes não são aceitos)`,
  not_json: ({ detail }) => `não é JSON válido: ${detail}`,
  bad_request_id: () => `id precisa ser uma string, um inteiro ou null`,
  bad_jsonrpc_version: () => `jsonrpc precisa ser "2.0"`,
  method_missing: () => `method está ausente ou não é uma string`,
  unknown_method: ({ method }) => `método desconhecido '${method}'; daemon.describe lista todos os métodos`,
  invalid_params: ({ method, detail }) => `parâmetros inválidos para ${method}: ${detail}`,
  param_wrong_type: ({ method, path, expected }) => `parâmetros inválidos para ${method}: ${path === "" ? "a mensagem" : path}: esperava ${jsonType(expected)}`,
  param_null: ({ method, path, expected }) => `parâmetros inválidos para ${method}: ${path === "" ? "a mensagem" : path}: esperava ${jsonType(expected)}, veio null`,
  param_required: ({ method, path }) => `parâmetros inválidos para ${method}: ${path === "" ? "a mensagem" : path} é obrigatório`,
  internal_error_in: ({ method }) => `erro interno em ${method}; veja o log do daemon`,
  peer_not_allowed: ({ uid }) => `permissão negada: só o uid ${uid} e o root podem usar este socket`,
  too_many_connections: ({ limit }) => `conexões de controle demais (${limit}); tente de novo`,
  line_too_long: ({ limit }) => `linha de pedido maior que ${plural(limit, "byte", "bytes")}; a conexão será fechada`,
  connection_closing: () => `a conexão está sendo fechada`,
  unknown_subscription: ({ subscription }) => `não há inscrição ${subscription} nesta conexão`,
  cancelled_by_client: ({ method }) => `${method} foi cancelado a pedido do cliente`,
  cancel_is_a_notification: () => `$/cancelRequest é uma notificação: envie sem id`,
  must_be_between: ({ name, minimum, maximum }) => `${name} precisa estar entre ${minimum} e ${maximum}`,
  must_be_between_not: ({ name, minimum, maximum, given }) => `${name} precisa estar entre ${minimum} e ${maximum}, não ${given}`,
  must_be_one_of: ({ name, choices }) => `${name} precisa ser ${list(choices, "ou")}`,
  page_below_one: () => `page precisa ser 1 ou mais`,
  negative_offset: ({ given }) => `offset precisa ser 0 ou mais, não ${given}`,
  negative_keep_bytes: () => `keep_bytes não pode ser negativo`,
  path_not_absolute: () => `path precisa ser um caminho absoluto`,
  path_not_absolute_relative_made_absolute: () => `path precisa ser um caminho absoluto (o splashctl torna absolutos os relativos)`,
  topic_not_slug_or_id: () => `topic precisa ser um slug ou um id`,
  query_length: ({ maximum }) => `query precisa ter de 1 a ${maximum} caracteres`,
  search_query_length: ({ maximum }) => `a busca precisa ter de 1 a ${maximum} caracteres`,
  text_length: ({ maximum }) => `text precisa ter de 1 a ${maximum} caracteres`,
  not_a_topic_slug: ({ slug }) => `'${slug}' não é o slug de um tópico`,
  unknown_colour: ({ color, known }) => `cor desconhecida '${color}'; use uma destas: ` + known.join(", "),
  unknown_event_type: ({ type, known }) => `tipo de evento desconhecido '${type}'; conhecidos: ` + known.join(", "),
  search_local_source: () => `busque em unsplash ou nasa; as fotos locais e do Google estão em photos.list`,
  nasa_filters_need_nasa: () => `media, year_from e year_to são filtros da NASA; adicione source nasa`,
  unsplash_filters_only: () => `color, orientation e order são filtros do Unsplash`,
  year_from_after_year_to: () => `year_from é posterior a year_to`,
  per_page_out_of_range: ({ maximum, source, given }) => `per_page precisa estar entre 1 e ${maximum} para ${source}, não ${given}`,
  not_a_photo_id: ({ id }) => `'${id}' não é um id de foto; os ids são como unsplash:Dwu85P9SOIk, nasa:PIA12345 ou local:<hash>`,
  statistics_unsplash_only: () => `só há estatísticas para fotos do Unsplash`,
  feed_value_length: ({ maximum }) => `um feed precisa de um slug de tópico ou de uma busca (de 1 a ${maximum} caracteres)`,
  topics_are_unsplash: () => `tópicos são do Unsplash`,
  follow_unsplash_or_nasa: () => `siga unsplash ou nasa`,
  not_an_edit_id: ({ edit_id }) => `'${edit_id}' não é um id de edição; splashctl edits list mostra as edições`,
  no_filters: () => `informe pelo menos um filtro (splashctl filters lista os filtros)`,
  too_many_filters: ({ maximum, given }) => `no máximo ${maximum} filtros em uma edição, não ${given}`,
  unknown_filter: ({ filter, known }) => `filtro desconhecido '${filter}'; filtros conhecidos: ` + known.join(", "),
  filter_parameter_count: ({ filter, expected, parameters, given }) =>
    `${filter} recebe ${plural(expected, "parâmetro", "parâmetros")}` +
    (parameters.length === 0 ? "" : " (" + parameters.join(", ") + ")") +
    `, não ${given}`,
  filter_parameter_out_of_range: ({ filter, parameter, minimum, maximum, given }) => `${parameter} de ${filter} precisa estar entre ${formatNumber(minimum)} e ${formatNumber(maximum)}, não ${formatNumber(given)}`,
  filter_step_without_name: ({ step }) => `'${step}' não tem nome de filtro; escreva, por exemplo, sepia:0.8`,
  filter_parameter_not_a_number: ({ value, step }) => `'${value}' em '${step}' não é um número; escreva, por exemplo, vignette:1.0,0.6`,
  username_length: ({ minimum, maximum, given }) => `um nome de usuário tem de ${minimum} a ${maximum} caracteres, não ${given}`,
  username_characters: () => `um nome de usuário só pode ter letras minúsculas a-z, dígitos 0-9 e '_'`,
  email_required: () => `o endereço de e-mail é obrigatório`,
  email_too_long: ({ maximum }) => `um endereço de e-mail tem no máximo ${maximum} bytes`,
  not_an_email: ({ email }) => `'${email}' não é um endereço de e-mail`,
  password_required: () => `a senha é obrigatória`,
  password_too_long: ({ maximum }) => `uma senha tem no máximo ${maximum} bytes`,
  not_signed_in: () => `sem sessão; execute: splashctl login --email <endereço>`,
  not_signed_in_because: ({ why }) => `sem sessão: ${render(why)}`,
  server_ended_session: ({ code, kept_changes }) =>
    `o servidor encerrou a sessão (${code}); entre de novo — ` +
    (kept_changes === 1 ? "1 alteração na fila foi mantida para esta conta" : `${kept_changes} alterações na fila foram mantidas para esta conta`),
  session_file_moved_aside: ({ problem, moved_to }) => `o arquivo de sessão ${render(problem)}; ele foi movido para ${moved_to}; entre de novo`,
  session_file_cannot_be_read: () => `não pode ser lido`,
  session_file_holds_no_user: () => `tem tokens vazios ou nenhum usuário`,
  session_file_not_a_session: ({ detail }) => `não é uma sessão (${detail})`,
  sign_in_to_sync: () => `entre para sincronizar (splashctl login); o que você faz sem sessão fica nesta máquina`,
  sign_in_to_adopt: () => `entre primeiro (splashctl login): as curtidas e edições do convidado são trazidas para a conta`,
  no_account_server: () => `nenhum servidor de conta configurado; defina backend.url e backend.anon_key (ou SPLASHD_BACKEND_URL e SPLASHD_ANON_KEY)`,
  google_not_configured: () => `nenhum cliente do Google configurado: crie um cliente OAuth de Desktop num projeto seu do Google Cloud e defina google.client_id e google.client_secret`,
  google_not_connected: () => `o splashd não está conectado ao Google; rode splashctl google connect`,
  google_connection_ended: ({ reason }) => `a conexão com o Google terminou (${reason}); rode splashctl google connect de novo — as fotos importadas ficam`,
  google_refused: ({ error, reason }) => `o Google recusou (${error}): ${reason}`,
  google_scope_not_granted: () => `a permissão do seletor do Google Fotos ficou desmarcada; rode splashctl google connect e permita`,
  google_unreachable: ({ detail }) => `não foi possível alcançar o Google: ${detail}; tente de novo quando estiver online`,
  google_local_failure: ({ detail }) => `Google, nesta máquina: ${detail}`,
  google_unknown_session: () => `essa sessão de escolha do Google Fotos não existe (splashctl import --google-photos começa uma)`,
  browser_flow_unknown: ({ again }) => `essa entrada não existe: terminou, foi abandonada ou nunca começou; comece de novo com ${again}`,
  browser_flow_timed_out: ({ minutes, again }) => `o navegador não voltou em ${minutes} minutos; a entrada foi abandonada (comece de novo com ${again})`,
  browser_flow_wrong_state: ({ again }) => `o navegador voltou com a resposta de outra entrada (o state não confere); ninguém entrou, comece de novo com ${again}`,
  browser_flow_refused: ({ error, reason }) => `a entrada foi recusada (${error}): ${reason}`,
  browser_flow_no_code: ({ again }) => `o navegador voltou sem código; ninguém entrou, comece de novo com ${again}`,
  browser_flow_not_a_callback: ({ url }) => `${url} não é o endereço de retorno desta entrada (http://127.0.0.1:…/callback?…)`,
  browser_flow_cannot_listen: ({ detail }) => `não foi possível escutar em 127.0.0.1 a volta do navegador: ${detail}`,
  provider_sign_in_code_refused: ({ code, message }) => `o servidor da conta recusou o código da entrada (${code}: ${message}); comece de novo com splashctl login --provider`,
  no_account_server_to_sync_with: () => `nenhum servidor de conta configurado; não há com o que sincronizar`,
  account_server_unreachable: ({ why }) => `não foi possível alcançar o servidor da conta: ${render(why)}; tente de novo quando estiver online`,
  account_server_answer_too_large: ({ why }) => `a resposta do servidor da conta foi recusada: ${render(why)}`,
  account_server_unusable: ({ why }) => `não foi possível usar o servidor da conta: ${render(why)}`,
  account_server_unreadable: ({ status }) => `o servidor da conta enviou uma resposta que o splashd não consegue ler (HTTP ${status}); tente de novo mais tarde`,
  account_server_redirect: ({ status }) => `o servidor da conta respondeu com um redirecionamento (HTTP ${status}); verifique backend.url`,
  account_server_failed_unreadably: ({ status }) => `o servidor da conta falhou (HTTP ${status}) com uma resposta ilegível; tente de novo mais tarde`,
  account_server_failed: ({ status }) => `o servidor da conta falhou (HTTP ${status}); tente de novo mais tarde`,
  account_server_refused: ({ message }) => `o servidor da conta recusou: ${message}`,
  too_many_attempts_server_says: ({ seconds }) => "tentativas demais; o servidor pede para tentar de novo" + (seconds == null ? " mais tarde" : ` em ${seconds} s`),
  too_many_attempts: () => `tentativas demais; tente de novo mais tarde`,
  wrong_credentials: () => `e-mail ou senha incorretos`,
  account_exists: () => `já existe uma conta com este endereço de e-mail; entre em vez de criar outra`,
  weak_password: ({ reasons, minimum_length, message }) =>
    "a senha é fraca demais: " +
    (reasons.length === 0
      ? message
      : reasons.map((reason) => weakness[reason]?.(minimum_length) ?? reason).join("; ")),
  email_not_confirmed: () => `o endereço de e-mail ainda não foi confirmado; siga o link enviado a ele e depois entre`,
  account_banned: () => `esta conta está banida no servidor`,
  server_refused_input: ({ message }) => `o servidor recusou os dados: ${message}`,
  signups_closed: () => `o servidor não aceita contas novas`,
  account_local_failure: ({ detail }) => `falha nesta máquina: ${detail}`,
  photo_sources_unavailable: () => `as fontes de fotos não estão disponíveis (sem cliente HTTP)`,
  unsplash_key_missing: () => `nenhuma chave de acesso do Unsplash configurada; defina unsplash.access_key_file (ou SPLASHD_UNSPLASH_ACCESS_KEY)`,
  hourly_limit_used_up: ({ service }) => `o limite de pedidos por hora ${of(service)} se esgotou`,
  service_redirect: ({ service, status }) => `${the(service)} respondeu com um redirecionamento (HTTP ${status}); verifique a URL da API`,
  service_failed: ({ service, status }) => `${the(service)} falhou (HTTP ${status})`,
  service_answer_not_json: ({ service }) => `a resposta ${of(service)} não é o JSON esperado`,
  cannot_reach_service: ({ service, why }) => `não foi possível alcançar ${the(service)}: ${render(why)}`,
  service_answer_refused: ({ service, why }) => `a resposta ${of(service)} foi recusada: ${render(why)}`,
  cannot_use_service: ({ service, why }) => `não foi possível usar ${the(service)}: ${render(why)}`,
  source_unreachable: ({ why }) => `${render(why)}; tente de novo quando estiver online`,
  source_not_found: ({ message }) => `o serviço de fotos não encontrou: ${message}`,
  source_refused: ({ status, message }) => `o serviço de fotos recusou o pedido (HTTP ${status}): ${message}`,
  source_unreadable: ({ why }) => `o serviço de fotos enviou uma resposta que o splashd não consegue ler: ${render(why)}`,
  source_rate_limited: ({ why, minutes }) => render(why) + (minutes == null ? "" : `; volta a ter espaço em até ${minutes} min`),
  not_following: ({ kind, value }) => `você não segue ${feedKind(kind)} '${value}'; splashctl feeds lista o que você segue`,
  network_error: ({ curl_code, message }) => `erro de rede (curl ${curl_code}): ${message}`,
  no_answer_in_time: () => `sem resposta a tempo (a conexão ou a transferência parou)`,
  tls_unverified: ({ message }) => `não foi possível verificar a identidade TLS do servidor (${message}); uma CA privada pode ser indicada em network.ca_file`,
  server_answered_status: ({ status }) => `o servidor respondeu HTTP ${status}`,
  answer_too_large: ({ limit }) => `a resposta passou de ${byteSize(limit)}, então o splashd parou de lê-la`,
  insecure_url: ({ host }) => `http:// simples para ${host} é recusado; só hosts de loopback podem usar http, use https://`,
  request_cancelled: () => `o pedido foi cancelado`,
  invalid_url: () => `não é uma URL http(s) válida`,
  invalid_header: ({ name }) => `o cabeçalho ${name} do pedido contém uma quebra de linha ou NUL`,
  too_many_redirects: () => `redirecionamentos demais (um ciclo de redirecionamento?)`,
  size_mismatch: ({ expected, actual }) => `vieram ${actual} bytes onde foram anunciados ${expected}`,
  checksum_mismatch: () => `o checksum do arquivo não confere`,
  cannot_write_file: ({ path, reason }) => `não foi possível gravar ${path}: ${reason}`,
  shutting_down: () => `o splashd está sendo encerrado`,
  photo_not_in_store: ({ id }) => `a foto ${id} não está no banco local; splashctl photos list mostra o que há aqui`,
  unknown_photo: ({ id }) => `a foto ${id} não está na biblioteca; busque-a ou abra-a antes`,
  unknown_edit: ({ id }) => `não há edição ${id}; splashctl edits list mostra as edições`,
  unreadable_path: ({ path, reason }) => `não foi possível ler ${path}: ${reason}`,
  unknown_op: ({ id }) => `não há operação ${id} na fila; splashctl queue lista as operações`,
  op_in_flight: ({ id }) => `a operação ${id} está sendo enviada agora; tente de novo em instantes`,
  duplicate: ({ id, twin, distance }) => `${id} parece com ${twin}, que já está na sua biblioteca (${distance} de 64 bits de diferença); curta assim mesmo com --allow-duplicate`,
  import_running: ({ path }) => `uma importação de ${path} está em andamento; espere ela terminar`,
  folder_not_watched: ({ path }) => `${path} não está sendo observada; splashctl import --watching lista as pastas observadas`,
  watching_unavailable: () => `não é possível observar pastas aqui (inotify indisponível); veja o log do daemon`,
  capability_missing: ({ capability }) => `não disponível neste daemon: ${capabilityName(capability)} (o log dele diz por quê)`,
  image_too_large: ({ width, height, limit_pixels }) => `a imagem tem ${width} × ${height} (${decimalComma(megapixels(width * height))} MP), acima do limite de ${decimalComma(megapixels(limit_pixels))} MP (images.max_megapixels)`,
  original_not_an_image: ({ detail }) => `o original da foto não pode ser editado: não é uma imagem que o splashd consiga ler: ${detail}`,
  original_damaged: ({ detail }) => `o original da foto não pode ser editado: a imagem está danificada: ${detail}`,
  disk_full: ({ why, directory }) => `${render(why)} em ${directory}; libere espaço e tente de novo`,
  cannot_read: ({ path, reason }) => `não foi possível ler ${path}: ${reason}`,
  cannot_create_folder: ({ path, reason }) => `não foi possível criar ${path}: ${reason}`,
  cannot_save_edit: ({ reason }) => `não foi possível salvar a edição: ${reason}`,
  cannot_move_edit_into_library: ({ reason }) => `não foi possível mover a edição para a biblioteca: ${reason}`,
  original_not_brought: ({ id }) => `não foi possível trazer o original de ${id} para esta máquina`,
  image_engine_failed: ({ detail }) => `o mecanismo de imagens falhou: ${detail}`,
  original_not_here_offline: ({ id }) => `o original de ${id} não está nesta máquina e não é possível baixá-lo`,
  original_download_failed: ({ id, reason }) => `não foi possível baixar o original de ${id}: ${reason}`,
  no_pictures_folder: () => `não há pasta de Imagens: pictures.folder não está definido e não há pasta pessoal`,
  pictures_export_off: ({ folder }) => `pictures.export está desligado na configuração do splashd; nada é mantido em ${folder}`,
  not_probed_yet: () => `ainda não verificado`,
  no_backend_configured: () => `nenhum servidor da conta configurado`,
  backend_answers: () => `o servidor da conta responde`,
  backend_refuses_api_key: ({ status }) => `o servidor da conta recusa a chave da API (HTTP ${status}); confira a anon key configurada`,
  backend_rate_limited: () => `o servidor da conta respondeu 429 (limite de pedidos)`,
  backend_answered_status: ({ status }) => `o servidor da conta respondeu ${status}`,
  backend_unreachable: ({ detail }) => `o servidor da conta está inalcançável: ${detail}`,
  backend_silent: ({ seconds }) => `o servidor da conta não respondeu em ${decimalComma(String(seconds))} s`,
  backend_tls_failed: ({ detail }) => `o TLS com o servidor da conta falhou: ${detail}`,
  health_url_plain_http: ({ host }) => `URL de saúde recusada: http sem TLS para ${host} só é permitido para loopback`,
  health_url_invalid: () => `a URL de saúde não é uma URL http(s) válida`,
  api_key_bad_characters: () => `a chave da API tem caracteres não permitidos num cabeçalho`,
  backend_redirected: () => `o servidor da conta respondeu com um redirecionamento`,
  backend_oversized: () => `o servidor da conta respondeu com um corpo grande demais`,
  backend_unexpected: () => `o servidor da conta respondeu de forma inesperada`,
  live_signed_out_or_offline: () => `sem conta ou sem rede`,
  live_socket_closed: () => `o servidor fechou o socket`,
  live_join_refused: ({ reason }) => `a entrada no canal foi recusada: ${reason}`,
  live_heartbeat_unanswered: ({ seconds }) => `sem resposta a um heartbeat em ${decimalComma(String(seconds))} s`,
  live_join_unanswered: ({ seconds }) => `sem resposta à entrada no canal em ${decimalComma(String(seconds))} s`,
  live_cannot_connect: ({ detail }) => `não foi possível abrir o canal ao vivo: ${detail}`,
  gallery_off: () => `a galeria web está desligada na configuração do splashd (web.enabled)`,
  gallery_not_listening: ({ reason }) => `a galeria web não está escutando: ${reason}`,
  asked_from_the_gallery: ({ method }) => `${method} é pedido pelo socket de controle do splashd, não pela galeria`,
  picture_needs_room: () => `uma imagem precisa de ao menos 1 coluna e 1 linha`,
  photo_ids_count: ({ maximum }) => `ids deve ter de 1 a ${maximum} ids de fotos`,
  no_picture_here: ({ id }) => `nenhuma imagem de ${id} está nesta máquina, e downloads não estão disponíveis`,
  no_picture_here_because: ({ id, reason }) => `nenhuma imagem de ${id} está nesta máquina: ${reason}`,
  picture_cannot_be_drawn: ({ id, path, reason }) => `a imagem de ${id} não pode ser desenhada a partir de ${path}: ${reason}`,
};
