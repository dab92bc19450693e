/// A method whose capability this daemon does not have: its engine could not start (the log says
/// why), or a router built without it (tests). Every route registers whatever the daemon has, so the
/// method still answers — always with this one error, one wire kind.
struct CapabilityMissing: Error, Equatable, CustomStringConvertible {
    /// What is missing, in a person's words: "editing", "accounts".
    let capability: String

    init(_ capability: String) {
        self.capability = capability
    }

    var description: String { "not available in this daemon: \(capability) (its log says why)" }
}
