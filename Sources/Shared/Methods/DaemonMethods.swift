import Foundation

/// `daemon.ping`: answers at once; proves the socket and the router work.
public struct PingRequest: RPCRequest {
    public typealias Result = PingResult
    public static let method = "daemon.ping"
    public static let summary = "Answers at once, without touching the store or the network."
    public static let example = PingRequest()
    public static let resultExample = PingResult(pong: true, version: "0.1.0")
    public init() {}
}

public struct PingResult: Codable, Sendable, Equatable {
    public var pong: Bool
    public var version: String
    public init(pong: Bool, version: String) {
        self.pong = pong
        self.version = version
    }
}

/// `daemon.status`: what the daemon is, where it keeps things, and the state of everything it does.
public struct StatusRequest: RPCRequest {
    public typealias Result = DaemonStatus
    public static let method = "daemon.status"
    public static let summary = "Version, process, directories, account, connectivity, outbox depth and library counts."
    public static let example = StatusRequest()
    public static let resultExample = DaemonStatus.example
    public init() {}
}

/// `daemon.describe`: every method with its params and result, so the protocol documents itself.
public struct DescribeRequest: RPCRequest {
    public typealias Result = DescribeResult
    public static let method = "daemon.describe"
    public static let summary = "Lists every method with its parameters, errors and example params and result."
    public static let example = DescribeRequest()
    public static let resultExample = DescribeResult(
        version: "0.1.0",
        methods: [MethodDescription(
            name: PingRequest.method, summary: PingRequest.summary, params: [], errors: [],
            paramsExample: .object([:]), resultExample: .object(["pong": .bool(true), "version": .string("0.1.0")]))],
        events: EventType.allCases.map(\.rawValue))
    public init() {}
}

public struct DescribeResult: Codable, Sendable, Equatable {
    public var version: String
    public var methods: [MethodDescription]
    public var events: [String]
    public init(version: String, methods: [MethodDescription], events: [String]) {
        self.version = version
        self.methods = methods
        self.events = events
    }
}

public struct MethodDescription: Codable, Sendable, Equatable {
    public var name: String
    public var summary: String
    public var params: [ParameterDoc]
    public var errors: [ErrorKind]
    public var paramsExample: JSONValue
    public var resultExample: JSONValue
    /// True for the methods `$/cancelRequest` can stop (see CancelRequest); absent for the others.
    public var cancellable: Bool?
}
