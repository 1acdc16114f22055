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
/// Once a running proxy is attached (`attach(_:)`), the native endpoints under `/squall/` and `GET /metrics` are
/// served too (see `ControlAPIHandler+Native.swift`), and the Toxiproxy proxies get real listeners: each change
/// starts and stops them through the runtime before it commits (see `ToxiproxyListeners`), so a proxy created with
/// `listen: "127.0.0.1:0"` reads back with its bound port, and a failed bind commits nothing.
///
///     request ──▶ authorize ──▶ route ──▶ registry copy ──mutate──▶ listeners ──▶ commit + generation += 1
///                    │401          │404/405          │400/404/409        │400        ──▶ onChange
///                                                  (nothing committed on any failure)
public final class ControlAPIHandler: Sendable {
    public let configuration: ControlAPIConfiguration
    private let state = Mutex(State())
    /// Held for the whole of a change, so changes (and their listener calls) never interleave; reads take only
    /// `state`, briefly, so a runtime may call `rules(for:)` from inside `startListener`.
    private let changes = Mutex(())
    private let attached = Mutex(AttachedRuntime())
    private let onChange: @Sendable (UInt64) -> Void

    private struct State: Sendable {
        var registry = ToxiproxyRegistry()
        var generation: UInt64 = 0
    }

    /// The running proxy, held weakly: the proxy owns the handler, not the other way round.
    private struct AttachedRuntime: Sendable {
        weak var runtime: (any ProxyRuntime)?
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
        answer(head, body: body).encoded()
    }

    /// Handles one request like `handle`; a `GET /squall/events` is answered with the head of an event stream
    /// and `eventStreamFrom`, which the server then feeds with `events(from:wait:)` until the peer goes.
    public func respond(_ head: RequestHead, body: [UInt8]) -> ControlAPIResponse {
        let reply = answer(head, body: body)
        let (responseHead, content) = reply.encoded()
        return ControlAPIResponse(head: responseHead, body: content, eventStreamFrom: reply.eventStreamFrom)
    }

    private func answer(_ head: RequestHead, body: [UInt8]) -> ControlAPIReply {
        if configuration.token == nil, let refusal = Self.foreignRequest(head) {
            return ControlAPIReply(error: refusal)
        }
        if !Self.isPublic(head), let challenge = challenge(for: head) {
            let error = ControlAPIError(.unauthorized, "missing or invalid bearer token")
            return ControlAPIReply(error: error, challenge: challenge)
        }
        guard body.count <= configuration.maxBodyBytes else {
            let error = ControlAPIError(.bodyTooLarge, "request body over \(configuration.maxBodyBytes) bytes")
            return ControlAPIReply(error: error)
        }
        do {
            return try route(head, body)
        } catch {
            return ControlAPIReply(error: error)
        }
    }

    /// The response a server sends for an error it found before a request reached `handle` (malformed HTTP, a
    /// body over the limit): Toxiproxy's JSON error shape with the error's status.
    public static func response(for error: ControlAPIError) -> (ResponseHead, [UInt8]) {
        ControlAPIReply(error: error).encoded()
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

    /// Attaches the running proxy: from now on the native endpoints answer, and proxies created, changed or
    /// deleted through the Toxiproxy API get their listeners started and stopped. Attach before serving requests:
    /// proxies that exist already get no listener until they change.
    public func attach(_ runtime: any ProxyRuntime) {
        attached.withLock { $0.runtime = runtime }
    }

    /// The attached proxy, while it lives.
    var runtime: (any ProxyRuntime)? { attached.withLock { $0.runtime } }

    /// Applies a change to a copy of the registry and commits it only if the change succeeds.
    func change<T: Sendable>(
        _ body: (inout ToxiproxyRegistry) throws(ControlAPIError) -> T
    ) throws(ControlAPIError) -> T {
        try transact(body).result
    }

    /// Applies a change that names the proxies it made or touched, and returns them as committed (with the
    /// addresses their listeners bound).
    func changeProxies(
        _ body: (inout ToxiproxyRegistry) throws(ControlAPIError) -> [String]
    ) throws(ControlAPIError) -> [ToxiproxyProxy] {
        let (names, registry) = try transact(body)
        return names.compactMap { registry.proxies[$0] }
    }

    /// Copies the registry, applies `body`, moves the listeners to match, then commits and reports the change.
    private func transact<T: Sendable>(
        _ body: (inout ToxiproxyRegistry) throws(ControlAPIError) -> T
    ) throws(ControlAPIError) -> (result: T, registry: ToxiproxyRegistry) {
        let runtime = runtime
        let (result, registry, generation) = try changes.withLock {
            (_: inout ()) throws(ControlAPIError) -> (T, ToxiproxyRegistry, UInt64) in
            let before = state.withLock { $0.registry }
            var registry = before
            let result = try body(&registry)
            if let runtime {
                try ToxiproxyListeners(runtime: runtime).follow(from: before, to: &registry)
            }
            let generation = state.withLock { state in
                state.registry = registry
                state.generation += 1
                return state.generation
            }
            return (result, registry, generation)
        }
        onChange(generation)
        return (result, registry)
    }

    /// Without a token the API trusts whoever reaches its loopback address, which a web page in the user's browser
    /// can too: by posting to 127.0.0.1 (its `Origin` says where it comes from) or by rebinding its own name to
    /// 127.0.0.1 (its `Host` then names that site). So a `Host` must be a loopback name or address, and an
    /// `Origin`, when sent, a loopback one (`null`, a local file or sandboxed page, is refused too). Requests
    /// without either (curl, `squall fault`, Toxiproxy clients that send no `Host`) are served.
    static func foreignRequest(_ head: RequestHead) -> ControlAPIError? {
        if let host = head.fields["Host"], !isLoopbackName(authorityHost(host)) {
            return ControlAPIError(
                .forbidden,
                "Host \(host) is not a loopback name: without --api-token the control API answers only requests "
                    + "to 127.0.0.1, localhost or [::1]; give the proxy --api-token to reach it by another name")
        }
        if let origin = head.fields["Origin"] {
            let parts = origin.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "http" || parts[0] == "https",
                isLoopbackName(authorityHost(String(parts[1])))
            else {
                return ControlAPIError(
                    .forbidden,
                    "a page of \(origin) may not use the control API: without --api-token only its own pages "
                        + "(served from 127.0.0.1, localhost or [::1]) may")
            }
        }
        return nil
    }

    /// The host of an authority (`host`, `host:port`, `[v6]:port`), lower-cased.
    static func authorityHost(_ authority: String) -> String {
        HTTPAuthority.split(Substring(authority)).host.lowercased()
    }

    /// `localhost` (RFC 6761 §6.3), an address of 127.0.0.0/8, or `::1`.
    static func isLoopbackName(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                && Int(part).map { $0 <= 255 } == true
        }
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
