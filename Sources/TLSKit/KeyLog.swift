import Glibc
import SquallNet
import Synchronization

/// A sink for TLS secrets in the NSS key log format (`SSLKEYLOGFILE`), which Wireshark uses to decrypt
/// captures: `CLIENT_RANDOM <client random> <master secret>` for TLS 1.2, and for TLS 1.3
/// `CLIENT_HANDSHAKE_TRAFFIC_SECRET`, `SERVER_HANDSHAKE_TRAFFIC_SECRET`, `CLIENT_TRAFFIC_SECRET_0`,
/// `SERVER_TRAFFIC_SECRET_0` and `EXPORTER_SECRET` lines, all hex.
///
/// Lines are appended with one `write(2)` each on an `O_APPEND` descriptor, so they reach the file as
/// they come (no user-space buffer) and never interleave, whatever the number of threads.
public final class KeyLog: Sendable {
    public let path: String
    private let descriptor: Mutex<Int32>

    /// Opens `path` for appending, mode 0600 (`PrivateFile`: the secrets decrypt traffic).
    public init(path: String) throws {
        let fd = PrivateFile.open(path, flags: O_WRONLY | O_APPEND)
        guard fd >= 0 else { throw TLSError.system(.io, "open key log \(path)") }
        self.path = path
        self.descriptor = Mutex(fd)
    }

    deinit {
        close()
    }

    /// Appends one line; a newline is added.
    public func append(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        write(bytes)
    }

    /// Appends one NUL-terminated line as OpenSSL hands it over; a newline is added.
    func append(cString line: UnsafePointer<CChar>) {
        let length = strlen(line)
        var bytes = [UInt8](repeating: 0x0A, count: length + 1)
        bytes.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: line, count: length)) }
        write(bytes)
    }

    /// Closes the file; later lines are dropped.
    public func close() {
        descriptor.withLock { fd in
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }
    }

    private func write(_ bytes: [UInt8]) {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            var offset = 0
            while offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                offset += count
            }
        }
    }
}
