import Glibc
import SquallNet

/// The client connection preface of HTTP/2 (RFC 9113 §3.4), by which a cleartext client with prior knowledge
/// (§3.3) says it speaks HTTP/2 from its first byte.
public enum HTTP2Preface {
    public static let bytes = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// Whether the first bytes `socket` receives are the preface, looked at without taking them (an HTTP/1.1
    /// request is never one); waits for them until `deadline`, false when they do not come by then.
    public static func comes(on socket: Socket, before deadline: ContinuousClock.Instant) -> Bool {
        var first = [UInt8](repeating: 0, count: bytes.count)
        while true {
            guard let count = try? socket.peek(into: &first, until: deadline), count > 0 else { return false }
            guard first[..<count].elementsEqual(bytes[..<count]) else { return false }
            if count == bytes.count { return true }
            // A prefix of the preface so far: the rest is on its way.
            guard ContinuousClock.now < deadline else { return false }
            usleep(1000)
        }
    }
}
