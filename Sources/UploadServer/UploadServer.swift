import SquallNet
import Synchronization
import TLSKit
import UploadStore

/// Squall's reference resumable-upload server (draft-ietf-httpbis-resumable-upload, interop 3 … 8) over
/// HTTP/1.1, plain or TLS, storing uploads durably in a `FileUploadStore`.
///
/// ```
///   AcceptLoop ──▶ one thread per connection ──▶ RequestReader (HTTP1Parser) ──▶ UploadRequest.classify
///        creation / HEAD / PATCH / DELETE ──▶ UploadSlot (state machine + writer, under its lock) ──▶ store
///        OPTIONS, plain uploads, GET /_squall/uploads ──▶ answered directly
/// ```
///
/// Ready when `init` returns. Requests are anonymous: every upload has the principal `nil` (authentication is a
/// later layer; `UploadConnection.principal` is its seam).
public final class UploadServer: Sendable {
    public let configuration: UploadServerConfiguration
    /// The base URL, e.g. `http://127.0.0.1:40123` or `https://127.0.0.1:40123`.
    public let url: String
    /// The store's folder (the configured one, or the fresh temporary folder made for it).
    public var storeDirectory: String { store.directory }

    let store: FileUploadStore
    let registry = UploadRegistry()
    /// The open connections' sockets, shut down by `stop()`; nil once stopping (a late connection closes at once).
    private let connections = Mutex<[ObjectIdentifier: Socket]?>([:])
    private let loop = Mutex<AcceptLoop?>(nil)

    /// Opens the store, binds the listen address and starts accepting.
    public init(configuration: UploadServerConfiguration = UploadServerConfiguration()) throws {
        self.configuration = configuration
        self.store = try FileUploadStore(
            configuration: UploadStoreConfiguration(directory: configuration.storeDirectory))
        let tls = try configuration.certificateAuthorityDirectory.map(Self.makeTLSContext)
        let listener = try TCPListener(address: configuration.listenAddress)
        let host = listener.address.description
        self.url = (tls == nil ? "http://" : "https://") + host
        let acceptConfiguration = AcceptLoopConfiguration(
            maximumConnections: configuration.maximumConnections, name: "upload-server")
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
        _ = shutDown()?.waitUntilIdle(timeout: .seconds(10))
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

    /// Waits at most `timeout` until no connection is being served; true when none is. Tests use it as the signal
    /// that the server finished with connections their clients closed.
    public func waitUntilIdle(timeout: Duration) -> Bool {
        loop.withLock { $0 }?.waitUntilIdle(timeout: timeout) ?? true
    }

    /// The slot of upload `id`: the one this run created, or one restored from the store (an upload an earlier
    /// run left there); nil when there is no such resumable upload.
    func slot(_ id: String) -> UploadSlot? {
        registry.slot(id) { id in
            store.record(id).flatMap { record in
                UploadSlot.restore(
                    record, location: url + configuration.uploadProtocol.resourcePathPrefix + id,
                    configuration: configuration.uploadProtocol)
            }
        }
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
        do {
            try socket.setNonBlocking(true)
            socket.setNoDelay()
            let stream: any ByteStream =
                try tls.map { try TLSStream.accept(socket: socket, context: $0, timeout: configuration.headTimeout) }
                ?? PlainStream(socket: socket)
            UploadConnection(server: self, socket: socket, stream: stream).run()
        } catch {
            return
        }
    }

    private static func makeTLSContext(directory: String) throws -> TLSContext {
        let authority = try CertificateAuthority.loadOrCreate(directory: directory)
        return try TLSContext(
            server: TLSServerConfiguration { serverName in try authority.leaf(for: serverName ?? "127.0.0.1") })
    }
}
