import COpenSSL
import SquallNet

/// A configured OpenSSL context (an owned `SSL_CTX*`, freed on deinit) from which `TLSStream`s are made.
///
/// Either role: TLS 1.2–1.3 by default, no compression (CRIME), no renegotiation, and a peer that closes
/// without close_notify is reported (`SSL_OP_IGNORE_UNEXPECTED_EOF` stays off) so truncations show. Partial
/// writes and moving write buffers are allowed for non-blocking use (a stream's records go to its
/// `OutboundRecords`, which never block, so OpenSSL itself never retries a record). A server picks its identity per SNI
/// name and selects ALPN; a client verifies the chain and host name unless told `.insecure`.
///
/// Building a context ignores SIGPIPE process-wide (`ProcessSetup.ignoreBrokenPipe`): OpenSSL writes to its
/// socket with write(2), which cannot pass MSG_NOSIGNAL, so a peer that closed first would otherwise kill the
/// whole process, not just fail the write.
///
/// Immutable once built, so one context serves any number of threads. OpenSSL callbacks find it again
/// through the `SSL_CTX` app data (an unretained pointer: every stream retains its context).
public final class TLSContext: @unchecked Sendable {
    /// Which side of the handshake this context is for.
    public enum Role: Sendable {
        case server
        case client
    }

    public let role: Role
    let ctx: OpaquePointer
    let keyLog: KeyLog?
    /// Server only: picks the identity for a handshake.
    let identityProvider: (@Sendable (String?) throws -> TLSIdentity)?
    /// Server only: ALPN names in order of preference.
    let alpnPreference: [[UInt8]]
    /// Client only: whether chain and host name are verified.
    let verifiesPeer: Bool

    /// A server context.
    public init(server configuration: TLSServerConfiguration) throws {
        _ = try ALPN.encode(configuration.alpn)
        guard let ctx = SSL_CTX_new(TLS_server_method()) else {
            throw TLSError.openSSL(.configuration, "SSL_CTX_new")
        }
        self.role = .server
        self.ctx = ctx
        self.keyLog = configuration.keyLog
        self.identityProvider = configuration.identityProvider
        self.alpnPreference = configuration.alpn.map { Array($0.utf8) }
        self.verifiesPeer = false
        try configureCommon(configuration.minimumVersion, configuration.maximumVersion)
        SSL_CTX_set_cert_cb(ctx, certificateCallback, nil)
        if !alpnPreference.isEmpty {
            SSL_CTX_set_alpn_select_cb(ctx, alpnSelectCallback, nil)
        }
    }

    /// A client context.
    public init(client configuration: TLSClientConfiguration) throws {
        let alpnWire = try ALPN.encode(configuration.alpn)
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw TLSError.openSSL(.configuration, "SSL_CTX_new")
        }
        self.role = .client
        self.ctx = ctx
        self.keyLog = configuration.keyLog
        self.identityProvider = nil
        self.alpnPreference = []
        if case .insecure = configuration.trust { self.verifiesPeer = false } else { self.verifiesPeer = true }
        try configureCommon(configuration.minimumVersion, configuration.maximumVersion)
        // SSL_CTX_set_alpn_protos returns 0 on success.
        guard alpnWire.isEmpty || SSL_CTX_set_alpn_protos(ctx, alpnWire, UInt32(alpnWire.count)) == 0 else {
            throw TLSError.openSSL(.configuration, "setting ALPN protocols \(configuration.alpn)")
        }
        try configureTrust(configuration.trust)
    }

    deinit {
        SSL_CTX_free(ctx)
    }

    /// Finds the context an `SSL*` was made from (inside OpenSSL callbacks).
    static func owner(of ssl: OpaquePointer) -> TLSContext? {
        guard let ctx = SSL_get_SSL_CTX(ssl), let pointer = shim_SSL_CTX_get_app_data(ctx) else { return nil }
        return Unmanaged<TLSContext>.fromOpaque(pointer).takeUnretainedValue()
    }

    private func configureCommon(_ minimum: TLSVersion, _ maximum: TLSVersion) throws {
        ProcessSetup.ignoreBrokenPipe()
        guard minimum <= maximum else {
            throw TLSError(.configuration, "minimum TLS version \(minimum) is above maximum \(maximum)")
        }
        guard shim_SSL_CTX_set_min_proto_version(ctx, minimum.rawValue) == 1,
            shim_SSL_CTX_set_max_proto_version(ctx, maximum.rawValue) == 1
        else {
            throw TLSError.openSSL(.configuration, "setting TLS versions \(minimum)...\(maximum)")
        }
        _ = SSL_CTX_set_options(ctx, shim_SSL_OP_NO_COMPRESSION() | shim_SSL_OP_NO_RENEGOTIATION())
        _ = SSL_CTX_clear_options(ctx, shim_SSL_OP_IGNORE_UNEXPECTED_EOF())
        _ = shim_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        // Read-ahead: one recv fills OpenSSL's buffer with as many records as are waiting, instead of one
        // recv for each record's header and another for its body (TLSStream.bufferedReadableCount accounts
        // for records buffered this way). A record cut by the buffer's end costs one more recv for its tail:
        // 256 KiB (16 records) makes that one in sixteen, and pages no recv fills are never touched.
        shim_SSL_CTX_set_read_ahead(ctx, 1)
        SSL_CTX_set_default_read_buffer_len(ctx, 256 * 1024)
        _ = shim_SSL_CTX_set_app_data(ctx, Unmanaged.passUnretained(self).toOpaque())
        if keyLog != nil {
            SSL_CTX_set_keylog_callback(ctx, keyLogCallback)
        }
    }

    private func configureTrust(_ trust: TLSTrust) throws {
        switch trust {
        case .insecure:
            SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
            return
        case .systemDefault:
            guard SSL_CTX_set_default_verify_paths(ctx) == 1 else {
                throw TLSError.openSSL(.configuration, "loading the system trust roots")
            }
        case .caFile(let path):
            guard SecureFile.exists(path) else { throw TLSError(.configuration, "CA file \(path) does not exist") }
            guard SSL_CTX_load_verify_locations(ctx, path, nil) == 1 else {
                throw TLSError.openSSL(.configuration, "loading CA file \(path)")
            }
        case .certificates(let certificates):
            let store = SSL_CTX_get_cert_store(ctx)
            for certificate in certificates where X509_STORE_add_cert(store, certificate.x509) != 1 {
                throw TLSError.openSSL(.configuration, "trusting \(certificate.subject)")
            }
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
    }
}
