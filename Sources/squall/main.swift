import Glibc
import SquallCLI

exit(SquallCommand.main(arguments: Array(CommandLine.arguments.dropFirst())))
