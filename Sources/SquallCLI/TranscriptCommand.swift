import Glibc
import ProxyTranscript
import SquallCore
import SquallNet

/// `squall transcript to-har FILE`: a `--transcript` JSON Lines file (`squall proxy`, a debug bundle) as an HTTP
/// Archive, read and written a line at a time.
enum TranscriptToHARCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["transcript", "to-har"],
        summary: "Turn a proxy transcript (JSON Lines) into an HTTP Archive (HAR 1.2).",
        usage: "FILE [--out FILE]",
        options: [.value("--out", "FILE", help: "Write the HAR here (replaced whole, mode 0600). Default stdout.")],
        maxPositionals: 1,
        discussion: """
            Reads FILE, a transcript written by 'squall proxy --transcript' or a debug bundle's transcript.jsonl,
            one line at a time, and writes one HAR entry per request: its heads, body sizes and timings, dated
            from the transcript's first line (the proxy's start; 1970-01-01 when the file has none), with every
            interim response (104 Upload Resumption Supported) in _interimResponses and the faults that fired in
            _faults. A request the connection lost before its answer has status 0 and says why in _error. A line
            that is not a transcript event is an error naming its line number; nothing is written then.
            """
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard let input = arguments.positionals.first else {
            throw UsageError("name the transcript file (JSON Lines from squall proxy --transcript)", command: spec.path)
        }
        guard let file = fopen(input, "r") else {
            throw CommandFailure("\(input): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var recorder = HARRecorder()
        var entries: [String] = []
        var lineNumber = 0
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        while getline(&buffer, &capacity, file) > 0, let buffer {
            lineNumber += 1
            let line = String(cString: buffer).trimmingTrailingNewline
            guard !line.isEmpty else { continue }
            do {
                entries += recorder.add(try TranscriptEvent(jsonLine: line))
            } catch {
                throw CommandFailure(
                    "\(input) line \(lineNumber): \(error); is it a squall proxy --transcript file?")
            }
        }
        entries += recorder.finish()
        let archive =
            HARRecorder.prologue(version: SquallVersion.current) + entries.joined(separator: ",\n")
            + HARRecorder.epilogue
        guard let output = arguments["--out"] else {
            context.console.print(String(archive.dropLast()))
            return 0
        }
        do {
            // Whole or not at all, 0600: request heads carry bearer tokens.
            try DurableFile.replace(output, with: Array(archive.utf8), mode: 0o600, synced: false)
        } catch {
            throw CommandFailure("--out \(output): \(error.call) failed: \(String(cString: strerror(error.errno)))")
        }
        context.console.printError("squall transcript to-har: \(entries.count) entries written to \(output)")
        return 0
    }
}

extension String {
    fileprivate var trimmingTrailingNewline: String {
        var line = self
        while line.last?.isNewline == true { line.removeLast() }
        return line
    }
}
