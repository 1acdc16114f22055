import Foundation
import Synchronization

/// A command-line tool the tests check artefacts with, such as tshark and capinfos for captures.
///
/// Tools/setup.sh installs them, so a missing tool is a test failure (with the package to install), not a skip.
public struct ExternalTool: Sendable {
    /// Where the tool lives.
    public let path: String
    /// The Debian package that provides it, for the message when it is missing.
    public let package: String

    public init(path: String, package: String) {
        self.path = path
        self.package = package
    }

    /// Wireshark's command-line dissector.
    public static let tshark = ExternalTool(path: "/usr/bin/tshark", package: "tshark")
    /// Wireshark's capture-file summary tool.
    public static let capinfos = ExternalTool(path: "/usr/bin/capinfos", package: "wireshark-common")

    /// What a run of the tool gave: its exit status, stdout and stderr.
    public struct Outcome: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// Runs the tool with `arguments` and returns its stdout; throws with its stderr when it exits non-zero, when
    /// it is missing, or when it takes over two minutes.
    public func run(_ arguments: [String]) throws -> String {
        let outcome = try execute(arguments)
        guard outcome.status == 0 else {
            throw TLSFixtures.Failure("\(path) \(arguments.joined(separator: " ")) failed: \(outcome.standardError)")
        }
        return outcome.standardOutput
    }

    /// Runs the tool with `arguments` (in `directory` when given, with `environment` added to this process's) and
    /// returns how it ended, whatever its exit status; throws when it is missing or takes longer than `limit`.
    public func execute(
        _ arguments: [String], in directory: String? = nil, environment: [String: String] = [:],
        limit: Duration = .seconds(120)
    ) throws -> Outcome {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TLSFixtures.Failure("\(path) is missing: Tools/setup.sh installs the Debian package \(package)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        // Both pipes are drained while the tool runs: its output can exceed a pipe's buffer.
        let stdout = Self.drain(output.fileHandleForReading)
        let stderr = Self.drain(errors.fileHandleForReading)
        let (seconds, attoseconds) = limit.components
        let wait = DispatchTimeInterval.milliseconds(Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        if done.wait(timeout: .now() + wait) == .timedOut {
            process.terminate()
            throw TLSFixtures.Failure("\(path) \(arguments.joined(separator: " ")) took over \(limit)")
        }
        return Outcome(
            status: process.terminationStatus, standardOutput: String(decoding: stdout(), as: UTF8.self),
            standardError: String(decoding: stderr(), as: UTF8.self))
    }

    /// Reads `handle` to its end on another thread; the returned closure waits for the bytes.
    private static func drain(_ handle: FileHandle) -> () -> Data {
        let collected = Mutex(Data())
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = handle.readDataToEndOfFile()
            collected.withLock { $0 = data }
            finished.signal()
        }
        return {
            finished.wait()
            return collected.withLock { $0 }
        }
    }
}
