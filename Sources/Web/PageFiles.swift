import Hummingbird
import HummingbirdWebSocket
import Logging

/// The page's files (index.html, its scripts and styles), served from `root` by Hummingbird's
/// `FileMiddleware` for every path but the daemon's own: a picture (`/images/…`) and the WebSocket
/// (`/rpc`) go straight to their routes. `FileMiddleware` looks a path up on NIO's thread pool before it
/// lets a request through, and that hand-over there and back was a third of a thumbnail's cost.
struct PageFiles: RouterMiddleware {
    typealias Context = BasicWebSocketRequestContext

    let files: FileMiddleware<Context, LocalFileSystem>

    init(root: String, logger: Logger) {
        // Asked again each time (a changed page after an upgrade shows at once); ETags keep that cheap.
        files = FileMiddleware(
            root, cacheControl: .init([(MediaType(type: .any), [.noCache])]), searchForIndexHtml: true, logger: logger)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/images/") || path == "/rpc" {
            return try await next(request, context)
        }
        return try await files.handle(request, context: context, next: next)
    }
}
