import Foundation
import TLSKit

/// A flag naming a PEM file of CA certificates to trust (`--ca`, `--upstream-ca`): read and parsed when the
/// command starts, so that a typo or a file that is not a certificate is a usage error naming the flag and the
/// file, not a TLS failure at the first connection.
enum CAFileOption {
    static func check(_ path: String, option: String, command: [String]) throws(UsageError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError(
                "\(option) \(path): no such readable file; give the CA's PEM certificate", command: command)
        }
        do {
            _ = try TLSCertificate.chain(pem: String(decoding: data, as: UTF8.self))
        } catch {
            throw UsageError(
                "\(option) \(path): not a PEM certificate (no -----BEGIN CERTIFICATE----- block); give the CA's "
                    + "certificate, such as the ca.pem of squall ca init", command: command)
        }
        return path
    }
}
