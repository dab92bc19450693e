import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket

/// Every request to the gallery passes here first, as Syncthing's, Jupyter's and Tailscale's web
/// interfaces guard theirs:
/// - `Host` must name loopback with the gallery's port (`localhost`, `127.0.0.1`, `[::1]`), or 403:
///   a page of another site that a DNS name rebinds to 127.0.0.1 gets nothing.
/// - `/?token=` trades a one-time token for the session cookie (HttpOnly, SameSite=Strict, named for
///   the port) and redirects to `/`, so the token leaves the address bar and the history. A used
///   token in a browser that has a session just goes to `/`.
/// - Anything else needs the cookie, or 401.
/// - A request that could change something (any method but GET and HEAD) needs
///   `Sec-Fetch-Site: same-origin`, or without that header an `Origin` equal to the gallery's; the
///   WebSocket at `/rpc` needs that `Origin` always (browsers send it; a page elsewhere cannot fake it).
/// - Every answer, refusals included, carries a strict content security policy, no framing, no
///   sniffing, no referrer, and no CORS header at all.
struct GalleryGuard: RouterMiddleware {
    typealias Context = BasicWebSocketRequestContext

    let sessions: GallerySessions
    /// The port the gallery listens on (the same on 127.0.0.1 and ::1).
    let port: @Sendable () -> Int?

    static var cookiePrefix: String { "splashd-gallery-" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await guarded(request, context: context, next: next)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        Self.secure(&response.headers)
        return response
    }

    private func guarded(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let port = port(), let authority = request.head.authority?.lowercased(),
              ["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)"].contains(authority) else {
            return Self.refusal(.forbidden, "This address is not the gallery's: open it with splashctl open.")
        }
        let origin = "http://\(authority)"
        let cookieName = Self.cookiePrefix + String(port)
        let session = request.cookies[cookieName]?.value
        if request.uri.path == "/", let token = request.uri.queryParameters["token"] {
            guard request.method == .get, let cookie = sessions.redeem(String(token)) else {
                // An old link in a browser that is let in already opens the gallery all the same.
                if let session, sessions.admits(cookie: session) { return Response(status: .seeOther, headers: [.location: "/"]) }
                return Self.refusal(.unauthorized, "This link was used already or has expired. Run splashctl open for a new one.")
            }
            var response = Response(status: .seeOther, headers: [.location: "/", .cacheControl: "no-store"])
            response.setCookie(Cookie(
                name: cookieName, value: cookie, maxAge: Int(GallerySessions.sessionLife), path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        guard let session, sessions.admits(cookie: session) else {
            return Self.refusal(.unauthorized, "Open the gallery with splashctl open: it gives this browser a key.")
        }
        // One Origin, the gallery's: two of them (a client that adds its own to another's) is none.
        let origins = request.headers[values: .origin]
        let sentOrigin = origins.count == 1 ? origins[0] : nil
        if request.uri.path == "/rpc", sentOrigin != origin {
            return Self.refusal(.forbidden, "The gallery's connection is open only to the gallery's own page.")
        }
        if request.method != .get && request.method != .head {
            let fetchSite = request.headers[Self.secFetchSite]
            let sameOrigin = fetchSite.map { $0 == "same-origin" } ?? (sentOrigin == origin)
            guard sameOrigin else { return Self.refusal(.forbidden, "A change is accepted only from the gallery's own page.") }
        }
        return try await next(request, context)
    }

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!

    /// The headers every answer carries. `connect-src 'self'` lets the page open its own WebSocket.
    static func secure(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
        headers[Self.frameOptions] = "DENY"
        headers[Self.contentTypeOptions] = "nosniff"
        headers[Self.referrerPolicy] = "no-referrer"
        headers[Self.resourcePolicy] = "same-origin"
        headers[Self.openerPolicy] = "same-origin"
    }

    // Named once, not parsed again for every answer (every thumbnail of a grid passes here).
    static let frameOptions = HTTPField.Name("X-Frame-Options")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let resourcePolicy = HTTPField.Name("Cross-Origin-Resource-Policy")!
    static let openerPolicy = HTTPField.Name("Cross-Origin-Opener-Policy")!

    /// A refusal a person may see in the tab: plain text that says what to do.
    static func refusal(_ status: HTTPResponse.Status, _ words: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: words + "\n")))
    }
}
