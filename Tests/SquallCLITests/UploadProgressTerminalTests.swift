import CSystem
import Foundation
import Glibc
import TestSupport
import Testing
import UploadClient
import UploadJobs

@testable import SquallCLI

/// The progress `squall upload` shows: the line's wording (pure), the redraws on a terminal and the plain lines
/// elsewhere (events fed to a capturing console), and the real binary on a pseudo-terminal, with and without
/// `NO_COLOR`.
struct UploadProgressTerminalTests {
    @Test func theLineHasTheBarBytesRateAndTimeLeft() {
        var line = TransferProgressLine(name: "photo.heic", sent: 1 << 20, size: 4 << 20, bytesPerSecond: 1_048_576)
        line.filesDone = 1
        line.files = 3
        line.others = 1
        #expect(
            line.text(color: false)
                == "photo.heic  [######..................]  25%  1.0 MiB/4.0 MiB sent  1.0 MiB/s  ETA 0:03  "
                + "(1/3 files, 1 more running)")
        #expect(line.text(color: true).contains("[\u{1B}[32m######\u{1B}[0m.................."))
        line.finalising = true
        line.sent = 4 << 20
        #expect(line.text(color: false).contains("[########################]  100%  4.0 MiB/4.0 MiB sent  finalising"))
        #expect(!line.text(color: false).contains("ETA"))
    }

    /// Unknown length: a block slides back and forth; no percentage, no time left.
    @Test func anUnknownLengthIsIndeterminate() {
        let lines = (0..<50).map {
            TransferProgressLine(name: "stream", sent: 2048, size: nil, bytesPerSecond: 512, tick: $0).text(
                color: false)
        }
        #expect(lines[0].hasPrefix("stream  [<=>                     ]  2.0 KiB sent  512 B/s  (0/1 files)"))
        #expect(lines[21].contains("[                     <=>]"))
        #expect(lines[22].contains("[                    <=> ]"))
        #expect(lines.allSatisfy { !$0.contains("%") && !$0.contains("ETA") })
    }

    /// The line fits the terminal: at 120 columns whole, at 80 without the time left and the rate, narrower still
    /// with a shorter bar and the name cut short; at any width never longer.
    @Test(arguments: [120, 80, 60, 40, 12])
    func theLineNeverExceedsTheWidth(width: Int) {
        var line = TransferProgressLine(
            name: "a-rather-long-file-name-from-the-camera-roll.heic", sent: 1 << 20, size: 4 << 20,
            bytesPerSecond: 1_048_576)
        line.filesDone = 1
        line.files = 3
        line.others = 1
        let text = line.text(color: false, width: width)
        #expect(text.count <= width, "\(text)")
        let colored = line.text(color: true, width: width)
        #expect(
            colored.replacingOccurrences(of: "\u{1B}[32m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
                == text)
        if width == 120 { #expect(text.contains("/s") && text.contains("(1/3 files") && !text.contains("ETA")) }
        if width == 80 { #expect(text.contains("25%") && text.contains("sent") && !text.contains("ETA")) }
        if width <= 60 { #expect(text.contains("…")) }
        #expect(line.text(color: false, width: 200) == line.text(color: false), "a wide terminal: the whole line")
    }

    /// A reset and the resume after it are said, in a pipe and on a terminal (above the redrawn line).
    @Test func aResetAndAResumeAreSaid() {
        func feed(_ console: Console) {
            let progress = UploadProgress(console: console, assets: [UploadAsset(path: "/a/clip.mov", size: 3_000_000)])
            let id = JobID(1)
            progress.handle(.transferStarted(id, assetID: "/a/clip.mov", size: 3_000_000, reconciling: false))
            progress.handle(.progress(id, sent: 1_500_000, size: 3_000_000))
            progress.handle(.interrupted(id, at: 1_500_000, cause: .networkConnectionLost))
            progress.handle(.resumed(id, from: 1_400_000))
            progress.handle(.progress(id, sent: 3_000_000, size: 3_000_000))
            progress.handle(.transferEnded(id, state: .succeeded, error: nil, status: 204, detail: nil))
            progress.finish()
        }
        let pipe = Console.capturing()
        feed(pipe)
        #expect(
            pipe.standardOutput.contains(
                "clip.mov: the connection was lost at 1.4 MiB sent; asking the server how much it has\n"))
        #expect(pipe.standardOutput.contains("clip.mov: resumed from the server's 1.3 MiB\n"))
        let terminal = Console.capturing(terminal: true, columns: 80)
        feed(terminal)
        #expect(terminal.standardOutput.contains("\r\u{1B}[2Kclip.mov: resumed from the server's 1.3 MiB\n"))
        for line in Self.redrawn(terminal.standardOutput) { #expect(line.count <= 80, "\(line)") }
    }

    @Test func timesAndSizesRead() {
        #expect(TransferProgressLine.clock(6.2) == "0:07")
        #expect(TransferProgressLine.clock(750) == "12:30")
        #expect(TransferProgressLine.clock(3723) == "1:02:03")
        #expect(TransferProgressLine.clock(.infinity) == "--:--")
        #expect(TransferProgressLine.size(512) == "512 B")
        #expect(TransferProgressLine.size(1536) == "1.5 KiB")
    }

    /// On a terminal the line is redrawn in place and says `finalising` between the last byte and the response;
    /// elsewhere the same events give plain lines (the negative control: no carriage return, no escape).
    @Test func aTerminalGetsRedrawsAndAPipeGetsLines() {
        func feed(_ console: Console) {
            let progress = UploadProgress(
                console: console, assets: [UploadAsset(path: "/a/photo.heic", size: 1000)])
            let id = JobID(1)
            progress.handle(.transferStarted(id, assetID: "/a/photo.heic", size: 1000, reconciling: false))
            progress.handle(.progress(id, sent: 1000, size: 1000))
            progress.handle(.finalising(id))
            progress.handle(.transferEnded(id, state: .succeeded, error: nil, status: 201, detail: nil))
            progress.finish()
        }
        let terminal = Console.capturing(terminal: true, color: true)
        feed(terminal)
        #expect(terminal.standardOutput.contains("\r\u{1B}[2Kphoto.heic  [\u{1B}[32m"))
        #expect(terminal.standardOutput.contains("finalising: every byte sent, waiting for the server's response"))
        #expect(terminal.standardOutput.contains("(1/1 files)"))
        let pipe = Console.capturing()
        feed(pipe)
        #expect(!pipe.standardOutput.contains("\r"))
        #expect(!pipe.standardOutput.contains("\u{1B}"))
        #expect(pipe.standardOutput.contains("photo.heic: all bytes sent, waiting for the server's response\n"))
        #expect(pipe.standardOutput.contains("photo.heic: succeeded\n"))
    }

    /// The built binary on a pseudo-terminal: redrawn lines, `finalising`, colour unless `NO_COLOR` is set.
    @Test(arguments: [false, true])
    func theBinaryOnAPseudoTerminal(noColor: Bool) throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let server = try ServerProcess(store: folder.file("store"))
        let file = folder.file("photo.heic")
        _ = try UploadCommandTests.write(3 << 20, seed: 5, to: file)
        let text = try Self.onTerminal(
            ["upload", "--to", server.url + "/upload", file], environment: noColor ? ["NO_COLOR": "1"] : [:])
        #expect(text.contains("\r\u{1B}[2Kphoto.heic  ["), "\(text.debugDescription)")
        #expect(text.contains("finalising"), "\(text.debugDescription)")
        #expect(text.contains("(1/1 files)"))
        #expect(text.contains("\u{1B}[32m") == !noColor, "\(text.debugDescription)")
    }

    /// `squall run` on a terminal: the scenario's transfer on the redrawn line, after `[1/1] name`, then its verdict.
    @Test func theRunCommandShowsTheScenariosTransferOnATerminal() throws {
        let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scenarios/app-switch-stall.json").path
        let text = try Self.onTerminal(["run", catalog], environment: ["NO_COLOR": "1"])
        #expect(text.contains("\r\u{1B}[2K[1/1] app-switch-stall  photo"), "\(text.debugDescription)")
        #expect(text.contains("finalising"), "\(text.debugDescription)")
        #expect(text.contains("\r\u{1B}[2KPASS app-switch-stall"), "\(text.debugDescription)")
    }

    /// The built binary on pseudo-terminals of 80 and 120 columns: no redrawn line is wider.
    @Test(arguments: [80, 120])
    func theBinaryKeepsTheLineWithinTheTerminal(columns: Int) throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let server = try ServerProcess(store: folder.file("store"))
        let file = folder.file("a-rather-long-file-name-from-the-camera-roll-of-a-phone.heic")
        _ = try UploadCommandTests.write(3 << 20, seed: 5, to: file)
        let text = try Self.onTerminal(
            ["upload", "--to", server.url + "/upload", file], environment: ["NO_COLOR": "1"], columns: columns)
        #expect(text.contains("sent"), "\(text.debugDescription)")
        let redrawn = Self.redrawn(text)
        #expect(!redrawn.isEmpty)
        for line in redrawn { #expect(line.count <= columns, "\(line)") }
    }

    /// The redrawn progress lines of a terminal's output: each text after a carriage return and erase, up to the
    /// next one or a newline, that holds a bar (a printed line, such as a reset said above the progress line, may
    /// wrap; a redrawn one must not).
    static func redrawn(_ output: String) -> [String] {
        output.components(separatedBy: "\r\u{1B}[2K").dropFirst().compactMap { segment in
            let line = String(segment.prefix { !$0.isNewline })
            return line.contains("  [") ? line : nil
        }
    }

    /// Runs the built `squall` with its stdout and stderr on a new pseudo-terminal (`columns` wide when given);
    /// returns all it wrote there.
    static func onTerminal(_ arguments: [String], environment: [String: String], columns: Int? = nil) throws -> String {
        var path = [CChar](repeating: 0, count: 64)
        let primary = squall_open_pseudo_terminal(&path, path.count)
        try #require(primary >= 0, "no pseudo-terminal: errno \(errno)")
        defer { close(primary) }
        if let columns { try #require(squall_set_terminal_size(primary, 40, Int32(columns)) == 0) }
        let secondary = open(
            String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), O_RDWR | O_NOCTTY)
        try #require(secondary >= 0, "cannot open the pseudo-terminal's secondary side: errno \(errno)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SquallBinaryTests.binary)
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment
        inherited["NO_COLOR"] = nil
        process.environment = inherited.merging(environment) { $1 }
        let handle = FileHandle(fileDescriptor: secondary, closeOnDealloc: false)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        close(secondary)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            // Ends with EIO once the last holder of the secondary side (the child) has exited.
            let count = read(primary, &buffer, buffer.count)
            if count <= 0 { break }
            output += buffer[0..<count]
        }
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "squall \(arguments) exited \(process.terminationStatus)")
        return String(decoding: output, as: UTF8.self)
    }
}
