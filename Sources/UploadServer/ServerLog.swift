import Glibc
import SquallCore
import SquallNet
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
            let line = Self.line(unixMicroseconds: WallClock.unixMicroseconds(), event: event, fields: fields)
            FileDescriptor.writeAll(Array(line.utf8), to: fd)
        }
    }

    /// The JSON object of one event, with its newline; fields whose value is nil are left out.
    static func line(unixMicroseconds: Int64, event: String, fields: KeyValuePairs<String, Value?>) -> String {
        let time = UTCTimestamp.text(unixMicroseconds: unixMicroseconds, fractionDigits: 6)
        var line = "{\"time\":" + quoted(time) + ",\"event\":" + quoted(event)
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

}
