import Foundation
import SquallCLI

exit(
    SquallCommand.main(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
