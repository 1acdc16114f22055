import CPcap
import Foundation
import Synchronization

/// Live capture of real traffic to a pcap file with libpcap (`pcap_create` on a device, a BPF filter, and a
/// thread that dumps and flushes every batch), for the wire view of a run: its encrypted loopback traffic,
/// which tshark decrypts with the run's keylog.
///
/// Needs root or CAP_NET_RAW; without them `start` throws `.notPermitted` and the decrypted capture still works.
/// ```
/// start ──▶ live (kernel queues matching packets) ──stop──▶ drained, file closed, counts
/// ```
public final class LiveCapture: Sendable {
    /// The most bytes kept of each frame: tcpdump's default, above loopback's largest frame (65,549 bytes: a
    /// 65,535-byte IPv4 datagram behind the 14-byte Ethernet header lo gives it), so that no frame is cut and
    /// tshark can rebuild every request.
    public static let snapshotLength: Int32 = 262_144

    /// What a capture saw.
    public struct Counts: Sendable, Hashable {
        /// Packets written to the file.
        public var captured: Int
        /// Packets the kernel dropped for lack of buffer space (`pcap_stats`).
        public var dropped: Int
        /// The failure that ended the capture before `stop`, if any (the file holds what came before it).
        public var error: CaptureError?

        public init(captured: Int, dropped: Int, error: CaptureError? = nil) {
            self.captured = captured
            self.dropped = dropped
            self.error = error
        }
    }

    /// The capture file.
    public let path: String
    private let session: LiveCaptureSession
    private let result = Mutex<Counts?>(nil)

    private init(path: String, session: LiveCaptureSession) {
        self.path = path
        self.session = session
    }

    deinit {
        _ = stop()
    }

    /// Starts capturing the packets on `device` that match `filter` (BPF syntax, see `filter(ports:)`) into
    /// `path`. When it returns the capture is live: packets sent afterwards are in the file.
    public static func start(device: String = "lo", filter: String, path: String) throws(CaptureError)
        -> LiveCapture
    {
        let session = try LiveCaptureSession(device: device, filter: filter, path: path)
        let thread = Thread { session.run() }
        thread.name = "squall-live-capture"
        thread.stackSize = 256 * 1024
        thread.start()
        return LiveCapture(path: path, session: session)
    }

    /// Stops: dumps what the kernel still holds, closes the file and waits for the capture thread. Later calls
    /// return the same counts.
    public func stop() -> Counts {
        result.withLock { result in
            if let result { return result }
            let counts = session.stop()
            result = counts
            return counts
        }
    }

    /// The BPF filter for TCP on any of `ports`: `tcp and (port 1 or port 2)`, or `tcp` for none.
    public static func filter(ports: [UInt16]) -> String {
        guard !ports.isEmpty else { return "tcp" }
        return "tcp and (" + ports.map { "port \($0)" }.joined(separator: " or ") + ")"
    }

    /// The error for `pcap_activate`'s `status` on `device` (nil for success or a warning), in one line: a
    /// permission failure is `.notPermitted` and says what live capture needs; any other (no such device, the
    /// device is down) is `.unavailable` with libpcap's reason.
    public static func activationError(status: Int32, device: String, message: String) -> CaptureError? {
        guard status < 0 else { return nil }
        let reason = String(cString: pcap_statustostr(status)) + (message.isEmpty ? "" : ": \(message)")
        guard status == PCAP_ERROR_PERM_DENIED || status == PCAP_ERROR_PROMISC_PERM_DENIED else {
            return CaptureError(
                .unavailable,
                "live capture on '\(device)' is not available (\(reason)); the decrypted capture still works")
        }
        return CaptureError(
            .notPermitted,
            "live capture on '\(device)' is not permitted (\(reason)); it needs root or CAP_NET_RAW, "
                + "the decrypted capture still works")
    }
}
