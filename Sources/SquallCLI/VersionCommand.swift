import Capture
import SquallCore
import TLSKit

/// `squall version`: the Squall version and the versions of the C libraries it is linked against.
enum VersionCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["version"],
        summary: "Print Squall's version and the OpenSSL and libpcap it uses."
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let console = context.console
        console.print("squall \(SquallVersion.current)")
        console.print(TLSLibrary.versionDescription)
        console.print(PcapLibrary.versionDescription)
        return 0
    }
}
