// squall-bench: throughput benchmarks, run in release mode (`swift build -c release --product squall-bench`).
// `squall-bench help` lists the subcommands; BenchCommand.swift says how to add one.
import Glibc
import SquallNet

ProcessSetup.ignoreBrokenPipe()
exit(BenchMain.run(Array(CommandLine.arguments.dropFirst())))
