import Glibc
import SquallCore
import Synchronization

/// The reference server's request log: one JSON object per line (JSON Lines), appended to a file.
///
/// The file is opened with `O_APPEND`, so a server restarted on the same file continues it. Each line goes to
/// the kernel with its own `write(2)` as soon as it is made (no buffering, no fsync): a SIGKILL of the server
/// leaves every line written so far, and memory stays bounded. Lines from different connections are serialized
/// by a lock, in the order they were made. A failed write is dropped: the log is a debugging aid, never a
/// reason to fail a request.
///
/// Every line starts with `"time"` (UTC wall clock, microseconds) and `"event"`, then the event's fields in the
/// order given.
final class ServerLog: Sendable {
    /// A field's value.
    enum Value {
        case string(String)
        case int(Int64)
        case bool(Bool)
    }

    let path: String
    private let descriptor: Mutex<Int32>

    /// Opens (or creates, mode 0644) `path` for appending.
    init(path: String) throws(ServerLogError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw ServerLogError(
                .cannotOpen, path: path, errno: code,
                "cannot open the server log \(path): \(String(cString: strerror(code)))")
        }
        self.path = path
        self.descriptor = Mutex(fd)
    }

    deinit {
        descriptor.withLock { _ = close($0) }
    }

    /// Appends the line of `event` with `fields`, stamped with the current time.
    func record(_ event: String, _ fields: KeyValuePairs<String, Value?> = [:]) {
        descriptor.withLock { fd in
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let line = Self.line(time: now, event: event, fields: fields)
            Self.writeAll(Array(line.utf8), to: fd)
        }
    }

    /// The JSON object of one event, with its newline; fields whose value is nil are left out.
    static func line(time: timespec, event: String, fields: KeyValuePairs<String, Value?>) -> String {
        var line = "{\"time\":" + quoted(timestamp(time)) + ",\"event\":" + quoted(event)
        for (key, value) in fields {
            guard let value else { continue }
            line += "," + quoted(key) + ":"
            switch value {
            case .string(let text): line += quoted(text)
            case .int(let number): line += String(number)
            case .bool(let flag): line += flag ? "true" : "false"
            }
        }
        return line + "}\n"
    }

    /// `text` as a JSON string (RFC 8259 §7).
    static func quoted(_ text: String) -> String {
        JSONText.quoted(text)
    }

    /// `time` in UTC as RFC 3339 with microseconds: `2026-11-29T21:43:07.123456Z`.
    static func timestamp(_ time: timespec) -> String {
        var seconds = time.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let date = [
            padded(Int(parts.tm_year) + 1900, 4), padded(Int(parts.tm_mon) + 1, 2), padded(Int(parts.tm_mday), 2),
        ]
        let clock = [padded(Int(parts.tm_hour), 2), padded(Int(parts.tm_min), 2), padded(Int(parts.tm_sec), 2)]
        return date.joined(separator: "-") + "T" + clock.joined(separator: ":") + "."
            + padded(Int(time.tv_nsec) / 1000, 6) + "Z"
    }

    /// Writes every byte, retrying after a signal or a short write; gives up on any other error.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
