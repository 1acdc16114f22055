import COpenSSL
import Glibc

/// An error from the TLS layer: a stable `code`, a human `detail` that carries OpenSSL's own words
/// (the error queue, or `X509_verify_cert_error_string`), and the `errno` behind it (0 when none).
///
/// Compare on `code`; the `detail` is for people.
public struct TLSError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The stable identity of a TLS-layer failure.
    public enum Code: String, Sendable {
        /// The CA folder or one of its files does not exist.
        case caMissing
        /// The CA files exist but cannot be parsed, or the key does not match the certificate.
        case caUnreadable
        /// A private key could not be generated or parsed.
        case keyGeneration
        /// A certificate could not be built, signed, parsed or chosen for a connection.
        case certificate
        /// A context could not be configured (versions, ALPN list, trust roots).
        case configuration
        /// The handshake failed for a reason other than certificate verification.
        case handshake
        /// The peer's certificate chain did not verify (untrusted, expired, …).
        case verificationFailed
        /// The chain verified but does not cover the expected host name or IP address.
        case hostnameMismatch
        /// The peer closed the TCP connection without a TLS close_notify (a truncation).
        case unexpectedEOF
        /// The peer broke the TLS protocol after the handshake (bad record, alert, …).
        case protocolError
        /// A system call failed (read, write, poll, file access).
        case io
        /// A blocking helper gave up waiting.
        case timeout
    }

    public var code: Code
    public var errno: Int32
    public var detail: String

    public init(_ code: Code, errno: Int32 = 0, _ detail: String) {
        self.code = code
        self.errno = errno
        self.detail = detail
    }

    public var description: String {
        "\(code.rawValue): \(detail)"
    }

    /// Builds an error whose detail is `context` followed by the drained OpenSSL error queue.
    static func openSSL(_ code: Code, _ context: String) -> TLSError {
        let queue = drainErrorQueue()
        return TLSError(code, queue.isEmpty ? context : "\(context): \(queue)")
    }

    /// Builds the error for a failed system call from the current `errno`.
    static func system(_ code: Code, _ call: String, errno value: Int32 = Glibc.errno) -> TLSError {
        TLSError(code, errno: value, "\(call): \(String(cString: strerror(value)))")
    }

    /// Empties this thread's OpenSSL error queue, returning its entries (`ERR_error_string_n`) joined by "; ".
    static func drainErrorQueue() -> String {
        var entries: [String] = []
        while true {
            let packed = ERR_get_error()
            if packed == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(packed, &buffer, buffer.count)
            entries.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return entries.joined(separator: "; ")
    }
}
