import Foundation
import SquallNet
import TLSKit

/// Ready-made TLS pieces for tests: a CA in a temporary folder, contexts that trust it, and a way to run
/// the `openssl` and `curl` command-line tools.
public enum TLSFixtures {
    /// A test-fixture failure (a tool that could not start, a stream that stalled).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(_ description: String) {
            self.description = description
        }
    }

    /// A fresh folder under the system temporary folder, removed with everything in it on deinit.
    public final class TemporaryDirectory: Sendable {
        public let path: String

        public init() throws {
            var template = Array("\(NSTemporaryDirectory())/squall-tls-XXXXXX".utf8CString)
            guard let created = mkdtemp(&template) else { throw Failure("mkdtemp failed: errno \(errno)") }
            self.path = String(cString: created)
        }

        deinit {
            try? FileManager.default.removeItem(atPath: path)
        }

        /// The path of `name` inside the folder.
        public func file(_ name: String) -> String {
            "\(path)/\(name)"
        }

        /// Writes `text` to `name` inside the folder and returns its path.
        @discardableResult
        public func write(_ text: String, to name: String) throws -> String {
            // Not atomically: swift-corelibs-foundation leaves a /tmp/TemporaryDirectory.* behind per atomic write.
            try text.write(toFile: file(name), atomically: false, encoding: .utf8)
            return file(name)
        }
    }

    /// A new CA in the subfolder `name` of `directory` (which removes it when it goes away).
    public static func makeCertificateAuthority(
        in directory: TemporaryDirectory, named name: String = "ca"
    ) throws -> CertificateAuthority {
        try CertificateAuthority.loadOrCreate(directory: directory.file(name))
    }

    /// A server context that presents `authority`'s leaf for the SNI name (127.0.0.1 when none was sent).
    public static func serverContext(
        authority: CertificateAuthority, configure: (inout TLSServerConfiguration) -> Void = { _ in }
    ) throws -> TLSContext {
        var configuration = TLSServerConfiguration { serverName in
            try authority.leaf(for: serverName ?? "127.0.0.1")
        }
        configure(&configuration)
        return try TLSContext(server: configuration)
    }

    /// A client context that trusts `authority`'s certificate file.
    public static func clientContext(
        authority: CertificateAuthority, configure: (inout TLSClientConfiguration) -> Void = { _ in }
    ) throws -> TLSContext {
        var configuration = TLSClientConfiguration(trust: .caFile(authority.certificatePath))
        configure(&configuration)
        return try TLSContext(client: configuration)
    }

    /// What a command-line tool did.
    public struct ToolResult: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
    }

    /// Runs a tool (found on `PATH`) to completion and captures its output.
    public static func runTool(_ name: String, _ arguments: [String]) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolResult(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}
