import Glibc
import TLSKit

/// `mint-leaf`: writes a leaf of the bench CA to files, so nginx presents the same kind of certificate as
/// Squall (EC P-256, signed by the same CA, chain = leaf then CA).
///
/// ```
/// <out>/leaf.pem        0644  the chain, leaf first (nginx ssl_certificate)
/// <out>/leaf-key.pem    0600  its private key, PKCS#8 (nginx ssl_certificate_key)
/// ```
enum MintLeafCommand: BenchCommand {
    static let name = "mint-leaf"
    static let usage = "--ca DIR --host NAME --out DIR"
    static let summary =
        "writes DIR/leaf.pem (chain) and DIR/leaf-key.pem (0600) for NAME, signed by the CA in --ca (created when "
        + "missing); prints mint-leaf host= certificate= key="

    static func run(_ options: BenchOptions) throws {
        let host = try options.string("host")
        let authority = try CertificateAuthority.loadOrCreate(directory: options.string("ca"))
        let leaf = try authority.leaf(for: host)
        let folder = try options.string("out")
        guard mkdir(folder, 0o700) == 0 || errno == EEXIST else {
            throw BenchError("cannot create \(folder): \(String(cString: strerror(errno)))")
        }
        let certificatePath = "\(folder)/leaf.pem"
        let keyPath = "\(folder)/leaf-key.pem"
        try write(leaf.certificatePEM, to: certificatePath, mode: 0o644)
        try write(leaf.privateKeyPEM, to: keyPath, mode: 0o600)
        BenchMain.emit("\(name) host=\(host) certificate=\(certificatePath) key=\(keyPath)")
    }

    /// Replaces `path` with `text`; the mode is set before any byte is written (also on an existing file).
    private static func write(_ text: String, to path: String, mode: mode_t) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw BenchError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fchmod(fd, mode) == 0 else {
            throw BenchError("cannot chmod \(path): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw BenchError("cannot write \(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }
}
