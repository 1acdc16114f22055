import COpenSSL
import Glibc
import SquallNet

/// A TLS connection over a connected `Socket` (an owned `SSL*`, freed on deinit), usable blocking or
/// non-blocking like any `ByteStream`.
///
/// ```
/// init ──▶ handshake() ─┬─ .wouldBlock(interest) ──▶ poll, call again
///                       └─ .done(0) ──▶ session set ──▶ read / write ──▶ shutdownWrite (close_notify + FIN)
/// ```
/// `WANT_READ`/`WANT_WRITE` become `.wouldBlock`, a close_notify becomes `.endOfStream`, and a TCP close
/// without close_notify is `TLSError(.unexpectedEOF)` (a truncation attack, or a crashed peer). After a
/// `.wouldBlock` from `write`, call `write` again with at least the same bytes (their records may be partly sent).
///
/// Records go out in batches (`OutboundRecords`): a `write` encrypts up to `writeBatch` bytes, four records, before
/// one `send`, and reports bytes written only once their records are in the kernel.
///
/// An `SSL*` must not be shared between threads: create the stream on the thread that will drive it.
public final class TLSStream: ByteStream {
    public let socket: Socket
    public let context: TLSContext
    let ssl: OpaquePointer
    /// What the handshake agreed on; nil until it completes.
    public private(set) var session: TLSSessionInfo?
    /// Set by the certificate callback when the server's identity provider throws.
    var identityFailure: (any Error)?
    /// A fatal error happened: OpenSSL forbids a close_notify afterwards.
    private var failed = false
    private var writeClosed = false
    /// The last read would have blocked (see `bufferedReadableCount`).
    private var readBlocked = false
    /// Records produced and not yet sent (OpenSSL's write BIO).
    private let outbound = OutboundRecords()
    /// Plaintext bytes of the caller's last `write` whose records are encrypted but not all sent: the retry reports
    /// them once they are.
    private var encryptedUnsent = 0
    /// The handshake finished with its last flight not all sent.
    private var handshakeUnsent = false
    /// SSL_shutdown has put the close_notify among the outbound records.
    private var closeNotifyQueued = false

    /// The plaintext encrypted before each `send`: four full records.
    static let writeBatch = 64 * 1024
    /// The most plaintext one `write` takes.
    static let writeLimit = 256 * 1024

    private enum Operation: String {
        case handshake
        case read
        case write
        case shutdown
    }

    /// Wraps `socket` for `context`'s role. On a client, `serverName` (a DNS name or an IP literal) is sent
    /// as SNI when it is a name, and, unless the context is insecure, the certificate must cover it.
    public init(socket: Socket, context: TLSContext, serverName: String? = nil) throws {
        guard let ssl = SSL_new(context.ctx) else { throw TLSError.openSSL(.configuration, "SSL_new") }
        self.socket = socket
        self.context = context
        self.ssl = ssl
        guard SSL_set_fd(ssl, socket.fd) == 1 else { throw TLSError.openSSL(.configuration, "SSL_set_fd") }
        // Reads stay on the socket BIO SSL_set_fd made; writes go to the outbound records (the SSL* owns the BIO).
        SSL_set0_wbio(ssl, outbound.bio)
        _ = shim_SSL_set_app_data(ssl, Unmanaged.passUnretained(self).toOpaque())
        switch context.role {
        case .server:
            SSL_set_accept_state(ssl)
        case .client:
            SSL_set_connect_state(ssl)
            if let serverName { try expect(serverName: HostName.normalized(serverName)) }
        }
    }

    deinit {
        SSL_free(ssl)
    }

    /// Finds the stream an `SSL*` belongs to (inside OpenSSL callbacks).
    static func owner(of ssl: OpaquePointer) -> TLSStream? {
        shim_SSL_get_app_data(ssl).map { Unmanaged<TLSStream>.fromOpaque($0).takeUnretainedValue() }
    }

    public var fileDescriptor: Int32 { socket.fd }

    /// Bytes a read can return now without the socket becoming readable: decrypted bytes (`SSL_pending`),
    /// or, as a count of 1, whole records that read-ahead pulled into OpenSSL's buffer. Poll reports neither.
    /// After a read that would block, what OpenSSL still holds is an incomplete record, which only more bytes
    /// from the socket can complete: then nothing counts, so a relay polls instead of spinning.
    public var bufferedReadableCount: Int {
        let decrypted = Int(SSL_pending(ssl))
        if decrypted > 0 { return decrypted }
        return !readBlocked && SSL_has_pending(ssl) == 1 ? 1 : 0
    }

    /// Advances the handshake: `.done(0)` once finished (then `session` is set), `.wouldBlock` on a
    /// non-blocking socket that must become readable or writable first.
    public func handshake() throws -> IOOutcome {
        if session != nil {
            guard handshakeUnsent else { return .done(0) }
            guard try outbound.send(to: socket.fd) else { return .wouldBlock(.write) }
            handshakeUnsent = false
            return .done(0)
        }
        try prepareCall()
        let status = SSL_do_handshake(ssl)
        guard status == 1 else {
            let result = Result { try outcome(afterFailure: status, of: .handshake) }
            // The flight (or the alert) OpenSSL just produced goes out before the wait, or the failure.
            let sent = (try? outbound.send(to: socket.fd)) ?? true
            let next = try result.get()
            return sent ? next : .wouldBlock(.write)
        }
        session = makeSessionInfo()
        guard try outbound.send(to: socket.fd) else {
            handshakeUnsent = true
            return .wouldBlock(.write)
        }
        return .done(0)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> IOOutcome {
        if case .wouldBlock(let interest) = try handshake() { return .wouldBlock(interest) }
        guard !buffer.isEmpty else { return .done(0) }
        var count = 0
        try prepareCall()
        let status = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count)
        guard status == 1 else {
            let result = Result { try outcome(afterFailure: status, of: .read) }
            sendProducedByRead()
            let next = try result.get()
            readBlocked = next != .endOfStream
            return next
        }
        readBlocked = false
        sendProducedByRead()
        return .done(count)
    }

    /// A read can produce records (an alert, a key update's answer): they go out now if the socket takes them, else
    /// with the next write, shutdown or close. A read never waits for them, so that it cannot deadlock against a peer
    /// that is not reading either.
    private func sendProducedByRead() {
        if outbound.pendingCount > 0 { _ = try? outbound.send(to: socket.fd, wait: false) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws -> IOOutcome {
        if case .wouldBlock(let interest) = try handshake() { return .wouldBlock(interest) }
        guard !bytes.isEmpty else { return .done(0) }
        if outbound.pendingCount > 0 {
            guard try sendOutbound() else { return .wouldBlock(.write) }
        }
        // Sent by now (here, or by a read in between): the retry's bytes are written.
        if encryptedUnsent > 0 {
            defer { encryptedUnsent = 0 }
            return .done(encryptedUnsent)
        }
        try prepareCall()
        let total = min(bytes.count, Self.writeLimit)
        var written = 0
        while written < total {
            let batch = min(Self.writeBatch, total - written)
            let (encrypted, blocked) = try encrypt(UnsafeRawBufferPointer(rebasing: bytes[written..<written + batch]))
            guard encrypted > 0 else { return written > 0 ? .done(written) : .wouldBlock(blocked ?? .read) }
            guard try sendOutbound() else {
                // The caller comes back with these bytes; the retry reports them once their records are sent.
                encryptedUnsent = encrypted
                return written > 0 ? .done(written) : .wouldBlock(.write)
            }
            written += encrypted
        }
        return .done(written)
    }

    /// Encrypts `bytes` into the outbound records: how many were taken, all of them, or fewer with what OpenSSL
    /// waits for (it never waits for the socket here; reading first would be a renegotiation, which is disabled).
    private func encrypt(_ bytes: UnsafeRawBufferPointer) throws -> (taken: Int, blocked: IOInterest?) {
        var taken = 0
        while taken < bytes.count {
            var count = 0
            let status = SSL_write_ex(ssl, bytes.baseAddress! + taken, bytes.count - taken, &count)
            guard status == 1 else {
                guard case .wouldBlock(let interest) = try outcome(afterFailure: status, of: .write) else {
                    return (taken, .read)
                }
                return (taken, interest)
            }
            taken += count
        }
        return (taken, nil)
    }

    /// Sends the outbound records; a failed send is fatal for the stream (no close_notify afterwards).
    private func sendOutbound() throws -> Bool {
        do {
            return try outbound.send(to: socket.fd)
        } catch {
            failed = true
            throw error
        }
    }

    /// Sends a close_notify (RFC 8446 §6.1), then a TCP FIN; reading stays possible until the peer's own
    /// close. After a fatal error only the FIN goes out.
    public func shutdownWrite() throws -> IOOutcome {
        guard !writeClosed else { return .done(0) }
        if session != nil && !failed && socket.fd >= 0 {
            if !closeNotifyQueued {
                try prepareCall()
                let status = SSL_shutdown(ssl)
                if status < 0, case .wouldBlock(let interest) = try outcome(afterFailure: status, of: .shutdown) {
                    return .wouldBlock(interest)
                }
                closeNotifyQueued = true
            }
            guard try sendOutbound() else { return .wouldBlock(.write) }
        }
        writeClosed = true
        socket.shutdown(writing: true)
        return .done(0)
    }

    /// Sends a close_notify when the connection is healthy (best effort), then closes the socket.
    public func close() {
        if session != nil && !failed && !writeClosed, (try? prepareCall()) != nil {
            if !closeNotifyQueued { _ = SSL_shutdown(ssl) }
            ERR_clear_error()
        }
        if !failed && socket.fd >= 0 { _ = try? outbound.send(to: socket.fd, wait: false) }
        writeClosed = true
        socket.close()
    }

    /// Closes with a TCP RST and no close_notify.
    public func abort() {
        failed = true
        outbound.discard()
        socket.abort()
    }

    /// Refuses to touch a descriptor number that was closed (and may since belong to another file), and
    /// cleans the thread's error queue and errno, through which OpenSSL reports.
    private func prepareCall() throws {
        guard socket.fd >= 0 else { throw TLSError(.io, errno: EBADF, "the socket is closed") }
        ERR_clear_error()
        errno = 0
    }

    private func expect(serverName name: String) throws {
        if HostName.isIPAddress(name) {
            // RFC 6066 §3: literal IP addresses are not sent as SNI.
            guard !context.verifiesPeer || X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1 else {
                throw TLSError.openSSL(.configuration, "expecting IP address \(name)")
            }
            return
        }
        guard shim_SSL_set_tlsext_host_name(ssl, name) == 1 else {
            throw TLSError.openSSL(.configuration, "setting SNI \(name)")
        }
        guard !context.verifiesPeer || SSL_set1_host(ssl, name) == 1 else {
            throw TLSError.openSSL(.configuration, "expecting host name \(name)")
        }
    }

    private func outcome(afterFailure status: Int32, of operation: Operation) throws -> IOOutcome {
        let savedErrno = errno
        let reason = SSL_get_error(ssl, status)
        switch reason {
        case SSL_ERROR_WANT_READ:
            return .wouldBlock(.read)
        case SSL_ERROR_WANT_WRITE:
            return .wouldBlock(.write)
        case SSL_ERROR_ZERO_RETURN where operation != .handshake:
            return .endOfStream
        default:
            failed = true
            throw failure(reason: reason, errno: savedErrno, during: operation)
        }
    }

    private func failure(reason: Int32, errno savedErrno: Int32, during operation: Operation) -> TLSError {
        if operation == .handshake, let failure = handshakeFailure() { return failure }
        let packed = ERR_peek_error()
        let truncated =
            (reason == SSL_ERROR_SYSCALL && savedErrno == 0 && packed == 0)
            || (ERR_GET_LIB(packed) == ERR_LIB_SSL && ERR_GET_REASON(packed) == SSL_R_UNEXPECTED_EOF_WHILE_READING)
        if truncated {
            ERR_clear_error()
            return TLSError(.unexpectedEOF, "TLS \(operation): the peer closed the connection without a close_notify")
        }
        if reason == SSL_ERROR_SYSCALL && savedErrno != 0 {
            ERR_clear_error()
            return TLSError.system(.io, "TLS \(operation)", errno: savedErrno)
        }
        if reason == SSL_ERROR_ZERO_RETURN {
            return TLSError(.handshake, "TLS handshake: the peer sent close_notify before finishing it")
        }
        return TLSError.openSSL(operation == .handshake ? .handshake : .protocolError, "TLS \(operation)")
    }

    /// A handshake failure explained by the provider or by certificate verification, if that is the cause.
    private func handshakeFailure() -> TLSError? {
        if let identityFailure {
            ERR_clear_error()
            return TLSError(.certificate, "choosing the server certificate: \(identityFailure)")
        }
        guard context.role == .client, context.verifiesPeer else { return nil }
        let result = SSL_get_verify_result(ssl)
        guard result != X509_V_OK else { return nil }
        ERR_clear_error()
        let text = String(cString: X509_verify_cert_error_string(result))
        let mismatch = result == X509_V_ERR_HOSTNAME_MISMATCH || result == X509_V_ERR_IP_ADDRESS_MISMATCH
        return TLSError(
            mismatch ? .hostnameMismatch : .verificationFailed,
            "certificate verification failed: \(text) (X509_V_ERR \(result))")
    }

    private func makeSessionInfo() -> TLSSessionInfo {
        var alpnBytes: UnsafePointer<UInt8>?
        var alpnLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &alpnBytes, &alpnLength)
        let alpn = alpnBytes.flatMap { bytes in
            alpnLength == 0
                ? nil : String(decoding: UnsafeBufferPointer(start: bytes, count: Int(alpnLength)), as: UTF8.self)
        }
        let peer = SSL_get1_peer_certificate(ssl).map { TLSCertificate(taking: $0) }
        return TLSSessionInfo(
            protocolVersion: String(cString: SSL_get_version(ssl)),
            cipher: SSL_CIPHER_get_name(SSL_get_current_cipher(ssl)).map { String(cString: $0) } ?? "",
            alpn: alpn,
            serverName: SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) },
            peerSubject: peer?.subject)
    }
}
