import CSystem
import Foundation
import Glibc

/// Processes a test did not start itself (a command's children) seen from outside: which exist, and waiting for
/// one to end through its pidfd, a readiness signal rather than a sleep.
public enum ProcessWatch {
    /// The processes whose parent is `parent`, with their command lines, from `/proc`.
    public static func children(of parent: Int32) -> [(pid: Int32, arguments: [String])] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> (Int32, [String])? in
            guard let pid = Int32(entry), parentOf(pid) == parent else { return nil }
            let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
            return (pid, line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
        }
    }

    /// Whether process `pid` is gone or has ended (a zombie no one reaped yet), waiting at most `timeout`.
    public static func waitForEnd(of pid: Int32, timeout: Duration) -> Bool {
        let descriptor = squall_pidfd_open(pid)
        guard descriptor >= 0 else { return errno == ESRCH }
        defer { close(descriptor) }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000)
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            return ready == 1
        }
    }

    /// The parent of `pid` (the fourth field of `/proc/PID/stat`, after the command name in parentheses).
    private static func parentOf(_ pid: Int32) -> Int32? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }
}
