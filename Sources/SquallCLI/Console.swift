import CSystem
import Glibc
import Synchronization

/// Where a command's output goes: the process's stdout and stderr, or buffers in tests.
///
/// Colour is used only on a terminal and never when `NO_COLOR` is set (https://no-color.org).
public final class Console: Sendable {
    private enum Sink {
        case standardStreams
        case buffers
    }

    private let sink: Sink
    private let captured = Mutex<(out: String, err: String)>(("", ""))
    /// Whether ANSI colours are written.
    public let usesColor: Bool
    /// Whether stdout is a terminal (a progress line may then be redrawn in place).
    public let isTerminal: Bool
    /// The terminal's width in columns, which a redrawn line must not exceed (a longer one wraps and the next
    /// redraw leaves its tail behind); nil when not a terminal or it does not say.
    public let columns: Int?

    private init(sink: Sink, usesColor: Bool, isTerminal: Bool, columns: Int?) {
        self.sink = sink
        self.usesColor = usesColor
        self.isTerminal = isTerminal
        self.columns = columns
    }

    /// The process's own stdout and stderr; colour only when stdout is a terminal and `NO_COLOR` is unset or
    /// empty.
    public static func standard(
        environment: [String: String], isTerminal: Bool = isatty(STDOUT_FILENO) == 1
    ) -> Console {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let width = isTerminal ? Int(squall_terminal_columns(STDOUT_FILENO)) : 0
        return Console(
            sink: .standardStreams, usesColor: !noColor && isTerminal, isTerminal: isTerminal,
            columns: width > 0 ? width : nil)
    }

    /// A console that keeps what is written, for tests; as a terminal (with colour or not, `columns` wide) when
    /// asked.
    public static func capturing(terminal: Bool = false, color: Bool = false, columns: Int? = nil) -> Console {
        Console(sink: .buffers, usesColor: terminal && color, isTerminal: terminal, columns: terminal ? columns : nil)
    }

    /// Everything written to stdout so far (capturing consoles only).
    public var standardOutput: String { captured.withLock { $0.out } }

    /// Everything written to stderr so far (capturing consoles only).
    public var standardError: String { captured.withLock { $0.err } }

    /// Writes a line to stdout.
    public func print(_ line: String) {
        write(line + "\n", toError: false)
    }

    /// Replaces the current terminal line with `line` (no newline); only meaningful when `isTerminal`.
    public func redraw(_ line: String) {
        write("\r\u{1B}[2K" + line, toError: false)
    }

    /// Writes a line to stderr.
    public func printError(_ line: String) {
        write(line + "\n", toError: true)
    }

    /// Wraps `text` in an ANSI colour when colours are on.
    public func styled(_ text: String, _ style: Style) -> String {
        usesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// The ANSI styles the CLI uses.
    public enum Style: String, Sendable {
        case green = "32"
        case red = "31"
        case bold = "1"
        case dim = "2"
    }

    private func write(_ text: String, toError: Bool) {
        switch sink {
        case .standardStreams:
            var bytes = Array(text.utf8)
            let fd = toError ? STDERR_FILENO : STDOUT_FILENO
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes {
                    Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset)
                }
                if written <= 0 { return }
                offset += written
            }
        case .buffers:
            captured.withLock { if toError { $0.err += text } else { $0.out += text } }
        }
    }
}
