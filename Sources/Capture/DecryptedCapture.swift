import PacketSynthesis
import Synchronization

/// One pcap file of plaintext TCP connections, shared by many connection threads: the proxy's decrypted legs,
/// synthesized as TCP/IPv4 packets (see `TCPFlowSynthesizer`) so Wireshark reassembles them without any key.
///
/// Capture never stops the traffic it records: a write failure is kept in `firstError` (the harness reports
/// it) and the capture writes nothing more.
/// ```
/// proxy thread ──CapturedConnection.data──▶ TCPFlowSynthesizer ──packets──▶ PcapFileWriter (lock, flush)
/// ```
public final class DecryptedCapture: Sendable {
    /// The capture file.
    public var path: String { writer.path }
    /// How every connection's packets are shaped.
    public let configuration: TCPFlowSynthesizer.Configuration
    private let writer: PcapFileWriter
    private let failure = Mutex<CaptureError?>(nil)

    /// Creates (or truncates) the capture file at `path`.
    public init(
        path: String, configuration: TCPFlowSynthesizer.Configuration = TCPFlowSynthesizer.Configuration()
    ) throws(CaptureError) {
        writer = try PcapFileWriter(path: path)
        self.configuration = configuration
    }

    /// Starts recording a connection: writes its handshake now.
    public func connection(client: IPv4Endpoint, server: IPv4Endpoint) -> CapturedConnection {
        let connection = CapturedConnection(
            capture: self,
            flow: TCPFlowSynthesizer(client: client, server: server, configuration: configuration))
        connection.open()
        return connection
    }

    /// The first write failure, if any; after it nothing more is written.
    public var firstError: CaptureError? {
        failure.withLock { $0 }
    }

    /// Flushes and closes the file; later calls, and connections' later events, do nothing.
    public func close() {
        do {
            try writer.close()
        } catch {
            record(error)
        }
    }

    /// Writes the packets `body` produces as one batch, stamped with the wall clock, then flushes.
    func writeBatch(_ body: (_ write: (UnsafeRawBufferPointer) -> Void) -> Void) {
        guard firstError == nil else { return }
        do {
            try writer.writeBatch(body)
        } catch  where error.code == .closed {
            return
        } catch {
            record(error)
        }
    }

    private func record(_ error: CaptureError) {
        failure.withLock { first in
            if first == nil { first = error }
        }
    }
}
