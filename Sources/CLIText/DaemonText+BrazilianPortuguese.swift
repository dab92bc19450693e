import Foundation
import Shared

/// The daemon's error sentences in Brazilian Portuguese, with the terms of BrazilianPortuguese.swift
/// (foto, curtida, edição, fila, conta, entrar, servidor da conta, sem rede). Protocol words (param
/// names, their values, commands, config keys) and free text from outside (`detail`, `reason`,
/// `message`: a curl error, a server's words) stay as they are.
extension DaemonText {
    var brazilianPortuguese: String {
        switch self {
        case .requestNotAnObject: "um pedido precisa ser um objeto JSON (lotes não são aceitos)"
        case .notJson(let detail): "não é JSON válido: \(detail)"
        case .badRequestId: "id precisa ser uma string, um inteiro ou null"
        case .badJsonrpcVersion: "jsonrpc precisa ser \"2.0\""
        case .methodMissing: "method está ausente ou não é uma string"
        case .unknownMethod(let method): "método desconhecido '\(method)'; daemon.describe lista todos os métodos"
        case .invalidParams(let method, let detail): "parâmetros inválidos para \(method): \(detail)"
        case .paramWrongType(let method, let path, let expected):
            "parâmetros inválidos para \(method): \(path.isEmpty ? "a mensagem" : path): esperava \(Self.jsonType(expected))"
        case .paramNull(let method, let path, let expected):
            "parâmetros inválidos para \(method): \(path.isEmpty ? "a mensagem" : path): esperava \(Self.jsonType(expected)), veio null"
        case .paramRequired(let method, let path): "parâmetros inválidos para \(method): \(path.isEmpty ? "a mensagem" : path) é obrigatório"
        case .internalErrorIn(let method): "erro interno em \(method); veja o log do daemon"
        case .peerNotAllowed(let uid): "permissão negada: só o uid \(uid) e o root podem usar este socket"
        case .tooManyConnections(let limit): "conexões de controle demais (\(limit)); tente de novo"
        case .lineTooLong(let limit): "linha de pedido maior que \(BrazilianPortuguese.plural(limit, "byte", "bytes")); a conexão será fechada"
        case .connectionClosing: "a conexão está sendo fechada"
        case .unknownSubscription(let subscription): "não há inscrição \(subscription) nesta conexão"
        case .cancelledByClient(let method): "\(method) foi cancelado a pedido do cliente"
        case .cancelIsANotification: "$/cancelRequest é uma notificação: envie sem id"

        case .mustBeBetween(let name, let minimum, let maximum): "\(name) precisa estar entre \(minimum) e \(maximum)"
        case .mustBeBetweenNot(let name, let minimum, let maximum, let given):
            "\(name) precisa estar entre \(minimum) e \(maximum), não \(given)"
        case .mustBeOneOf(let name, let choices): "\(name) precisa ser \(Self.list(choices, or: "ou"))"
        case .pageBelowOne: "page precisa ser 1 ou mais"
        case .negativeOffset(let given): "offset precisa ser 0 ou mais, não \(given)"
        case .negativeKeepBytes: "keep_bytes não pode ser negativo"
        case .pathNotAbsolute: "path precisa ser um caminho absoluto"
        case .pathNotAbsoluteRelativeMadeAbsolute: "path precisa ser um caminho absoluto (o splashctl torna absolutos os relativos)"
        case .topicNotSlugOrId: "topic precisa ser um slug ou um id"
        case .queryLength(let maximum): "query precisa ter de 1 a \(maximum) caracteres"
        case .searchQueryLength(let maximum): "a busca precisa ter de 1 a \(maximum) caracteres"
        case .textLength(let maximum): "text precisa ter de 1 a \(maximum) caracteres"
        case .notATopicSlug(let slug): "'\(slug)' não é o slug de um tópico"
        case .unknownColour(let color, let known): "cor desconhecida '\(color)'; use uma destas: " + known.joined(separator: ", ")
        case .unknownEventType(let type, let known): "tipo de evento desconhecido '\(type)'; conhecidos: " + known.joined(separator: ", ")
        case .searchLocalSource: "busque em unsplash ou nasa; as fotos locais e do Google estão em photos.list"
        case .nasaFiltersNeedNasa: "media, year_from e year_to são filtros da NASA; adicione source nasa"
        case .unsplashFiltersOnly: "color, orientation e order são filtros do Unsplash"
        case .yearFromAfterYearTo: "year_from é posterior a year_to"
        case .perPageOutOfRange(let maximum, let source, let given): "per_page precisa estar entre 1 e \(maximum) para \(source), não \(given)"
        case .notAPhotoId(let id): "'\(id)' não é um id de foto; os ids são como unsplash:Dwu85P9SOIk, nasa:PIA12345 ou local:<hash>"
        case .statisticsUnsplashOnly: "só há estatísticas para fotos do Unsplash"
        case .feedValueLength(let maximum): "um feed precisa de um slug de tópico ou de uma busca (de 1 a \(maximum) caracteres)"
        case .topicsAreUnsplash: "tópicos são do Unsplash"
        case .followUnsplashOrNasa: "siga unsplash ou nasa"
        case .notAnEditId(let editId): "'\(editId)' não é um id de edição; splashctl edits list mostra as edições"

        case .noFilters: "informe pelo menos um filtro (splashctl filters lista os filtros)"
        case .tooManyFilters(let maximum, let given): "no máximo \(maximum) filtros em uma edição, não \(given)"
        case .unknownFilter(let filter, let known): "filtro desconhecido '\(filter)'; filtros conhecidos: " + known.joined(separator: ", ")
        case .filterParameterCount(let filter, let expected, let parameters, let given):
            "\(filter) recebe \(BrazilianPortuguese.plural(expected, "parâmetro", "parâmetros"))"
                + (parameters.isEmpty ? "" : " (" + parameters.joined(separator: ", ") + ")")
                + ", não \(given)"
        case .filterParameterOutOfRange(let filter, let parameter, let minimum, let maximum, let given):
            "\(parameter) de \(filter) precisa estar entre \(FilterCatalog.format(minimum)) e \(FilterCatalog.format(maximum)), não \(FilterCatalog.format(given))"
        case .filterStepWithoutName(let step): "'\(step)' não tem nome de filtro; escreva, por exemplo, sepia:0.8"
        case .filterParameterNotANumber(let value, let step): "'\(value)' em '\(step)' não é um número; escreva, por exemplo, vignette:1.0,0.6"

        case .usernameLength(let minimum, let maximum, let given): "um nome de usuário tem de \(minimum) a \(maximum) caracteres, não \(given)"
        case .usernameCharacters: "um nome de usuário só pode ter letras minúsculas a-z, dígitos 0-9 e '_'"
        case .emailRequired: "o endereço de e-mail é obrigatório"
        case .emailTooLong(let maximum): "um endereço de e-mail tem no máximo \(maximum) bytes"
        case .notAnEmail(let email): "'\(email)' não é um endereço de e-mail"
        case .passwordRequired: "a senha é obrigatória"
        case .passwordTooLong(let maximum): "uma senha tem no máximo \(maximum) bytes"

        case .notSignedIn: "sem sessão; execute: splashctl login --email <endereço>"
        case .notSignedInBecause(let why): "sem sessão: \(why.brazilianPortuguese)"
        case .serverEndedSession(let code, let keptChanges):
            "o servidor encerrou a sessão (\(code)); entre de novo — "
                + (keptChanges == 1
                    ? "1 alteração na fila foi mantida para esta conta"
                    : "\(keptChanges) alterações na fila foram mantidas para esta conta")
        case .sessionFileMovedAside(let problem, let movedTo):
            "o arquivo de sessão \(problem.brazilianPortuguese); ele foi movido para \(movedTo); entre de novo"
        case .sessionFileCannotBeRead: "não pode ser lido"
        case .sessionFileHoldsNoUser: "tem tokens vazios ou nenhum usuário"
        case .sessionFileNotASession(let detail): "não é uma sessão (\(detail))"
        case .signInToSync: "entre para sincronizar (splashctl login); o que você faz sem sessão fica nesta máquina"
        case .signInToAdopt: "entre primeiro (splashctl login): as curtidas e edições do convidado são trazidas para a conta"
        case .noAccountServer:
            "nenhum servidor de conta configurado; defina backend.url e backend.anon_key (ou SPLASHD_BACKEND_URL e SPLASHD_ANON_KEY)"
        case .googleNotConfigured:
            "nenhum cliente do Google configurado: crie um cliente OAuth de Desktop num projeto seu do Google Cloud e defina google.client_id e google.client_secret"
        case .googleNotConnected: "o splashd não está conectado ao Google; rode splashctl google connect"
        case .googleConnectionEnded(let reason):
            "a conexão com o Google terminou (\(reason)); rode splashctl google connect de novo — as fotos importadas ficam"
        case .googleRefused(let error, let reason): "o Google recusou (\(error)): \(reason)"
        case .googleScopeNotGranted: "a permissão do seletor do Google Fotos ficou desmarcada; rode splashctl google connect e permita"
        case .googleUnreachable(let detail): "não foi possível alcançar o Google: \(detail); tente de novo quando estiver online"
        case .googleLocalFailure(let detail): "Google, nesta máquina: \(detail)"
        case .googleUnknownSession: "essa sessão de escolha do Google Fotos não existe (splashctl import --google-photos começa uma)"
        case .browserFlowUnknown(let again):
            "essa entrada não existe: terminou, foi abandonada ou nunca começou; comece de novo com \(again)"
        case .browserFlowTimedOut(let minutes, let again):
            "o navegador não voltou em \(minutes) minutos; a entrada foi abandonada (comece de novo com \(again))"
        case .browserFlowWrongState(let again):
            "o navegador voltou com a resposta de outra entrada (o state não confere); ninguém entrou, comece de novo com \(again)"
        case .browserFlowRefused(let error, let reason): "a entrada foi recusada (\(error)): \(reason)"
        case .browserFlowNoCode(let again): "o navegador voltou sem código; ninguém entrou, comece de novo com \(again)"
        case .browserFlowNotACallback(let url): "\(url) não é o endereço de retorno desta entrada (http://127.0.0.1:…/callback?…)"
        case .browserFlowCannotListen(let detail): "não foi possível escutar em 127.0.0.1 a volta do navegador: \(detail)"
        case .providerSignInCodeRefused(let code, let message):
            "o servidor da conta recusou o código da entrada (\(code): \(message)); comece de novo com splashctl login --provider"
        case .noAccountServerToSyncWith: "nenhum servidor de conta configurado; não há com o que sincronizar"
        case .accountServerUnreachable(let why):
            "não foi possível alcançar o servidor da conta: \(why.brazilianPortuguese); tente de novo quando estiver online"
        case .accountServerAnswerTooLarge(let why): "a resposta do servidor da conta foi recusada: \(why.brazilianPortuguese)"
        case .accountServerUnusable(let why): "não foi possível usar o servidor da conta: \(why.brazilianPortuguese)"
        case .accountServerUnreadable(let status): "o servidor da conta enviou uma resposta que o splashd não consegue ler (HTTP \(status)); tente de novo mais tarde"
        case .accountServerRedirect(let status): "o servidor da conta respondeu com um redirecionamento (HTTP \(status)); verifique backend.url"
        case .accountServerFailedUnreadably(let status): "o servidor da conta falhou (HTTP \(status)) com uma resposta ilegível; tente de novo mais tarde"
        case .accountServerFailed(let status): "o servidor da conta falhou (HTTP \(status)); tente de novo mais tarde"
        case .accountServerRefused(let message): "o servidor da conta recusou: \(message)"
        case .tooManyAttemptsServerSays(let seconds):
            "tentativas demais; o servidor pede para tentar de novo" + (seconds.map { " em \($0) s" } ?? " mais tarde")
        case .tooManyAttempts: "tentativas demais; tente de novo mais tarde"
        case .wrongCredentials: "e-mail ou senha incorretos"
        case .accountExists: "já existe uma conta com este endereço de e-mail; entre em vez de criar outra"
        case .weakPassword(let reasons, let minimumLength, let message):
            "a senha é fraca demais: "
                + (reasons.isEmpty ? message : reasons.map { reason in
                    switch reason {
                    case "length": "tem menos de \(BrazilianPortuguese.plural(minimumLength, "caractere", "caracteres"))"
                    case "characters": "precisa de mais tipos de caracteres (minúsculas, maiúsculas, dígitos, símbolos)"
                    case "pwned": "aparece em vazamentos de dados conhecidos"
                    default: reason
                    }
                }.joined(separator: "; "))
        case .emailNotConfirmed: "o endereço de e-mail ainda não foi confirmado; siga o link enviado a ele e depois entre"
        case .accountBanned: "esta conta está banida no servidor"
        case .serverRefusedInput(let message): "o servidor recusou os dados: \(message)"
        case .signupsClosed: "o servidor não aceita contas novas"
        case .accountLocalFailure(let detail): "falha nesta máquina: \(detail)"

        case .photoSourcesUnavailable: "as fontes de fotos não estão disponíveis (sem cliente HTTP)"
        case .unsplashKeyMissing:
            "nenhuma chave de acesso do Unsplash configurada; defina unsplash.access_key_file (ou SPLASHD_UNSPLASH_ACCESS_KEY)"
        case .hourlyLimitUsedUp(let service): "o limite de pedidos por hora \(Self.of(service)) se esgotou"
        case .serviceRedirect(let service, let status):
            "\(Self.the(service)) respondeu com um redirecionamento (HTTP \(status)); verifique a URL da API"
        case .serviceFailed(let service, let status): "\(Self.the(service)) falhou (HTTP \(status))"
        case .serviceAnswerNotJson(let service): "a resposta \(Self.of(service)) não é o JSON esperado"
        case .cannotReachService(let service, let why): "não foi possível alcançar \(Self.the(service)): \(why.brazilianPortuguese)"
        case .serviceAnswerRefused(let service, let why): "a resposta \(Self.of(service)) foi recusada: \(why.brazilianPortuguese)"
        case .cannotUseService(let service, let why): "não foi possível usar \(Self.the(service)): \(why.brazilianPortuguese)"
        case .sourceUnreachable(let why): "\(why.brazilianPortuguese); tente de novo quando estiver online"
        case .sourceNotFound(let message): "o serviço de fotos não encontrou: \(message)"
        case .sourceRefused(let status, let message): "o serviço de fotos recusou o pedido (HTTP \(status)): \(message)"
        case .sourceUnreadable(let why): "o serviço de fotos enviou uma resposta que o splashd não consegue ler: \(why.brazilianPortuguese)"
        case .sourceRateLimited(let why, let minutes):
            why.brazilianPortuguese + (minutes.map { "; volta a ter espaço em até \($0) min" } ?? "")
        case .notFollowing(let kind, let value):
            "você não segue \(Self.feedKind(kind)) '\(value)'; splashctl feeds lista o que você segue"

        case .networkError(let curlCode, let message): "erro de rede (curl \(curlCode)): \(message)"
        case .noAnswerInTime: "sem resposta a tempo (a conexão ou a transferência parou)"
        case .tlsUnverified(let message):
            "não foi possível verificar a identidade TLS do servidor (\(message)); uma CA privada pode ser indicada em network.ca_file"
        case .serverAnsweredStatus(let status): "o servidor respondeu HTTP \(status)"
        case .answerTooLarge(let limit): "a resposta passou de \(Self.byteSize(limit)), então o splashd parou de lê-la"
        case .insecureUrl(let host): "http:// simples para \(host) é recusado; só hosts de loopback podem usar http, use https://"
        case .requestCancelled: "o pedido foi cancelado"
        case .invalidUrl: "não é uma URL http(s) válida"
        case .invalidHeader(let name): "o cabeçalho \(name) do pedido contém uma quebra de linha ou NUL"
        case .tooManyRedirects: "redirecionamentos demais (um ciclo de redirecionamento?)"
        case .sizeMismatch(let expected, let actual): "vieram \(actual) bytes onde foram anunciados \(expected)"
        case .checksumMismatch: "o checksum do arquivo não confere"
        case .cannotWriteFile(let path, let reason): "não foi possível gravar \(path): \(reason)"
        case .shuttingDown: "o splashd está sendo encerrado"

        case .photoNotInStore(let id): "a foto \(id) não está no banco local; splashctl photos list mostra o que há aqui"
        case .unknownPhoto(let id): "a foto \(id) não está na biblioteca; busque-a ou abra-a antes"
        case .unknownEdit(let id): "não há edição \(id); splashctl edits list mostra as edições"
        case .unreadablePath(let path, let reason): "não foi possível ler \(path): \(reason)"
        case .unknownOp(let id): "não há operação \(id) na fila; splashctl queue lista as operações"
        case .opInFlight(let id): "a operação \(id) está sendo enviada agora; tente de novo em instantes"
        case .duplicate(let id, let twin, let distance):
            "\(id) parece com \(twin), que já está na sua biblioteca (\(distance) de 64 bits de diferença); curta assim mesmo com --allow-duplicate"
        case .importRunning(let path): "uma importação de \(path) está em andamento; espere ela terminar"
        case .folderNotWatched(let path): "\(path) não está sendo observada; splashctl import --watching lista as pastas observadas"
        case .watchingUnavailable: "não é possível observar pastas aqui (inotify indisponível); veja o log do daemon"
        case .capabilityMissing(let capability): "não disponível neste daemon: \(Self.capability(capability)) (o log dele diz por quê)"

        case .imageTooLarge(let width, let height, let limitPixels):
            "a imagem tem \(width) × \(height) (\(Self.decimalComma(Self.megapixels(width * height))) MP), acima do limite de \(Self.decimalComma(Self.megapixels(limitPixels))) MP (images.max_megapixels)"
        case .originalNotAnImage(let detail): "o original da foto não pode ser editado: não é uma imagem que o splashd consiga ler: \(detail)"
        case .originalDamaged(let detail): "o original da foto não pode ser editado: a imagem está danificada: \(detail)"
        case .diskFull(let why, let directory): "\(why.brazilianPortuguese) em \(directory); libere espaço e tente de novo"
        case .cannotRead(let path, let reason): "não foi possível ler \(path): \(reason)"
        case .cannotCreateFolder(let path, let reason): "não foi possível criar \(path): \(reason)"
        case .cannotSaveEdit(let reason): "não foi possível salvar a edição: \(reason)"
        case .cannotMoveEditIntoLibrary(let reason): "não foi possível mover a edição para a biblioteca: \(reason)"
        case .originalNotBrought(let id): "não foi possível trazer o original de \(id) para esta máquina"
        case .imageEngineFailed(let detail): "o mecanismo de imagens falhou: \(detail)"
        case .originalNotHereOffline(let id): "o original de \(id) não está nesta máquina e não é possível baixá-lo"
        case .originalDownloadFailed(let id, let reason): "não foi possível baixar o original de \(id): \(reason)"
        case .noPicturesFolder: "não há pasta de Imagens: pictures.folder não está definido e não há pasta pessoal"
        case .picturesExportOff(let folder): "pictures.export está desligado na configuração do splashd; nada é mantido em \(folder)"
        case .notProbedYet: "ainda não verificado"
        case .noBackendConfigured: "nenhum servidor da conta configurado"
        case .backendAnswers: "o servidor da conta responde"
        case .backendRefusesApiKey(let status): "o servidor da conta recusa a chave da API (HTTP \(status)); confira a anon key configurada"
        case .backendRateLimited: "o servidor da conta respondeu 429 (limite de pedidos)"
        case .backendAnsweredStatus(let status): "o servidor da conta respondeu \(status)"
        case .backendUnreachable(let detail): "o servidor da conta está inalcançável: \(detail)"
        case .backendSilent(let seconds): "o servidor da conta não respondeu em \(Self.decimalComma(Self.seconds(seconds)))"
        case .backendTlsFailed(let detail): "o TLS com o servidor da conta falhou: \(detail)"
        case .healthUrlPlainHttp(let host): "URL de saúde recusada: http sem TLS para \(host) só é permitido para loopback"
        case .healthUrlInvalid: "a URL de saúde não é uma URL http(s) válida"
        case .apiKeyBadCharacters: "a chave da API tem caracteres não permitidos num cabeçalho"
        case .backendRedirected: "o servidor da conta respondeu com um redirecionamento"
        case .backendOversized: "o servidor da conta respondeu com um corpo grande demais"
        case .backendUnexpected: "o servidor da conta respondeu de forma inesperada"
        case .liveSignedOutOrOffline: "sem conta ou sem rede"
        case .liveSocketClosed: "o servidor fechou o socket"
        case .liveJoinRefused(let reason): "a entrada no canal foi recusada: \(reason)"
        case .liveHeartbeatUnanswered(let seconds): "sem resposta a um heartbeat em \(Self.decimalComma(Self.seconds(seconds)))"
        case .liveJoinUnanswered(let seconds): "sem resposta à entrada no canal em \(Self.decimalComma(Self.seconds(seconds)))"
        case .liveCannotConnect(let detail): "não foi possível abrir o canal ao vivo: \(detail)"
        case .galleryOff: "a galeria web está desligada na configuração do splashd (web.enabled)"
        case .galleryNotListening(let reason): "a galeria web não está escutando: \(reason)"
        case .askedFromTheGallery(let method): "\(method) é pedido pelo socket de controle do splashd, não pela galeria"
        case .pictureNeedsRoom: "uma imagem precisa de ao menos 1 coluna e 1 linha"
        case .photoIdsCount(let maximum): "ids deve ter de 1 a \(maximum) ids de fotos"
        case .noPictureHere(let id): "nenhuma imagem de \(id) está nesta máquina, e downloads não estão disponíveis"
        case .noPictureHereBecause(let id, let reason): "nenhuma imagem de \(id) está nesta máquina: \(reason)"
        case .pictureCannotBeDrawn(let id, let path, let reason): "a imagem de \(id) não pode ser desenhada a partir de \(path): \(reason)"
        }
    }

    /// A photo service with its article: "o Unsplash", "a NASA" (the agency is feminine).
    private static func the(_ service: String) -> String {
        (service == "NASA" ? "a " : "o ") + service
    }

    /// "do Unsplash", "da NASA".
    private static func of(_ service: String) -> String {
        (service == "NASA" ? "da " : "do ") + service
    }

    /// A JSON type (DaemonText's names) with its article.
    private static func jsonType(_ name: String) -> String {
        switch name {
        case "boolean": "um booleano"
        case "integer": "um inteiro"
        case "number": "um número"
        case "string": "uma string"
        case "array": "uma lista"
        case "object": "um objeto"
        default: name
        }
    }

    /// A feed's kind (`topic`, `search`) as a noun with its article.
    private static func feedKind(_ kind: String) -> String {
        switch kind {
        case "topic": "o tópico"
        case "search": "a busca"
        default: kind
        }
    }

    /// The capabilities the daemon names when one is missing (CapabilityMissing's words).
    private static func capability(_ name: String) -> String {
        switch name {
        case "editing": "edição"
        case "importing": "importação"
        case "image files": "arquivos de imagem"
        case "accounts": "contas"
        default: name
        }
    }

    /// "1.5" as Portuguese writes it, "1,5".
    private static func decimalComma(_ number: String) -> String {
        number.replacingOccurrences(of: ".", with: ",")
    }
}
