import Foundation
import QRCodes
import SquallCore
import TLSKit

/// Where the local CA lives unless `--dir` says otherwise: `$SQUALL_CA_DIR`, else `$HOME/.squall/ca`.
func defaultCADirectory(_ environment: [String: String]) -> String {
    if let directory = environment["SQUALL_CA_DIR"], !directory.isEmpty { return directory }
    return "\(environment["HOME"] ?? ".")/.squall/ca"
}

private let directoryOption = OptionSpec.value(
    "--dir", "DIR", help: "The CA folder (default: $SQUALL_CA_DIR, else ~/.squall/ca).")

/// `squall ca init`: creates the local CA (or keeps the one already there) and prints its certificate path.
enum CAInitCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["ca", "init"],
        summary: "Create the local CA that clients must trust, or keep the existing one.",
        usage: "[--dir DIR]",
        options: [directoryOption],
        discussion: """
            Prints the path of the CA certificate (ca.pem) on stdout, so `curl --cacert "$(squall ca init)"` works.
            The private key is ca-key.pem beside it, readable by its owner only (mode 0600). An existing CA is
            never overwritten.
            """
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let directory = arguments["--dir"] ?? defaultCADirectory(context.environment)
        let existed = (try? CertificateAuthority.load(directory: directory)) != nil
        let authority = try CertificateAuthority.loadOrCreate(directory: directory)
        context.console.print(authority.certificatePath)
        if let warning = authority.keyExposure { context.console.printError("squall ca init: warning: \(warning)") }
        let verb = existed ? "kept the existing" : "created a new"
        context.console.printError("squall ca init: \(verb) local CA in \(directory) (\(authority.fingerprintSHA256))")
        return 0
    }
}

/// `squall ca show`: prints where the local CA is and what it is.
enum CAShowCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["ca", "show"],
        summary: "Show the local CA: certificate path, subject, SHA-256 fingerprint, expiry.",
        usage: "[--dir DIR] [--url API-URL]",
        options: [
            directoryOption,
            .value(
                "--url", "API-URL",
                help:
                    "The control API as a phone reaches it (http://192.168.1.20:8474): print its profile's URL and QR code."
            ),
        ],
        discussion: """
            The first line is the path of the CA certificate that clients must trust. With --url, the URL of the
            Apple configuration profile the proxy's control API serves (API-URL/ca.mobileconfig) and a QR code of it
            for a phone's camera (light modules drawn as blocks, for a dark terminal), after a blank line.
            """
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let directory = arguments["--dir"] ?? defaultCADirectory(context.environment)
        let authority = try CertificateAuthority.load(directory: directory)
        let console = context.console
        console.print(authority.certificatePath)
        console.print("subject:     \(authority.subject)")
        console.print("sha256:      \(authority.fingerprintSHA256)")
        console.print("not after:   \(authority.notAfter)")
        console.print("private key: \(authority.keyPath)")
        if let warning = authority.keyExposure { console.printError("squall ca show: warning: \(warning)") }
        if let api = arguments["--url"] {
            // The control API speaks plain HTTP (a phone cannot trust the CA before it has it): http://HOST[:PORT].
            guard let url = URLComponents(string: api), url.scheme == "http", let host = url.host, !host.isEmpty,
                url.query == nil, url.fragment == nil, url.path.isEmpty || url.path == "/"
            else {
                throw UsageError(
                    "--url must be the control API's address as the phone reaches it, http://HOST:PORT, not '\(api)'",
                    command: spec.path)
            }
            let profile = (api.hasSuffix("/") ? String(api.dropLast()) : api) + "/ca.mobileconfig"
            let code: QRCode
            do {
                code = try QRCode(profile)
            } catch {
                throw UsageError("--url \(api): \(error.reason)", command: spec.path)
            }
            console.print("profile:     \(profile)")
            console.print("")
            for line in code.terminalLines() { console.print(line) }
        }
        return 0
    }
}
