/// One control method. The conforming type is the method's params; `Result` is what it answers.
/// Each type documents itself (summary, parameters, examples), which is what `daemon.describe`
/// serves and what the golden-JSON tests pin down.
public protocol RPCRequest: Codable, Sendable, Equatable {
    associatedtype Result: Codable & Sendable & Equatable

    /// `noun.verb`, e.g. `daemon.status`.
    static var method: String { get }
    static var summary: String { get }
    static var parameters: [ParameterDoc] { get }
    /// The error kinds this method can answer besides the generic protocol ones.
    static var errors: [ErrorKind] { get }
    static var example: Self { get }
    static var resultExample: Result { get }
    /// Whether `$/cancelRequest` may stop it while it is worked on: only methods that change nothing
    /// (a preview), so that a cancelled request has done nothing at all.
    static var isCancellable: Bool { get }

    /// Checks values that types alone cannot (ranges, enumerations carried as strings). The daemon
    /// calls it before a handler runs; splashctl may call it before sending.
    func validate() throws(RPCError)
}

extension RPCRequest {
    public static var parameters: [ParameterDoc] { [] }
    public static var errors: [ErrorKind] { [] }
    public static var isCancellable: Bool { false }

    public func validate() throws(RPCError) {}
}

/// Params for methods that take none. Decodes from `{}` or an absent `params`.
public struct NoParams: Codable, Sendable, Equatable {
    public init() {}
}

public struct ParameterDoc: Codable, Sendable, Equatable {
    public var name: String
    public var type: String
    public var required: Bool
    public var summary: String

    public init(_ name: String, _ type: String, required: Bool = false, _ summary: String) {
        self.name = name
        self.type = type
        self.required = required
        self.summary = summary
    }
}
