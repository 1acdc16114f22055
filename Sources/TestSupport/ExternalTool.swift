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

    /// Runs the tool with `arguments` and returns its stdout; throws with its stderr when it exits non-zero, when
    /// it is missing, or when it takes over two minutes.
    public func run(_ arguments: [String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TLSFixtures.Failure("\(path) is missing: Tools/setup.sh installs the Debian package \(package)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
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
        if done.wait(timeout: .now() + 120) == .timedOut {
            process.terminate()
            throw TLSFixtures.Failure("\(path) took over two minutes")
        }
        let (out, err) = (stdout(), stderr())
        guard process.terminationStatus == 0 else {
            let message = String(decoding: err, as: UTF8.self)
            throw TLSFixtures.Failure("\(path) \(arguments.joined(separator: " ")) failed: \(message)")
        }
        return String(decoding: out, as: UTF8.self)
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
