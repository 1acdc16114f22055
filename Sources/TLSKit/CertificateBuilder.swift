import COpenSSL

/// Builds and signs X.509 v3 certificates (RFC 5280) from a description: subject, key, validity window
/// and extensions in OpenSSL's configuration syntax (e.g. `basicConstraints` = `critical,CA:TRUE`).
struct CertificateBuilder {
    /// The subject's common name (CN), omitted when nil (a CN holds at most 64 characters, RFC 5280 §A.1).
    var commonName: String?
    /// The subject's organization (O).
    var organization: String?
    /// The key the certificate certifies.
    var subjectKey: TLSPrivateKey
    /// Seconds from now to the start of validity (negative to backdate, tolerating clock skew).
    var notBeforeOffset: Int
    /// Seconds from now to the end of validity.
    var notAfterOffset: Int
    /// Extensions in order, as (NID, configuration value) pairs.
    var extensions: [(nid: Int32, value: String)]

    /// Signs with `issuerKey`; `issuer` nil makes the certificate self-signed.
    func sign(issuer: TLSCertificate?, issuerKey: TLSPrivateKey) throws -> TLSCertificate {
        guard let x509 = X509_new() else { throw TLSError.openSSL(.certificate, "X509_new") }
        let certificate = TLSCertificate(taking: x509)
        guard X509_set_version(x509, 2) == 1,
            X509_set_pubkey(x509, subjectKey.pkey) == 1,
            X509_gmtime_adj(X509_getm_notBefore(x509), notBeforeOffset) != nil,
            X509_gmtime_adj(X509_getm_notAfter(x509), notAfterOffset) != nil
        else {
            throw TLSError.openSSL(.certificate, "setting version, key and validity")
        }
        try setRandomSerial(x509)
        try setSubject(x509)
        let issuerName = X509_get_subject_name(issuer?.x509 ?? x509)
        guard X509_set_issuer_name(x509, issuerName) == 1 else {
            throw TLSError.openSSL(.certificate, "setting the issuer name")
        }
        try addExtensions(x509, issuer: issuer?.x509 ?? x509)
        guard X509_sign(x509, issuerKey.pkey, EVP_sha256()) > 0 else {
            throw TLSError.openSSL(.certificate, "signing the certificate")
        }
        return certificate
    }

    /// A positive random 128-bit serial number (RFC 5280 §4.1.2.2 allows up to 20 octets).
    private func setRandomSerial(_ x509: OpaquePointer) throws {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else {
            throw TLSError.openSSL(.certificate, "drawing a random serial number")
        }
        bytes[0] = (bytes[0] & 0x7F) | 0x40
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
            throw TLSError.openSSL(.certificate, "BN_bin2bn")
        }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(x509)) != nil else {
            throw TLSError.openSSL(.certificate, "setting the serial number")
        }
    }

    private func setSubject(_ x509: OpaquePointer) throws {
        let name = X509_get_subject_name(x509)
        let entries = [("O", organization), ("CN", commonName)].compactMap { key, value in value.map { (key, $0) } }
        for (key, value) in entries {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, key, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
                throw TLSError.openSSL(.certificate, "setting subject \(key)=\(value)")
            }
        }
    }

    private func addExtensions(_ x509: OpaquePointer, issuer: OpaquePointer) throws {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer, x509, nil, nil, 0)
        for (nid, value) in extensions {
            guard let extensionValue = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw TLSError.openSSL(.certificate, "building extension \(String(cString: OBJ_nid2sn(nid)))=\(value)")
            }
            defer { X509_EXTENSION_free(extensionValue) }
            guard X509_add_ext(x509, extensionValue, -1) == 1 else {
                throw TLSError.openSSL(.certificate, "adding extension \(String(cString: OBJ_nid2sn(nid)))")
            }
        }
    }
}
