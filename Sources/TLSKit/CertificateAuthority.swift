import COpenSSL
import Glibc
import Synchronization

/// The local certificate authority that clients of the chaos proxy must trust: one self-signed EC P-256
/// CA kept in a folder (`ca.pem`, `ca-key.pem`), which mints a leaf certificate per host on demand.
///
/// ```
/// <directory>/            0700
///   ca.pem                0644  the CA certificate: give it to clients (curl --cacert, a trust store)
///   ca-key.pem            0600  its private key (PKCS#8), replaced only atomically
/// ```
public final class CertificateAuthority: Sendable {
    public static let certificateFileName = "ca.pem"
    public static let keyFileName = "ca-key.pem"
    /// The common name of a CA created here.
    public static let commonName = "Squall Local CA"
    /// The most leaves kept in the per-host cache; the cache starts over when it is full.
    public static let leafCacheLimit = 1024

    public let directory: String
    public let certificate: TLSCertificate
    private let key: TLSPrivateKey
    private let leaves = Mutex<[String: TLSIdentity]>([:])

    private init(directory: String, certificate: TLSCertificate, key: TLSPrivateKey) {
        self.directory = directory
        self.certificate = certificate
        self.key = key
    }

    /// Loads the CA in `directory`, creating the folder and a new CA when there is none yet.
    ///
    /// A `ca.pem` without its `ca-key.pem` is an error rather than a reason to start over: clients may
    /// already trust that certificate. A lone key (a crash between the two writes) is replaced.
    public static func loadOrCreate(directory: String) throws -> CertificateAuthority {
        try SecureFile.makeDirectory(directory, mode: 0o700)
        if SecureFile.exists(path(directory, certificateFileName)) {
            return try load(directory: directory)
        }
        return try create(directory: directory)
    }

    /// Loads an existing CA; fails with `caMissing` when a file is absent and `caUnreadable` when one
    /// does not parse or the key does not match the certificate.
    public static func load(directory: String) throws -> CertificateAuthority {
        let certificatePath = path(directory, certificateFileName)
        let keyPath = path(directory, keyFileName)
        for file in [certificatePath, keyPath] where !SecureFile.exists(file) {
            throw TLSError(.caMissing, "\(file) does not exist (create one with `squall ca init --dir \(directory)`)")
        }
        do {
            let certificate = try TLSCertificate(pem: SecureFile.readText(certificatePath))
            let key = try TLSPrivateKey(pem: SecureFile.readText(keyPath))
            guard X509_check_private_key(certificate.x509, key.pkey) == 1 else {
                throw TLSError.openSSL(.caUnreadable, "\(keyPath) is not the key of \(certificatePath)")
            }
            guard certificate.isCertificateAuthority else {
                throw TLSError(.caUnreadable, "\(certificatePath) is not a CA certificate (basicConstraints CA:TRUE)")
            }
            return CertificateAuthority(directory: directory, certificate: certificate, key: key)
        } catch let error as TLSError where error.code != .caUnreadable {
            throw TLSError(.caUnreadable, errno: error.errno, "CA in \(directory): \(error.detail)")
        }
    }

    /// Where the CA certificate lives.
    public var certificatePath: String {
        CertificateAuthority.path(directory, CertificateAuthority.certificateFileName)
    }

    /// Where the CA private key lives.
    public var keyPath: String { CertificateAuthority.path(directory, CertificateAuthority.keyFileName) }

    /// A warning when the private key can be read by others than its owner (a CA folder copied with the wrong
    /// mode): anyone who reads it can mint certificates that this CA's clients trust. Nil when it is 0600 or less.
    public var keyExposure: String? {
        var status = stat()
        guard stat(keyPath, &status) == 0, status.st_mode & 0o077 != 0 else { return nil }
        let mode = String(status.st_mode & 0o777, radix: 8)
        return "\(keyPath) is readable by others (mode 0\(mode)): anyone on this machine can mint certificates that "
            + "trust this CA; make it private with chmod 600 \(keyPath)"
    }

    /// The CA certificate as PEM.
    public var certificatePEM: String { certificate.pem }

    /// The CA subject, e.g. `CN=Squall Local CA,O=Squall`.
    public var subject: String { certificate.subject }

    /// The end of the CA's validity, ISO 8601 UTC.
    public var notAfter: String { certificate.notAfter }

    /// The SHA-256 fingerprint of the CA certificate (`AB:CD:…`).
    public var fingerprintSHA256: String { certificate.fingerprintSHA256 }

    /// A server identity for `host` (a DNS name or an IPv4/IPv6 literal) signed by this CA: minted on
    /// first use, then served from a thread-safe cache. The chain is the leaf followed by the CA.
    public func leaf(for host: String) throws -> TLSIdentity {
        let name = HostName.normalized(host)
        return try leaves.withLock { cache in
            if let cached = cache[name] { return cached }
            let identity = try mintLeaf(name)
            if cache.count >= CertificateAuthority.leafCacheLimit { cache.removeAll() }
            cache[name] = identity
            return identity
        }
    }

    /// A leaf per CA/Browser Forum baseline profile: SAN, serverAuth, CA:FALSE, about a year (backdated an hour).
    private func mintLeaf(_ name: String) throws -> TLSIdentity {
        let alternativeName: String
        if HostName.isIPAddress(name) {
            alternativeName = "IP:\(name)"
        } else if HostName.isDNSName(name) {
            alternativeName = "DNS:\(name)"
        } else {
            throw TLSError(.certificate, "'\(name)' is neither a DNS name nor an IP address")
        }
        let leafKey = try TLSPrivateKey.generateP256()
        let builder = CertificateBuilder(
            commonName: name.utf8.count <= 64 ? name : nil,
            organization: "Squall",
            subjectKey: leafKey,
            notBeforeOffset: -3600,
            notAfterOffset: 365 * 86400,
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
                (NID_subject_alt_name, alternativeName),
            ])
        let leaf = try builder.sign(issuer: certificate, issuerKey: key)
        return try TLSIdentity(chain: [leaf, certificate], privateKey: leafKey)
    }

    /// Generates a CA and writes it: the key first, so a crash never leaves a certificate without its key.
    private static func create(directory: String) throws -> CertificateAuthority {
        let key = try TLSPrivateKey.generateP256()
        let builder = CertificateBuilder(
            commonName: commonName,
            organization: "Squall",
            subjectKey: key,
            notBeforeOffset: -3600,
            notAfterOffset: 10 * 365 * 86400,
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
            ])
        let certificate = try builder.sign(issuer: nil, issuerKey: key)
        try SecureFile.writeAtomically(key.pem, to: path(directory, keyFileName), mode: 0o600)
        try SecureFile.writeAtomically(certificate.pem, to: path(directory, certificateFileName), mode: 0o644)
        return CertificateAuthority(directory: directory, certificate: certificate, key: key)
    }

    private static func path(_ directory: String, _ file: String) -> String {
        directory.hasSuffix("/") ? directory + file : "\(directory)/\(file)"
    }
}
