/// Why a sign-in with a provider did not complete. The daemon puts it into the protocol's words.
public enum ProviderSignInFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No sign-in of that name: never begun, finished already, or given up.
    case unknownFlow
    /// The browser did not come back before the listener gave up.
    case timedOut(minutes: Int)
    /// The callback carried another state than the one this sign-in sent: not its answer.
    case wrongState
    /// The provider or the account server refused (`error=access_denied`, …), in its words.
    case refused(error: String, description: String)
    /// The callback had neither a code nor an error.
    case noCode
    /// A pasted address that is not this sign-in's callback.
    case notACallback(url: String)
    /// The listener could not be opened.
    case cannotListen(detail: String)

    public var description: String {
        switch self {
        case .unknownFlow: "no such sign-in (finished, given up, or never begun)"
        case .timedOut(let minutes): "the browser did not come back within \(minutes) minutes"
        case .wrongState: "the callback's state is not this sign-in's"
        case .refused(let error, let description): "refused: \(error) (\(description))"
        case .noCode: "the callback carried no code"
        case .notACallback(let url): "not this sign-in's callback address: \(url)"
        case .cannotListen(let detail): "cannot listen on 127.0.0.1: \(detail)"
        }
    }
}
