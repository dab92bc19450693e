/// splashctl's `--help` texts in Brazilian Portuguese, with the terms of `BrazilianPortuguese`
/// (curtir, edição, fila, entrar / sessão, sem rede). Abstracts describe what the command does in
/// the third person ("Mostra…"), as the man pages and `--help` of GNU tools read in pt_BR.
extension BrazilianPortuguese {
    static func text(_ help: HelpText) -> String {
        switch help {
        case .splashctlAbstract: "Controla o splashd, o daemon que sincroniza a biblioteca de fotos."
        case .splashctlDiscussion:
            "Os códigos de saída seguem o sysexits.h: 0 ok, 64 uso incorreto, 65 entrada inválida, 66 não encontrado, "
                + "69 daemon fora de execução, 70 erro interno, 75 tente mais tarde (sem rede, ocupado, limite de pedidos), "
                + "76 erro de protocolo, 77 não permitido. Veja docs/protocol.md."
        case .socketOption: "Socket de controle (padrão: $SPLASHD_SOCKET, senão $XDG_RUNTIME_DIR/splashd/control.sock)."
        case .jsonFlag: "Imprime exatamente o resultado JSON do daemon (erros como o objeto de erro JSON na saída de erro)."
        case .noColorFlag: "Sem cores, mesmo num terminal (NO_COLOR também é respeitado)."

        case .photoID: "O id da foto, ex.: unsplash:Dwu85P9SOIk."
        case .photoIDShort: "O id da foto."
        case .page: "Página, a partir de 1."
        case .emailAddress: "Endereço de e-mail."
        case .passwordFromFirstLineOfStdin: "Lê a senha da primeira linha da entrada padrão."
        case .signInProvider: "Entra com google ou github, no navegador, pelo servidor da conta (em vez de --email)."
        case .noBrowserFlag: "Com --provider: não abre navegador aqui; mostra o endereço e depois lê o endereço em que o navegador terminou."
        case .adoptGuestFlag: "Traz para a conta as curtidas e edições feitas aqui sem conta (sem nenhuma das duas opções, pergunta)."
        case .opID: "O id da operação (de splashctl queue; basta um prefixo único)."

        case .setupAbstract: "Primeira execução: URL do backend, chaves, as units de usuário do systemd e a entrada na conta."
        case .setupDiscussion:
            """
            Grava $XDG_CONFIG_HOME/splashd/config.toml (modo 0600) com as chaves em arquivos ao lado dele \
            (anon_key, unsplash_key, modo 0600), ativa o splashd.socket para o seu usuário quando há \
            systemd e faz você entrar na conta. Execute de novo para mudar qualquer coisa; a configuração \
            anterior fica guardada como config.toml.bak.
            """
        case .setupBackendURL: "A URL do projeto Supabase, ex.: https://abcd.supabase.co."
        case .setupAnonKeyFile: "Um arquivo com a chave anon (publicável) do projeto."
        case .setupUnsplashKeyFile: "Um arquivo com uma chave de acesso do Unsplash (opcional: sem ela, a busca no Unsplash fica desligada)."
        case .setupEmail: "Entra na conta com este endereço de e-mail."
        case .setupSignup: "Cria a conta (com --username) em vez de entrar."
        case .setupUsername: "Com --signup: o nome de usuário."
        case .setupPasswordStdin: "Lê a senha da entrada padrão."
        case .setupNoEnable: "Não mexe nas units de usuário do systemd."
        case .setupNoSignIn: "Não entra na conta agora."

        case .statusAbstract: "Mostra o que o daemon está fazendo."
        case .watchAbstract: "Imprime os eventos do daemon à medida que acontecem, até ser interrompido."
        case .watchType: "Só estes tipos de evento (pode repetir), ex.: photo.changed."

        case .photosAbstract: "Fotos da biblioteca local."
        case .photosListAbstract: "Lista as fotos guardadas (funciona sem rede; nunca espera pela rede)."
        case .photosListLiked: "Só as fotos curtidas."
        case .photosListEdited: "Só as fotos com edições."
        case .photosListDismissed: "Só as fotos descartadas (ocultas sem esta opção)."
        case .photosListSource: "unsplash, nasa ou local."
        case .photosListColor: "Faixa de cor, ex.: blue, red, black_and_white."
        case .photosListText: "Busca de texto completo no título, na descrição, nas etiquetas e no autor."
        case .photosListSort: "created, liked ou fetched; prefixe com '-' para ordem decrescente (padrão -fetched; -liked com --liked)."
        case .photosListLimit: "No máximo esta quantidade (1–1000, padrão 50)."
        case .photosListOffset: "Pula esta quantidade."
        case .photosStatsAbstract: "Visualizações e downloads de uma foto do Unsplash em 30 dias, num gráfico (--json para os números)."
        case .photosStatsID: "O id de uma foto do Unsplash (unsplash:...)."
        case .photosShowAbstract: "Mostra uma foto: a imagem, o título, o autor e o que se costuma ler; se está curtida."
        case .photosShowVerbose: "Mostra também o endereço de cada versão, a página da foto e os arquivos dela nesta máquina."

        case .searchAbstract: "Busca no Unsplash ou na NASA (uma busca já feita responde na hora com o que está guardado e se atualiza em segundo plano)."
        case .searchQuery: "O que buscar."
        case .searchSource: "unsplash (padrão) ou nasa."
        case .searchColor: "Unsplash: uma cor, ex.: blue, red, black_and_white."
        case .searchOrientation: "Unsplash: landscape, portrait ou squarish."
        case .searchOrder: "Unsplash: relevant ou latest."
        case .searchMedia: "NASA: image, video ou audio."
        case .searchYearFrom: "NASA: ano inicial."
        case .searchYearTo: "NASA: ano final."
        case .searchPerPage: "Resultados por página (Unsplash até 30, NASA até 100)."
        case .searchAgain: "Refaz a busca número N de `splashctl history`."
        case .searchRefresh: "Espera resultados novos (ou o erro da origem) em vez dos resultados guardados de antes."
        case .historyAbstract: "Suas últimas buscas, das mais novas às mais antigas (refaça uma com search --again N)."
        case .historySource: "Só unsplash ou só nasa."

        case .randomAbstract: "Fotos aleatórias do Unsplash (nunca uma descartada)."
        case .randomCount: "Quantas, de 1 a 30."
        case .randomTopic: "Deste tópico (slug ou id)."
        case .randomQuery: "Que correspondam a isto."
        case .topicsAbstract: "Os tópicos do Unsplash."
        case .topicsOrder: "featured, latest, oldest ou position."
        case .topicAbstract: "As fotos de um tópico."
        case .topicSlug: "O slug do tópico, ex.: wallpapers."
        case .topicOrder: "latest, oldest ou popular."
        case .topicPerPage: "Por página, de 1 a 30."
        case .gridFlag: "Mostra as fotos como uma folha de contatos de imagens, cada id abaixo da sua imagem."
        case .imageOption: "Como desenhar a foto: auto (detecta o terminal), none, symbols, kitty, sixel ou iterm."
        case .topicRefresh: "Espera fotos novas (ou o erro do Unsplash) em vez da página guardada de antes."

        case .feedKind: "topic ou search."
        case .feedValue: "O slug do tópico, ou a busca."
        case .feedSource: "Para buscas: unsplash (padrão) ou nasa."
        case .followAbstract: "Mantém atualizadas em segundo plano as fotos mais novas de um tópico ou de uma busca."
        case .followKeep: "Quantas das mais novas manter atualizadas, de 1 a 30 (padrão 30)."
        case .unfollowAbstract: "Deixa de seguir um tópico ou uma busca."
        case .feedsAbstract: "Os tópicos e as buscas que você segue."

        case .likeAbstract: "Curte uma foto: ela entra em Minha Coleção (funciona sem rede; a curtida vai para o servidor quando houver rede)."
        case .likeAllowDuplicate: "Curte mesmo que ela pareça com uma foto que já está na biblioteca."
        case .unlikeAbstract: "Desfaz a curtida: tira a foto de Minha Coleção."
        case .dismissAbstract: "Nunca mais mostra uma foto em buscas, feeds ou escolhas aleatórias (fica só nesta máquina)."
        case .dismissUndo: "Traz de volta uma foto descartada."

        case .syncAbstract: "Envia agora as alterações na fila; --wait espera até a fila esvaziar ou falhar."
        case .syncWait: "Espera até não sobrar nada a enviar."
        case .syncTimeout: "Com --wait: desiste depois de tantos segundos (padrão 60)."
        case .pauseAbstract: "Pausa a sincronização: as alterações ficam na fila como sem rede até splashctl resume (mantida entre reinícios)."
        case .pauseFor: "Termina a pausa sozinha depois desse tempo: 30m, 2h, 1d, 1h30m (de 1 min a 30 d)."
        case .pauseDownloadsOnly: "Pausa só downloads e envios de arquivos inteiros; curtidas e edições continuam."
        case .resumeAbstract: "Termina agora uma pausa da sincronização."
        case .queueAbstract: "As alterações aguardando o servidor, e as que ele recusou."
        case .queueListAbstract: "Lista as alterações na fila."
        case .queueListRejected: "Só as alterações que o servidor recusou."
        case .queueRetryAbstract: "Envia de novo, agora, uma alteração recusada ou em espera."
        case .queueDropAbstract: "Desiste de vez de uma alteração (a alteração local fica; o servidor nunca a recebe)."
        case .queueDropYes: "Não pede confirmação."

        case .importAbstract: "Adiciona os arquivos JPEG, PNG e WebP de uma pasta à biblioteca como fotos locais."
        case .importDiscussion:
            """
            Os arquivos ficam onde estão. De cada um são lidos as dimensões, a data EXIF e um hash \
            perceptual; uma quase duplicata de uma foto que já está na biblioteca é informada e ignorada \
            (import.duplicate_threshold). Um arquivo que não pode ser lido é informado e os demais seguem.
            """
        case .importPath: "Uma pasta (ou um arquivo)."
        case .importRecursive: "Também nas subpastas."
        case .importWatch: "Depois continua observando a pasta: fotos novas ou alteradas são importadas assim que aparecem, mesmo após reinícios."
        case .importWatching: "Lista as pastas observadas."
        case .importUnwatch: "Deixa de observar a pasta (as fotos dela ficam na biblioteca)."

        case .editAbstract: "Aplica filtros a uma foto: salva uma edição (o original fica intacto), ou --preview para um arquivo."
        case .editDiscussion:
            """
            Os filtros se aplicam em ordem: --filter sepia:0.8 --filter vignette:1.0,0.6. Parâmetros \
            omitidos assumem o valor padrão; splashctl filters lista todos.
            """
        case .editFilter: "Um filtro, NOME[:P1,P2...]; repita para encadear filtros."
        case .editPreview: "Gera uma pequena prévia neste arquivo JPEG em vez de salvar uma edição; sem arquivo (ou -), desenha aqui o original e a prévia lado a lado."
        case .editSize: "Com --preview: o lado maior em pixels (16-2048, padrão 512)."
        case .editOpen: "Com --preview: abre a prévia com o xdg-open."
        case .filtersAbstract: "Lista os filtros, seus parâmetros, faixas e valores padrão."
        case .editsAbstract: "Suas edições salvas."
        case .editsListAbstract: "Lista as edições, das mais novas às mais antigas (só as de uma foto, se informada)."
        case .editsListID: "Só as edições desta foto."
        case .editsRemoveAbstract: "Remove uma edição aqui, no servidor e no Storage."
        case .editsRemoveID: "O id da edição (basta um prefixo único de splashctl edits list)."

        case .cacheAbstract: "Espaço em disco da biblioteca (mantida) e do cache (esvaziado a partir do que foi usado há mais tempo)."
        case .cacheShowAbstract: "Mostra o uso da biblioteca e do cache."
        case .cachePruneAbstract: "Remove agora arquivos do cache, primeiro os usados há mais tempo. A biblioteca nunca é tocada."
        case .cachePruneKeep: "Mantém esta quantidade de bytes dos arquivos do cache usados mais recentemente (padrão 0: esvazia o cache)."
        case .libraryAbstract: "A biblioteca vista por outros programas."
        case .libraryExportAbstract: "Refaz exatamente a pasta da biblioteca em Imagens (My Collection/, Edits/)."
        case .libraryExportDiscussion: """
            O splashd mantém pictures.folder (padrão: Splash na pasta de imagens do XDG) em dia sozinho: um link \
            físico (um link simbólico entre sistemas de arquivos) por arquivo de foto curtida em My Collection/ e \
            por edição salva em Edits/. Este comando recoloca o que falta ou está errado e remove as entradas do \
            splashd que não deveriam estar lá; os outros arquivos da pasta ficam como estão. Com --check só compara, \
            e sai com status 1 quando a pasta está fora de sincronia.
            """
        case .libraryExportCheck: "Só compara a pasta com a biblioteca; não muda nada (status 1 quando fora de sincronia)."
        case .openAbstract: "Abre a galeria web no seu navegador."
        case .openDiscussion: """
            O splashd serve uma galeria no loopback (web.port, padrão 8426). Este comando pede a ele um endereço que \
            deixa entrar um navegador, uma vez e em até dois minutos, e o abre ($BROWSER, senão xdg-open) por um \
            arquivo que só você pode ler, para o endereço nunca ficar numa linha de comando. O navegador guarda uma \
            sessão por 30 dias; --revoke-all encerra todas, e sair da conta também.
            """
        case .openPrint: "Mostra o endereço de uso único em vez de abri-lo."
        case .openRevokeAll: "Encerra todas as sessões de navegador da galeria."

        case .signupAbstract: "Cria uma conta e entra nela (pede a senha sem mostrá-la)."
        case .signupUsername: "Nome de usuário: de 3 a 32 caracteres entre a-z, 0-9 e '_'."
        case .loginAbstract: "Entra na conta (pede a senha sem mostrá-la)."
        case .logoutAbstract: "Sai da conta; as alterações ainda não enviadas ficam na fila para a conta."
        case .whoamiAbstract: "Quem está com a sessão iniciada."
        case .googleAbstract: "Google Fotos: conecta o splashd ao Google, mostra a conexão, encerra."
        case .googleConnectAbstract: "Autoriza o splashd no Google (no navegador) a ler as fotos que você escolher no Google Fotos."
        case .googleStatusAbstract: "Se o splashd está conectado ao Google, e por que não quando o Google encerrou."
        case .googleDisconnectAbstract: "Revoga o acesso do splashd no Google e esquece os tokens (as fotos importadas ficam)."
        case .importGooglePhotos: "Importa as fotos que você escolher no Google Fotos (depois de splashctl google connect), em vez de uma pasta."
        case .googleRefreshFlag: "Renova o token de acesso agora (pergunta ao Google se a conexão continua valendo)."
        case .guestAbstract: "As curtidas e edições feitas aqui sem conta, guardadas nesta máquina."
        case .guestStatusAbstract: "Quantas curtidas e edições o convidado tem."
        case .guestAdoptAbstract: "Traz as curtidas e edições do convidado para a conta da sessão atual (na fila para o servidor)."
        case .profileAbstract: "Mostra ou altera o seu perfil."
        case .profileShowAbstract: "Mostra o seu perfil."
        case .profileShowRefresh: "Busca o perfil no servidor antes."
        case .setUsernameAbstract: "Altera o seu nome de usuário (vale aqui na hora; é enviado quando houver rede)."
        case .setUsernameName: "De 3 a 32 caracteres entre a-z, 0-9 e '_'."
        case .setUsernameWait: "Espera (até 30 s) o veredito do servidor: nome atualizado, ou o motivo da recusa."
        case .usersAbstract: "O que o servidor diz sobre todas as contas."
        case .usersCountAbstract: "Quantas contas existem."
        case .usersRecentAbstract: "As contas mais novas."
        case .usersRecentLimit(let max, let defaultLimit): "No máximo esta quantidade (1–\(max), padrão \(defaultLimit))."
        }
    }
}
