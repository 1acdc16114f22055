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

    /// Appends one record per packet of `packets` (back to back, `lengths` bytes each), all stamped `time`, written
    /// straight to the file with `writev` (a record header and its packet per pair of vectors, up to
    /// `vectorLimit` vectors a call) after what stdio buffered: the same records `write(packet:at:)` makes, without
    /// stdio's two system calls and partial copies per large packet.
    public func write(packets: UnsafeRawBufferPointer, lengths: [Int], at time: PacketTimestamp) throws(CaptureError) {
        try handles.withLock { handles throws(CaptureError) in
            guard let dumper = handles.dumper else { throw closedError }
            try flush(dumper)
            let descriptor = fileno(pcap_dump_file(dumper))
            let stamp = time.timeValue
            // The file's record header (struct pcap_sf_pkthdr): 32-bit seconds, microseconds, caplen, len.
            var headers = [UInt32](repeating: 0, count: lengths.count * 4)
            for (index, length) in lengths.enumerated() {
                headers[index * 4] = UInt32(truncatingIfNeeded: stamp.tv_sec)
                headers[index * 4 + 1] = UInt32(truncatingIfNeeded: stamp.tv_usec)
                headers[index * 4 + 2] = UInt32(length)
                headers[index * 4 + 3] = UInt32(length)
            }
            let failed = headers.withUnsafeMutableBytes { headerBytes -> Bool in
                var vectors: [iovec] = []
                vectors.reserveCapacity(min(Self.vectorLimit, lengths.count * 2))
                var start = 0
                var index = 0
                while index < lengths.count {
                    vectors.removeAll(keepingCapacity: true)
                    while index < lengths.count, vectors.count + 2 <= Self.vectorLimit {
                        vectors.append(iovec(iov_base: headerBytes.baseAddress! + index * 16, iov_len: 16))
                        vectors.append(
                            iovec(
                                iov_base: UnsafeMutableRawPointer(mutating: packets.baseAddress! + start),
                                iov_len: lengths[index]))
                        start += lengths[index]
                        index += 1
                    }
                    guard Self.writeAll(descriptor, &vectors) else { return true }
                }
                return false
            }
            if failed {
                throw CaptureError(.write, "cannot write capture file '\(path)': \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The most vectors one `writev` takes (IOV_MAX on Linux is 1024).
    static let vectorLimit = 1024

    /// Writes every byte `vectors` describe, continuing after partial writes; false on an error.
    private static func writeAll(_ descriptor: Int32, _ vectors: inout [iovec]) -> Bool {
        var first = 0
        while first < vectors.count {
            let written = vectors[first...].withUnsafeBufferPointer {
                writev(descriptor, $0.baseAddress, Int32($0.count))
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            var rest = written
            while first < vectors.count, rest >= vectors[first].iov_len {
                rest -= vectors[first].iov_len
                first += 1
            }
            if rest > 0 {
                vectors[first].iov_base += rest
                vectors[first].iov_len -= rest
            }
        }
        return true
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
