import COpenSSL

// OpenSSL calls these C functions during handshakes, on the thread driving the `SSL*`. They cannot
// capture anything, so they find their `TLSContext` (and `TLSStream`) through OpenSSL app data.

/// Appends each secret line to the context's key log (`SSL_CTX_set_keylog_callback`).
let keyLogCallback: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Void = { ssl, line in
    guard let ssl, let line, let keyLog = TLSContext.owner(of: ssl)?.keyLog else { return }
    keyLog.append(cString: line)
}

/// Chooses the server identity once the ClientHello (and its SNI) has been parsed (`SSL_CTX_set_cert_cb`).
///
/// Unlike the servername callback this also runs when the client sent no SNI (an IP literal), so every
/// handshake gets a certificate from the provider. Returns 1 to go on, 0 to abort the handshake.
let certificateCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, _ in
    guard let ssl, let provider = TLSContext.owner(of: ssl)?.identityProvider else { return 0 }
    let serverName = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
    do {
        try use(provider(serverName), on: ssl)
        return 1
    } catch {
        TLSStream.owner(of: ssl)?.identityFailure = error
        return 0
    }
}

/// Selects the first server-preferred ALPN name the client offered (`SSL_CTX_set_alpn_select_cb`);
/// without overlap the handshake goes on with no ALPN (RFC 7301 allows a server to ignore it).
let alpnSelectCallback:
    @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
    ) -> Int32 = { ssl, out, outLength, offered, offeredLength, _ in
        guard let ssl, let out, let outLength, let offered, let context = TLSContext.owner(of: ssl),
            let match = ALPN.select(
                preferred: context.alpnPreference,
                offered: UnsafeBufferPointer(start: offered, count: Int(offeredLength)))
        else { return SSL_TLSEXT_ERR_NOACK }
        out.pointee = offered + match.lowerBound
        outLength.pointee = UInt8(match.count)
        return SSL_TLSEXT_ERR_OK
    }

/// Installs an identity on one connection; the chain after the leaf goes out as extra certificates.
private func use(_ identity: TLSIdentity, on ssl: OpaquePointer) throws {
    guard let stack = OPENSSL_sk_new_null() else { throw TLSError.openSSL(.certificate, "OPENSSL_sk_new_null") }
    defer { OPENSSL_sk_free(stack) }
    for certificate in identity.chain.dropFirst() {
        guard OPENSSL_sk_push(stack, UnsafeRawPointer(certificate.x509)) > 0 else {
            throw TLSError.openSSL(.certificate, "building the certificate chain")
        }
    }
    // The chain is up-referenced by OpenSSL, so the temporary stack can go.
    guard SSL_use_cert_and_key(ssl, identity.leaf.x509, identity.privateKey.pkey, stack, 1) == 1 else {
        throw TLSError.openSSL(.certificate, "installing the certificate for \(identity.leaf.subject)")
    }
}
