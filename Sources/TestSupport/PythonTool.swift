import Foundation

/// Runs Python helpers the tests drive (toxiproxy-python, junitparser, jsonschema; Tools/setup.sh installs them).
public enum PythonTool {
    /// Runs `python3 arguments…` and returns its stdout; throws with its stderr when it fails, or when it takes
    /// over a minute. `package` names what the script needs, for the message.
    public static func run(_ arguments: [String], needs package: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        // The scripts print a few lines, far below a pipe's buffer: waiting before reading cannot block them.
        if done.wait(timeout: .now() + 60) == .timedOut {
            process.terminate()
            throw TLSFixtures.Failure("python3 took over a minute")
        }
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        guard process.terminationStatus == 0 else {
            throw TLSFixtures.Failure(
                "python3 failed (Tools/setup.sh installs \(package)): " + String(decoding: stderr, as: UTF8.self))
        }
        return String(decoding: stdout, as: UTF8.self)
    }
}
