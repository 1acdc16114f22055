import Foundation
import Glibc
import HTTPExchange
import SquallNet
import Synchronization
import TLSKit
import UploadStore

/// Squall's reference resumable-upload server (draft-ietf-httpbis-resumable-upload, interop 3 … 10) over
/// HTTP/1.1, plain or TLS, storing uploads durably in a `FileUploadStore`.
///
/// ```
///   AcceptLoop ──▶ one thread per connection ──▶ HTTPServerStream (HTTP1Parser) ──▶ UploadRequest.classify
///        creation / HEAD / PATCH / DELETE ──▶ UploadSlot (state machine + writer, under its lock) ──▶ store
///        OPTIONS, plain uploads, GET /_squall/uploads ──▶ answered directly
/// ```
///
/// Ready when `init` returns. Requests are anonymous (every upload has the principal `nil`) unless
/// `configuration.authentication` turns bearer tokens on.
///
/// Completed uploads are removed once `completedRetention` has passed since they ended, and incomplete ones once
/// their `max-age` has: checked when the server starts and then at most once a minute (or once per retention, when
/// that is shorter) as connections arrive (`removeExpiredUploads()` does it at once).
///
/// With `configuration.logPath` the server appends its request log there (`ServerLog`): `start`, then per
/// connection (numbered from 1) each `request` head, each final `response` and each `interrupted` body, and
/// `stop` when `stop()` ends it cleanly.
public final class UploadServer: Sendable {
    public let configuration: UploadServerConfiguration
    /// The base URL, e.g. `http://127.0.0.1:40123` or `https://127.0.0.1:40123`.
    public let url: String
    /// The store's folder (the configured one, or the fresh temporary folder made for it).
    public var storeDirectory: String { store.directory }

    let store: FileUploadStore
    let registry = UploadRegistry()
    /// The bearer tokens, when authentication is on.
    let tokens: TokenAuthority?
    /// The request log, when `configuration.logPath` is set.
    let log: ServerLog?
    /// The number of connections accepted so far: the last connection's id in the log.
    private let connectionCount = Atomic<Int>(0)
    /// How many connections the server accepted so far (an HTTP/2 connection counts once, whatever its streams).
    public var connectionsAccepted: Int { connectionCount.load(ordering: .relaxed) }
    /// When the retention sweep last ran (seconds since 1970).
    private let lastSweep = Mutex<Int64>(0)
    /// The open connections' sockets, shut down by `stop()`; nil once stopping (a late connection closes at once).
    private let connections = Mutex<[ObjectIdentifier: Socket]?>([:])
    private let loop = Mutex<AcceptLoop?>(nil)

    /// Opens the log and the store, binds the listen address and starts accepting. A log file that cannot be
    /// opened is a `ServerLogError` naming it.
    public init(configuration: UploadServerConfiguration = UploadServerConfiguration()) throws {
        self.configuration = configuration
        self.log = try configuration.logPath.map(ServerLog.init(path:))
        if configuration.defectForgetsUploadsAtStart, let folder = configuration.storeDirectory {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                try? FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
        self.store = try FileUploadStore(
            configuration: UploadStoreConfiguration(directory: configuration.storeDirectory))
        self.tokens = try configuration.authentication.map { [store] authentication in
            try TokenAuthority(store: store, lifetime: authentication.tokenLifetime)
        }
        let tls = try configuration.certificateAuthorityDirectory.map { directory in
            try Self.makeTLSContext(directory: directory, http2: configuration.http2)
        }
        let listener = try TCPListener(address: configuration.listenAddress)
        self.url = (tls == nil ? "http://" : "https://") + Self.reachableAuthority(listener.address)
        try sweepIfDue()
        log?.record(
            "start",
            [
                "listen": .string(listener.address.description), "store": .string(store.directory),
                "recovered": .int(Int64(store.list().count)),
            ])
        let limits = configuration.limits
        let acceptConfiguration = AcceptLoopConfiguration(
            maximumConnections: limits.maximumConnections, name: "upload-server",
            shed: { socket in Self.shed(socket, tls: tls, limits: limits) })
        let loop = AcceptLoop(listener: listener, configuration: acceptConfiguration) { [weak self] socket in
            guard let self else { return socket.close() }
            self.serve(socket, tls: tls)
        }
        self.loop.withLock { $0 = loop }
    }

    deinit {
        // No waiting here: the last reference may be dropped by a connection thread.
        _ = shutDown()
    }

    /// Closes the listener, shuts down every open connection (a streaming body counts as interrupted: its bytes
    /// are synced and stay resumable) and waits for the connection threads. Safe to call more than once.
    public func stop() {
        guard let loop = shutDown() else { return }
        _ = loop.waitUntilIdle(timeout: .seconds(10))
        log?.record("stop")
    }

    /// Closes the listener and shuts down the open connections; returns the loop, nil when already stopped.
    private func shutDown() -> AcceptLoop? {
        guard let loop = loop.withLock({ $0.take() }) else { return nil }
        loop.stop()
        for socket in connections.withLock({ Array(($0.take() ?? [:]).values) }) {
            socket.shutdown(reading: true, writing: true)
        }
        return loop
    }

    /// Whether `stop()` (or the last reference going) has begun shutting the server down.
    var isStopping: Bool {
        connections.withLock { $0 == nil }
    }

    /// Waits at most `timeout` until no connection is being served; true when none is. Tests use it as the signal
    /// that the server finished with connections their clients closed.
    public func waitUntilIdle(timeout: Duration) -> Bool {
        loop.withLock { $0 }?.waitUntilIdle(timeout: timeout) ?? true
    }

    /// The slot of upload `id` when it belongs to `principal`: the one this run created, or one restored from the
    /// store (an upload an earlier run left there); nil when there is no such resumable upload, or it is another
    /// principal's.
    func slot(_ id: String, for principal: String?) -> UploadSlot? {
        let slot = registry.slot(id) { id in
            store.record(id).flatMap { record in
                UploadSlot.restore(
                    record, location: url + configuration.uploadProtocol.resourcePathPrefix + id,
                    configuration: configuration.uploadProtocol)
            }
        }
        return slot?.principal == principal ? slot : nil
    }

    /// The offset and completeness of upload `id` as the server knows them now, for the log: its slot's machine
    /// when this run has one, else its store record; nil when there is no such upload.
    func progress(of id: String) -> (offset: Int64, complete: Bool)? {
        if let slot = registry.slot(id, restore: { _ in nil }) {
            return slot.state.withLock { ($0.machine.offset, $0.machine.isComplete) }
        }
        return store.record(id).map { ($0.durableOffset, $0.complete) }
    }

    /// A bearer token for `principal` (`BearerToken.isValidPrincipal`), as `POST /_squall/token` issues it; nil
    /// when authentication is off.
    public func issueToken(for principal: String) -> String? {
        precondition(BearerToken.isValidPrincipal(principal), "invalid principal '\(principal)'")
        return tokens?.issue(principal: principal, now: Self.microsecondsNow()).text
    }

    /// Expires every token issued so far, durably (`POST /_squall/expire-tokens`); clients must get new ones.
    /// Requests already streaming go on. No effect when authentication is off.
    public func expireTokens() throws {
        try tokens?.expireAll(now: Self.microsecondsNow())
    }

    /// Removes completed uploads (and cancelled tombstones) older than the retention, and incomplete uploads past
    /// their `max-age`, from the store; returns their ids. Uploads with a request streaming are left alone.
    @discardableResult
    public func removeExpiredUploads() throws -> [String] {
        let exactNow = Double(Self.microsecondsNow()) / 1_000_000
        let now = Int64(exactNow)
        lastSweep.withLock { $0 = now }
        var removed = try store.removeCompleted(olderThan: Double(configuration.completedRetention), now: exactNow)
        if let maxAge = configuration.uploadProtocol.limits.maxAge {
            let stale = store.list().filter { record in
                record.isOpen && Int64(record.createdAt) + maxAge <= now && !registry.isStreaming(record.id)
            }
            removed += try store.delete(stale.map(\.id))
        }
        registry.remove(removed)
        return removed
    }

    /// Runs `removeExpiredUploads()` when it last ran at least `sweepInterval` ago.
    private func sweepIfDue() throws {
        let now = Int64(time(nil))
        let interval = Self.sweepInterval(retention: Int64(configuration.completedRetention))
        guard lastSweep.withLock({ now - $0 >= interval }) else { return }
        try removeExpiredUploads()
    }

    /// Seconds between retention sweeps: a minute, or the retention when it is shorter (at least a second), so that
    /// a server told to keep completed uploads for a second (a soak's) does not keep a minute of them on disk.
    public static func sweepInterval(retention: Int64) -> Int64 {
        max(1, min(60, retention))
    }

    /// Every upload in the store (tombstones of cancelled ones included), oldest first.
    public func uploads() -> [UploadRecord] {
        store.list()
    }

    private func serve(_ socket: Socket, tls: TLSContext?) {
        let key = ObjectIdentifier(socket)
        defer {
            connections.withLock { $0?[key] = nil }
            socket.close()
        }
        let open = connections.withLock { sockets in
            sockets?[key] = socket
            return sockets != nil
        }
        guard open else { return }
        // The head timeout counts from here, right after the accept: the TLS handshake is part of it.
        let headTimeout = configuration.limits.headTimeout
        let deadline = ContinuousClock.now + headTimeout
        do {
            try? sweepIfDue()
            try socket.setNonBlocking(true)
            socket.setNoDelay()
            let stream: any ByteStream =
                try tls.map { try TLSStream.accept(socket: socket, context: $0, timeout: deadline - .now) }
                ?? PlainStream(socket: socket)
            let id = connectionCount.add(1, ordering: .relaxed).newValue
            if configuration.http2, Self.speaksHTTP2(stream, socket: socket, before: deadline) {
                let limits = HTTP2ServerConnection.Limits(idleTimeout: configuration.limits.idleTimeout)
                try HTTP2ServerConnection(stream: stream, limits: limits).run(firstHeadDeadline: deadline) { exchange in
                    // Each stream's head came whole in one HEADERS block before the stream began.
                    UploadConnection(
                        server: self, id: id, channel: exchange, reader: exchange, firstHeadDeadline: .now + headTimeout
                    ).run()
                }
            } else {
                UploadConnection(
                    server: self, id: id, channel: socket, reader: HTTPServerStream(stream: stream),
                    firstHeadDeadline: deadline
                ).run()
            }
        } catch {
            return
        }
    }

    /// Whether the peer speaks HTTP/2: over TLS, when ALPN chose `h2`; over cleartext, when its first bytes are the
    /// HTTP/2 connection preface (RFC 9113 §3.3, prior knowledge), looked at without taking them.
    private static func speaksHTTP2(_ stream: any ByteStream, socket: Socket, before deadline: ContinuousClock.Instant)
        -> Bool
    {
        if let secure = stream as? TLSStream { return secure.session?.alpn == "h2" }
        return HTTP2Preface.comes(on: socket, before: deadline)
    }

    /// Answers a connection over `limits.maximumConnections` with a 503 (after its TLS handshake, within the head
    /// timeout and at most 2 s) and closes it.
    private static func shed(_ socket: Socket, tls: TLSContext?, limits: ListenerLimits) {
        defer { socket.close() }
        guard (try? socket.setNonBlocking(true)) != nil else { return }
        let handshake = min(limits.headTimeout, .seconds(2))
        let stream: any ByteStream
        if let tls {
            guard let secure = try? TLSStream.accept(socket: socket, context: tls, timeout: handshake) else { return }
            stream = secure
        } else {
            stream = PlainStream(socket: socket)
        }
        HTTPServerStream.shed(
            stream,
            message: "squall server: \(limits.maximumConnections) connections are open, the most it serves at once;"
                + " try again later (--max-connections raises the limit)")
    }

    /// `host:port` of `address` as clients reach it: a wildcard listen address (`0.0.0.0`, `::`) becomes the
    /// loopback address of its family.
    static func reachableAuthority(_ address: SocketAddress) -> String {
        switch address.host {
        case "0.0.0.0": "127.0.0.1:\(address.port)"
        case "::": "[::1]:\(address.port)"
        default: address.description
        }
    }

    /// The time since 1970 (CLOCK_REALTIME, to the nanosecond): the clock of the upload state machines and the
    /// tokens. It is the wall clock because `max-age` and token lifetimes count from times kept in the store across
    /// restarts; a step of the clock can delay or advance a progress 104, never add one over `progressLimit`.
    static func wallClock() -> Duration {
        WallClock.sinceEpoch()
    }

    /// Microseconds since 1970: the token clock.
    static func microsecondsNow() -> Int64 {
        WallClock.unixMicroseconds()
    }

    private static func makeTLSContext(directory: String, http2: Bool) throws -> TLSContext {
        let authority = try CertificateAuthority.loadOrCreate(directory: directory)
        var configuration = TLSServerConfiguration { serverName in try authority.leaf(for: serverName ?? "127.0.0.1") }
        if http2 { configuration.alpn = ["h2", "http/1.1"] }
        return try TLSContext(server: configuration)
    }
}
