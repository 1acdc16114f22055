import Foundation
import Glibc
import TestSupport

/// A `squall server` child process listening on 127.0.0.1:0 with its store in a given folder, as a user runs it.
///
/// Ready when `init` returns: the base URL is the first line the server prints on stdout (read with a deadline,
/// never after a sleep). The process is killed with SIGKILL on deinit if the test left it running.
final class ServerProcess {
    /// How long the server may take to print its URL, and to exit after a signal.
    static let patience: Duration = .seconds(10)

    let process = Process()
    /// The base URL, e.g. `http://127.0.0.1:40123`.
    let url: String
    private let output = Pipe()

    /// Starts `squall server --listen listen --store store` plus `arguments` (`listen` a fixed `host:port` to restart
    /// a killed server where its clients expect it). With a `progressInterval`, a progress 104 goes out every that
    /// many bytes with no limit per request and no spacing (the kill tests wait for the offsets they report); nil
    /// keeps the server's default progress policy.
    init(
        store: String, listen: String = "127.0.0.1:0", progressInterval: String? = "64KiB", arguments: [String] = []
    ) throws {
        let progress = progressInterval.map {
            ["--progress-interval", $0, "--progress-limit", "none", "--progress-spacing", "0s"]
        }
        process.executableURL = URL(fileURLWithPath: SquallBinaryTests.binary)
        process.arguments = ["server", "--listen", listen, "--store", store] + (progress ?? []) + arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        do {
            url = try Self.nextLine(of: output.fileHandleForReading.fileDescriptor)
        } catch {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw error
        }
        guard url.hasPrefix("http://127.0.0.1:") else { throw TLSFixtures.Failure("unexpected first line '\(url)'") }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// `host:port` of `url`.
    var authority: String {
        String(url.dropFirst("http://".count))
    }

    /// Sends `signal` and waits for the process to end; returns how it ended.
    @discardableResult
    func stop(with signal: Int32) -> (reason: Process.TerminationReason, status: Int32) {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus)
    }

    /// Reads `descriptor` up to its next newline, one byte at a time, waiting at most `patience` in all.
    static func nextLine(of descriptor: Int32) throws -> String {
        let deadline = ContinuousClock.now + patience
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let left = deadline - .now
            guard left > .zero else { throw TLSFixtures.Failure("no line from the server within \(patience)") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + 1)
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { throw TLSFixtures.Failure("the server ended its output before a line") }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }
}
