/// An error from packet capture: a stable `code` and a one-line `detail` naming the file or device and what
/// libpcap or the system said. Compare on `code`.
public struct CaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable identity of a capture failure.
    public enum Code: String, Sendable {
        /// The capture file could not be created.
        case open
        /// Writing or flushing the capture file failed.
        case write
        /// The writer was already closed.
        case closed
        /// Live capture is not permitted (not root, no CAP_NET_RAW).
        case notPermitted
        /// Live capture could not be activated for another reason (no such device, the device is down).
        case unavailable
        /// The BPF filter did not compile or could not be installed.
        case filter
        /// Live capture failed after activation (non-blocking mode, selectable descriptor, stop signal).
        case live
        /// An address has no IPv4 form for a synthesized packet.
        case invalidAddress
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String {
        "\(code.rawValue): \(detail)"
    }
}
