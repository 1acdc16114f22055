import Capture
import TLSKit

/// `squall version`: the Squall version and the versions of the C libraries it is linked against.
enum VersionCommand: Subcommand {
    /// Squall's own version.
    static let squallVersion = "0.1.0"

    static let spec = CommandSpec(
        path: ["version"],
        summary: "Print Squall's version and the OpenSSL and libpcap it uses."
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let console = context.console
        console.print("squall \(squallVersion)")
        console.print(TLSLibrary.versionDescription)
        console.print(PcapLibrary.versionDescription)
        return 0
    }
}
