import Account
import Control
import Library
import Logging
import PhotoSources
import Shared
import Sync

/// Every control method's handler, registered in one place. Handlers are thin: they check, call the
/// domain and return its answer; the domain's errors are put into the protocol's terms by
/// `WireErrors`, and JSON-RPC is the router's concern.
enum Routes {
    static func make(
        state: DaemonState, library: PhotoLibrary, logger: Logger, account: AccountCapability? = nil, sync: SyncCapability? = nil,
        search: SearchService? = nil, feeds: FeedService? = nil,
        images: ImageCapability? = nil, edits: EditCapability? = nil, imports: ImportCapability? = nil, guests: GuestCapability? = nil,
        pictures: PictureCapability? = nil, picturesFolder: PicturesFolderService? = nil, google: GoogleCapability? = nil,
        gallery: GalleryCapability? = nil, pause: SyncPause? = nil
    ) -> Router {
        var router = Router(logger: logger, wireError: WireErrors.rpcError(for:))
        let guests = guests ?? GuestCapability(
            adoption: GuestAdoption(store: library.store, announce: sync?.announce ?? state.announcements(outboxQueued: {})), logger: logger)
        AccountRoutes.register(into: &router, account: account, state: state, guests: guests, gallery: gallery)
        GuestRoutes.register(into: &router, state: state, guests: guests)
        LibraryRoutes.register(
            into: &router, state: state, library: library, sync: sync, pause: pause,
            duplicateThreshold: imports?.importer.duplicateThreshold ?? 8, likeCheck: images?.likeCheck, logger: logger)
        SourceRoutes.register(into: &router, state: state, search: search, feeds: feeds)
        ImageRoutes.register(
            into: &router, state: state, library: library, images: images, search: search, network: sync?.network ?? .alwaysOnline,
            duplicateThreshold: imports?.importer.duplicateThreshold ?? 8, pictures: pictures)
        EditRoutes.register(into: &router, state: state, edits: edits)
        ImportRoutes.register(into: &router, imports: imports)
        ExportRoutes.register(into: &router, picturesFolder: picturesFolder)
        GoogleRoutes.register(into: &router, state: state, google: google)
        WebRoutes.register(into: &router, gallery: gallery)

        // Answered from memory, on the thread that read the request (Router.registerImmediate).
        router.registerImmediate(PingRequest.self) { _ in
            PingResult(pong: true, version: SplashVersion.current)
        }
        router.registerImmediate(StatusRequest.self) { _ in
            state.status()
        }
        router.register(DescribeRequest.self) { _, _ in
            DescribeResult(
                version: SplashVersion.current,
                methods: MethodRegistry.all.map(MethodRegistry.description(of:)),
                events: EventType.allCases.map(\.rawValue))
        }
        router.register(PhotosListRequest.self, encoded: { request, _ in
            try library.list(request, accountId: state.current.account.userId ?? "")
        })
        router.register(SubscribeRequest.self) { request, connection in
            let types = request.types.map { Set($0.compactMap(EventType.init(rawValue:))) }
            let sink = connection.sink
            let subscription = state.bus.subscribe(types: types, snapshot: state.status) { sink.offer($0) }
            guard connection.attach(subscription: subscription.id, cancel: { state.bus.unsubscribe(subscription.id) }) else {
                throw DaemonFailure.connectionClosing
            }
            return SubscribeResult(subscription: subscription.id, seq: subscription.seq, snapshot: subscription.snapshot)
        }
        router.register(UnsubscribeRequest.self) { request, connection in
            guard connection.detach(subscription: request.subscription) else {
                throw DaemonFailure.unknownSubscription(request.subscription)
            }
            return UnsubscribeResult(unsubscribed: true)
        }
        return router
    }
}
