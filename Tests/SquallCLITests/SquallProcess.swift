import Foundation
import Glibc
import TestSupport

/// The built `squall` run as a user runs it, with a temporary folder of its own as `TMPDIR` (so a test sees what
/// it leaves behind). Its stdout is read line by line (the readiness signal), its stderr once it ended.
final class SquallProcess {
    let process = Process()
    /// The process's `TMPDIR`, removed with what is left in it when the test ends.
    let temporary: TLSFixtures.TemporaryDirectory
    private let output = Pipe()
    private let errors = Pipe()

    init(_ arguments: [String]) throws {
        temporary = try TLSFixtures.TemporaryDirectory()
        process.executableURL = URL(fileURLWithPath: SquallBinaryTests.binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["TMPDIR": temporary.path, "NO_COLOR": "1"]
        ) { $1 }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// The next stdout line, waiting at most `ServerProcess.patience`.
    func nextLine() throws -> String {
        try ServerProcess.nextLine(of: output.fileHandleForReading.fileDescriptor)
    }

    /// Reads stdout lines until one satisfies `ready`; returns it.
    func line(where ready: (String) -> Bool) throws -> String {
        while true {
            let line = try nextLine()
            if ready(line) { return line }
        }
    }

    /// Sends `signal` (kill(2)).
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the end (stdout drained); whether it exited rather than died of a signal, its status, and stderr.
    func waitForExit() -> (exited: Bool, status: Int32, errors: String) {
        _ = output.fileHandleForReading.readDataToEndOfFile()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationReason == .exit, process.terminationStatus, text)
    }

    /// What is left in its `TMPDIR`.
    var leftovers: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? ["<unreadable>"]
    }
}
