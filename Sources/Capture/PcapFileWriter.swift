import CPcap
import Glibc
import PacketSynthesis
import Synchronization

/// Writes IPv4 packets to a pcap file through libpcap (`pcap_open_dead` + `pcap_dump`), from any thread.
///
/// The link type is LINKTYPE_RAW (`DLT_RAW`): each record is an IPv4 datagram with no link header, which
/// tshark shows as "Raw IP". Records go through stdio's buffer; `flush()` (or `writeBatch`, which flushes
/// once at its end) pushes them to the file, so a crash leaves a capture readable up to the last batch.
/// All calls hold one lock, so batches from several threads never interleave.
public final class PcapFileWriter: Sendable {
    /// The largest record libpcap is told to expect: a whole IPv4 datagram.
    static let snapshotLength: Int32 = 65_535

    /// libpcap's handles; used only under the lock, which is what makes sending them between threads safe.
    private struct Handles: @unchecked Sendable {
        var pcap: OpaquePointer?
        var dumper: OpaquePointer?
    }

    /// The file being written.
    public let path: String
    private let handles: Mutex<Handles>

    /// Creates (or truncates) the capture file at `path` and writes its header.
    public init(path: String) throws(CaptureError) {
        guard let pcap = pcap_open_dead(DLT_RAW, Self.snapshotLength) else {
            throw CaptureError(.open, "cannot open capture file '\(path)': pcap_open_dead failed")
        }
        guard let dumper = pcap_dump_open(pcap, path) else {
            let message = String(cString: pcap_geterr(pcap))
            pcap_close(pcap)
            throw CaptureError(.open, "cannot open capture file '\(path)': \(message)")
        }
        self.path = path
        handles = Mutex(Handles(pcap: pcap, dumper: dumper))
    }

    deinit {
        try? close()
    }

    /// Appends one record; it reaches the file at the next flush.
    public func write(packet: UnsafeRawBufferPointer, at time: PacketTimestamp) throws(CaptureError) {
        try handles.withLock { handles throws(CaptureError) in
            guard let dumper = handles.dumper else { throw closedError }
            Self.dump(packet, at: time, to: dumper)
        }
    }

    /// Appends every packet `body` passes to its `write` closure, all stamped `time` (the wall clock read under
    /// the lock when nil, so the file stays in time order), then flushes once.
    public func writeBatch(
        at time: PacketTimestamp? = nil, _ body: (_ write: (UnsafeRawBufferPointer) -> Void) -> Void
    ) throws(CaptureError) {
        try handles.withLock { handles throws(CaptureError) in
            guard let dumper = handles.dumper else { throw closedError }
            let stamp = time ?? .now()
            body { packet in Self.dump(packet, at: stamp, to: dumper) }
            try flush(dumper)
        }
    }

    /// Pushes buffered records to the file.
    public func flush() throws(CaptureError) {
        try handles.withLock { handles throws(CaptureError) in
            guard let dumper = handles.dumper else { throw closedError }
            try flush(dumper)
        }
    }

    /// Flushes and closes the file; later calls do nothing. Throws when the final flush fails (the file is
    /// closed all the same).
    public func close() throws(CaptureError) {
        try handles.withLock { handles throws(CaptureError) in
            guard let dumper = handles.dumper else { return }
            defer {
                pcap_dump_close(dumper)
                pcap_close(handles.pcap)
                handles = Handles()
            }
            try flush(dumper)
        }
    }

    private var closedError: CaptureError {
        CaptureError(.closed, "capture file '\(path)' is already closed")
    }

    private func flush(_ dumper: OpaquePointer) throws(CaptureError) {
        guard pcap_dump_flush(dumper) == 0 else {
            throw CaptureError(.write, "cannot write capture file '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    private static func dump(_ packet: UnsafeRawBufferPointer, at time: PacketTimestamp, to dumper: OpaquePointer) {
        guard let bytes = packet.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var header = pcap_pkthdr()
        header.ts = time.timeValue
        header.caplen = UInt32(packet.count)
        header.len = UInt32(packet.count)
        pcap_dump(UnsafeMutablePointer<UInt8>(dumper), &header, bytes)
    }
}
