import HTTPWire

/// One fault: a name, a match, a trigger, an action, the direction it shapes, and how often it may fire.
///
/// `times` caps the firings (nil: unlimited). `probability` (0…1, default 1) is rolled each time the match
/// holds, from the engine's seed. A rule that is not `optional` must fire at least once, or the scenario fails.
///
/// Scope: a connection action (reset, close, stall, latency, bandwidth, slice, limit, slow-close, refuse) whose
/// match looks at no request and whose trigger is `on-match`, `after` or `window` arms once per connection, as it
/// opens (Toxiproxy's toxics behave so). Every other rule arms per request, on the request head.
public struct FaultRule: Sendable, Hashable {
    public let name: String
    public let match: FaultMatch
    public let trigger: FaultTrigger
    public let action: FaultAction
    /// The stream shaped (or for `rewrite-header`, the head rewritten: upstream the request's, downstream the
    /// response's). Defaults to `both`, or `downstream` for `rewrite-header`.
    public let direction: FaultDirection
    public let times: Int?
    public let probability: Double
    public let optional: Bool

    /// A validated rule; see `validate` for what is rejected.
    public init(
        name: String, match: FaultMatch = FaultMatch(), trigger: FaultTrigger = .onMatch, action: FaultAction,
        direction: FaultDirection? = nil, times: Int? = nil, probability: Double = 1, optional: Bool = false
    ) throws(FaultError) {
        self.name = name
        self.match = match
        self.trigger = trigger
        self.action = action
        self.direction = direction ?? action.defaultDirection
        self.times = times
        self.probability = probability
        self.optional = optional
        try validate(explicitDirection: direction != nil)
    }

    /// Whether the rule arms once per connection (as the connection opens) rather than per request.
    public var armsPerConnection: Bool {
        guard action.isConnectionAction, !match.needsRequest else { return false }
        switch trigger {
        case .onMatch, .after, .window: return true
        case .atOffset, .afterResponseBytes: return false
        }
    }

    private func validate(explicitDirection: Bool) throws(FaultError) {
        guard !name.isEmpty else { throw FaultError(.invalidValue, path: "name", "a fault needs a non-empty name") }
        guard probability >= 0, probability <= 1 else {
            throw FaultError(.invalidValue, path: "probability", "\(probability) is outside 0…1")
        }
        if let times, times < 1 { throw FaultError(.invalidValue, path: "times", "times must be at least 1") }
        for (key, nth) in [("match.nth-connection", match.nthConnection), ("match.nth-request", match.nthRequest)] {
            if let nth, nth < 1 { throw FaultError(.invalidValue, path: key, "counts start at 1, got \(nth)") }
        }
        if explicitDirection, !action.takesDirection {
            throw FaultError(.notApplicable, path: "direction", "action \"\(action.name)\" takes no direction")
        }
        try action.family.validate(action, in: self)
        try validateTrigger()
    }

    /// A header field a fault puts on the wire must be one HTTP can carry: a token name, a value without CR, LF,
    /// NUL or whitespace at its ends (RFC 9110 §5.1, §5.5); else the head would be split or never sent.
    static func checkSendable(name: String, value: String, path: String) throws(FaultError) {
        do {
            try HTTP1Serializer.checkField(name: name, value: value)
        } catch {
            let rule =
                error.code == .invalidFieldName
                ? "a field name must be a token (letters, digits and !#$%&'*+-.^_`|~)"
                : "a field value cannot hold CR, LF, NUL or other control bytes, nor start or end with whitespace"
            throw FaultError(.invalidValue, path: path, "\(rule): \(error.detail)")
        }
    }

    private func validateTrigger() throws(FaultError) {
        let timing = action.timing(direction: direction)
        switch trigger {
        case .onMatch:
            return
        case .window(let from, let until):
            guard from < until else {
                throw FaultError(.invalidValue, path: "trigger.window", "from must precede until")
            }
        case .atOffset(let position, _):
            guard timing == .anytime else { throw notApplicable() }
            try validateUploadBody(position)
        case .afterResponseBytes(let bytes):
            guard timing == .anytime else { throw notApplicable() }
            guard bytes >= 0 else { throw FaultError(.invalidSize, path: "trigger.after-response-bytes", "negative") }
        case .after:
            guard timing == .anytime else { throw notApplicable() }
        }
    }

    private func validateUploadBody(_ position: UploadPosition) throws(FaultError) {
        if case .bytes(let bytes) = position, bytes < 0 {
            throw FaultError(.invalidSize, path: "trigger.at-offset", "an offset cannot be negative")
        }
        let uploadMethods: Set<HTTPMethod> = [.post, .put, .patch]
        if let method = match.method, !uploadMethods.contains(method) {
            let what = position.needsLength ? "a percentage needs the upload's length" : "an offset needs an upload"
            throw FaultError(.notApplicable, path: "trigger.at-offset", "\(what); \(method) requests carry none")
        }
        if direction == .downstream {
            throw FaultError(.notApplicable, path: "trigger.at-offset", "upload offsets are in the upstream body")
        }
    }

    private func notApplicable() -> FaultError {
        FaultError(
            .notApplicable, path: "trigger.\(trigger.name)", "action \"\(action.name)\" takes only on-match or window")
    }
}
