import Glibc
import HTTPExchange
import HTTPWire
import ResumableUpload
import TLSKit

/// The connections of one `UploadTransfer.run()`: reuses a kept-alive connection per endpoint, runs each
/// request's exchange and feeds what happens to the machine.
struct TransferSession {
    let transfer: UploadTransfer
    let fileDescriptor: Int32
    var connection: HTTPClientConnection?
    var tls: TLSContext?
    /// The file's SHA-256, once a completing request needed it.
    var representationDigest: [UInt8]?
    /// Requests sent again in a row because the server did not process them.
    var refusedRetries = 0

    init(transfer: UploadTransfer, fileDescriptor: Int32) {
        self.transfer = transfer
        self.fileDescriptor = fileDescriptor
    }

    var configuration: TransferConfiguration { transfer.configuration }

    mutating func close() {
        connection?.close()
        connection = nil
    }

    /// The cached preflight answer for the creation URL, or an OPTIONS request's (not-found answers count as
    /// `unknown`, and so does a preflight that could not reach the server: the creation will say more).
    mutating func preflight(version: InteropVersion) -> PreflightResult {
        var fields = TransferRequest.carriedFields(configuration.headerFields)
        version.stamp(&fields)
        let head = RequestHead(method: .options, target: transfer.url.target, fields: fields)
        return transfer.preflightCache.answer(for: transfer.url.description, version: version) {
            do {
                let response = try exchange(head, on: transfer.url.endpoint, body: nil, retryStale: true) { _ in true }
                return PreflightResult(response: response.head, version: version)
            } catch {
                return .unknown(status: nil)
            }
        }
    }

    /// Sends `request`, feeding interim responses and progress to `machine` as they come, and returns the
    /// machine's actions after the final response (or the failure). Events are reported at once.
    mutating func perform(
        _ request: TransferRequest, machine: inout TransferStateMachine
    ) -> [TransferStateMachine.Action] {
        if transfer.takeCancellation() { return machine.handle(.cancelled) }
        refusedRetries = 0
        var request = request
        if request.completesResumableUpload, configuration.statesRepresentationDigest {
            do {
                request.stateRepresentation(try fileDigest(length: machine.total))
            } catch {
                return machine.handle(.failed(error))
            }
        }
        var deferred: [TransferStateMachine.Action] = []
        let observer = transfer.observer
        let feed = { (actions: [TransferStateMachine.Action]) -> Bool in
            for action in actions {
                if case .report(let event) = action { observer(event) } else { deferred.append(action) }
            }
            return !deferred.contains { if case .finish = $0 { true } else { false } }
        }
        let body =
            request.kind == .creation || request.kind == .append
            ? RequestBody(
                fileDescriptor: fileDescriptor, offset: request.offset, length: request.length,
                chunkSize: configuration.chunkSize)
            : nil
        do {
            let response = try exchange(
                request.head, on: request.url.endpoint, body: body,
                retryStale: body == nil,
                onInterim: { head in feed(machine.handle(.interim(head))) },
                onBodySent: { count in feed(machine.handle(.bodySent(count))) },
                onResend: { _ = machine.handle(.resending) })
            return deferred + machine.handle(.response(response.head))
        } catch {
            close()
            if !deferred.isEmpty { return deferred }
            return machine.handle(transfer.takeCancellation() ? .cancelled : .failed(error))
        }
    }

    /// The SHA-256 of the file's first `length` bytes, read once per run.
    mutating func fileDigest(length: Int64) throws(TransferError) -> [UInt8] {
        if let representationDigest { return representationDigest }
        let digest = MessageDigest(.sha256)
        var buffer = [UInt8](repeating: 0, count: max(configuration.chunkSize, 4096))
        var offset: Int64 = 0
        while offset < length {
            let wanted = Int(min(Int64(buffer.count), length - offset))
            let count = buffer.withUnsafeMutableBytes { pread(fileDescriptor, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw TransferError(.fileUnreadable, "cannot read the file at \(offset) of \(length) for Repr-Digest")
            }
            buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            offset += Int64(count)
        }
        let value = digest.finalize()
        representationDigest = value
        return value
    }

    /// One exchange on a kept-alive connection to `endpoint` or a new one. With `retryStale`, a bodyless request
    /// that fails on a reused connection (the server may have closed it while idle) is sent once more on a new
    /// one.
    mutating func exchange(
        _ head: RequestHead, on endpoint: HTTPEndpoint, body: RequestBody?, retryStale: Bool,
        onInterim: (ResponseHead) -> Bool, onBodySent: (Int) -> Bool = { _ in true }, onResend: () -> Void = {}
    ) throws(TransferError) -> HTTPResponse {
        let connection = try connection(to: endpoint)
        do {
            let response = try connection.exchange(
                head, body: body, readTimeout: configuration.readTimeout, onInterim: onInterim,
                onBodySent: onBodySent, willStart: { transfer.register(interrupt: $0) })
            report(
                ServerExchange(
                    request: head, interims: response.interims, response: response.head,
                    bodyBytes: response.bodyBytesSent))
            refusedRetries = 0
            return response
        } catch  where error.unprocessed && refusedRetries < Self.refusedRetryLimit {
            // The server did not process it (a GOAWAY, REFUSED_STREAM): sent again on a new connection, not a failure.
            refusedRetries += 1
            close()
            transfer.observer(.requestRetried(method: head.method.rawValue, reason: error.detail))
            onResend()
            return try exchange(
                head, on: endpoint, body: body, retryStale: retryStale, onInterim: onInterim, onBodySent: onBodySent,
                onResend: onResend)
        } catch  where retryStale && connection.requestCount > 1 && error.isTransient {
            close()
            return try exchange(head, on: endpoint, body: body, retryStale: false, onInterim: onInterim)
        }
    }

    /// How many times in a row a request the server did not process is sent again.
    static let refusedRetryLimit = 3

    /// Reports each way the server's answer to `exchange` departs from the draft (the client goes on: a
    /// deviation it can live with is still worth saying).
    private func report(_ exchange: ServerExchange) {
        for deviation in ServerConformance.check(exchange) {
            transfer.observer(
                .serverDeviation(
                    request: "\(exchange.request.method) \(exchange.request.target)", status: exchange.response?.status,
                    deviation))
        }
    }

    /// The kept-alive connection when it goes to `endpoint` and may be reused, else a new one (over HTTP/2, a stream
    /// of the connection the system's transfers share).
    mutating func connection(to endpoint: HTTPEndpoint) throws(TransferError) -> HTTPClientConnection {
        if let connection, connection.endpoint == endpoint, connection.isReusable { return connection }
        close()
        let opened: HTTPClientConnection
        if configuration.http == .http1 {
            if endpoint.secure && tls == nil {
                let trust: TLSTrust = configuration.trustedCAFile.map { .caFile($0) } ?? .systemDefault
                do {
                    tls = try TLSContext(client: TLSClientConfiguration(trust: trust))
                } catch {
                    throw TransferError(.secureConnectionFailed, "cannot set up TLS: \(error)")
                }
            }
            opened = try HTTPClientConnection.open(
                to: endpoint, tls: tls, timeout: configuration.connectTimeout, willConnect: transfer.register)
        } else {
            // A shared connection's socket is not this transfer's to shut down (its streams are): it lets go of it
            // before other transfers can reach the connection.
            opened = try transfer.connections.connection(
                to: endpoint, choice: configuration.http, trustedCAFile: configuration.trustedCAFile,
                timeout: configuration.connectTimeout, willConnect: transfer.register,
                willShare: { transfer.register(interrupt: nil) })
        }
        connection = opened
        return opened
    }
}
