import FaultEngine
import HTTPWire
import Synchronization

/// The control API's request handling, without sockets: a request head and its body in, a response out.
///
/// It serves the Toxiproxy-compatible subset (see `ControlAPIHandler+Routes.swift`) over a registry of proxies,
/// so Toxiproxy's client libraries drive Squall unchanged. Every toxic maps onto a `FaultRule`; the proxy reads
/// them with `rules(for:)`, which copies a snapshot out under a short lock and never waits on a request being
/// handled for longer than that copy. Each change bumps `generation` and calls `onChange` with the new value
/// (outside the lock; under concurrent changes the calls may arrive out of order, so re-read `rules(for:)`).
///
///     request ──▶ authorize ──▶ route ──▶ registry copy ──mutate──▶ commit + generation += 1 ──▶ onChange
///                    │401          │404/405          │400/404/409 (nothing committed)
public final class ControlAPIHandler: Sendable {
    public let configuration: ControlAPIConfiguration
    private let state = Mutex(State())
    private let onChange: @Sendable (UInt64) -> Void

    private struct State: Sendable {
        var registry = ToxiproxyRegistry()
        var generation: UInt64 = 0
    }

    public init(
        configuration: ControlAPIConfiguration = ControlAPIConfiguration(),
        onChange: @escaping @Sendable (UInt64) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.onChange = onChange
    }

    /// Handles one request: authorization, the body limit, then the endpoint.
    public func handle(_ head: RequestHead, body: [UInt8]) -> (ResponseHead, [UInt8]) {
        if let challenge = challenge(for: head) {
            let error = ControlAPIError(.unauthorized, "missing or invalid bearer token")
            return ControlAPIReply(error: error, challenge: challenge).encoded()
        }
        guard body.count <= configuration.maxBodyBytes else {
            let error = ControlAPIError(.bodyTooLarge, "request body over \(configuration.maxBodyBytes) bytes")
            return ControlAPIReply(error: error).encoded()
        }
        do {
            return try route(head, body).encoded()
        } catch {
            return ControlAPIReply(error: error).encoded()
        }
    }

    /// How many changes the registry has seen; it grows by one per successful change.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// The fault rules of a proxy's toxics in the order they were added; empty for an unknown proxy.
    public func rules(for proxy: String) -> [FaultRule] {
        state.withLock { $0.registry.proxies[proxy] }?.rules ?? []
    }

    /// A snapshot of every proxy by name.
    public var proxies: [String: ToxiproxyProxy] { state.withLock { $0.registry.proxies } }

    /// Reads the registry under the lock.
    func read<T: Sendable>(_ body: (ToxiproxyRegistry) throws(ControlAPIError) -> T) throws(ControlAPIError) -> T {
        try state.withLock { (state: inout State) throws(ControlAPIError) -> T in try body(state.registry) }
    }

    /// Applies a change to a copy of the registry and commits it only if the change succeeds.
    func change<T: Sendable>(
        _ body: (inout ToxiproxyRegistry) throws(ControlAPIError) -> T
    ) throws(ControlAPIError) -> T {
        let (result, generation) = try state.withLock { (state: inout State) throws(ControlAPIError) -> (T, UInt64) in
            var registry = state.registry
            let result = try body(&registry)
            state.registry = registry
            state.generation += 1
            return (result, state.generation)
        }
        onChange(generation)
        return result
    }

    /// The `WWW-Authenticate` challenge when a token is configured and the request lacks it (RFC 6750 §3).
    private func challenge(for head: RequestHead) -> String? {
        guard let token = configuration.token else { return nil }
        let realm = "Bearer realm=\"squall\""
        guard let credentials = head.fields["Authorization"] else { return realm }
        let prefix = "bearer "
        guard credentials.lowercased().hasPrefix(prefix),
            Self.constantTimeEqual(Array(credentials.utf8.dropFirst(prefix.utf8.count)), Array(token.utf8))
        else {
            return realm + ", error=\"invalid_token\""
        }
        return nil
    }

    /// Compares without stopping at the first difference, so timing does not reveal how much of a token matched.
    private static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
