import COpenSSL
import Glibc

/// An X.509 certificate (an owned `X509*`, freed on deinit). Certificates are never changed once
/// built, so one can be shared across threads.
public final class TLSCertificate: @unchecked Sendable {
    let x509: OpaquePointer

    init(taking x509: OpaquePointer) {
        self.x509 = x509
    }

    deinit {
        X509_free(x509)
    }

    /// Parses every `CERTIFICATE` block of a PEM text, in order; fails when there is none.
    public static func chain(pem: String) throws -> [TLSCertificate] {
        let source = MemoryBIO(text: pem)
        var chain: [TLSCertificate] = []
        while let x509 = PEM_read_bio_X509(source.bio, nil, nil, nil) {
            chain.append(TLSCertificate(taking: x509))
        }
        // Reading stops with a "no start line" entry at the end of the text; only an empty result is an error.
        guard !chain.isEmpty else {
            throw TLSError.openSSL(.certificate, "no PEM certificate found")
        }
        ERR_clear_error()
        return chain
    }

    /// Parses the first certificate of a PEM text.
    public convenience init(pem: String) throws {
        let first = try TLSCertificate.chain(pem: pem)[0]
        X509_up_ref(first.x509)
        self.init(taking: first.x509)
    }

    /// The certificate as PEM (`-----BEGIN CERTIFICATE-----`).
    public var pem: String {
        MemoryBIO.capture { PEM_write_bio_X509($0, x509) }
    }

    /// The subject name in RFC 2253 form, e.g. `CN=Squall Local CA`.
    public var subject: String {
        TLSCertificate.format(X509_get_subject_name(x509))
    }

    /// The issuer name in RFC 2253 form.
    public var issuer: String {
        TLSCertificate.format(X509_get_issuer_name(x509))
    }

    /// The start of validity as ISO 8601 UTC, e.g. `2025-11-29T13:59:00Z`.
    public var notBefore: String {
        TLSCertificate.format(X509_getm_notBefore(x509))
    }

    /// The end of validity as ISO 8601 UTC, e.g. `2035-11-27T13:59:00Z`.
    public var notAfter: String {
        TLSCertificate.format(X509_getm_notAfter(x509))
    }

    /// Whether the certificate may sign others (basicConstraints CA:TRUE).
    public var isCertificateAuthority: Bool {
        X509_check_ca(x509) >= 1
    }

    /// The SHA-256 digest of the DER encoding, as uppercase hex pairs joined by colons (`AB:CD:…`).
    public var fingerprintSHA256: String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(x509, EVP_sha256(), &digest, &length) == 1 else { return "" }
        let hexDigits = Array("0123456789ABCDEF")
        return digest.prefix(Int(length))
            .map { String([hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 0xF)]]) }
            .joined(separator: ":")
    }

    static func format(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        return MemoryBIO.capture { X509_NAME_print_ex($0, name, 0, shim_XN_FLAG_RFC2253()) }
    }

    static func format(_ time: UnsafeMutablePointer<ASN1_TIME>?) -> String {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return "" }
        let fields = [parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec]
        let padded = fields.enumerated().map { index, value in
            let digits = String(value)
            let width = index == 0 ? 4 : 2
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded[0])-\(padded[1])-\(padded[2])T\(padded[3]):\(padded[4]):\(padded[5])Z"
    }
}
