import Foundation
import TLSKit

/// A `--ca DIR` flag naming the local CA's folder explicitly: it must hold a CA already (a typo must not mint a
/// new CA that no client trusts); without the flag the default folder is created on first use.
enum CAFolderOption {
    static func check(_ directory: String, option: String, command: [String]) throws(UsageError) -> String {
        guard FileManager.default.fileExists(atPath: directory + "/" + CertificateAuthority.certificateFileName) else {
            throw UsageError(
                "\(option) \(directory): no CA there (no \(CertificateAuthority.certificateFileName)); create one with "
                    + "squall ca init --dir \(directory), or leave out \(option) for the default CA", command: command)
        }
        return directory
    }
}
