import Glibc
import PacketSynthesis
import SquallNet
import Synchronization

/// Writes IPv4 packets to a pcap file (the classic format libpcap reads: microsecond timestamps, host byte order),
/// from any thread.
///
/// The link type is LINKTYPE_RAW: each record is an IPv4 datagram with no link header, which tshark shows as
/// "Raw IP". The header and records are staged in memory (`StagedFile`) and reach the file in blocks of a MiB
/// (past the page cache where the file system allows it); `flush()` (or `writeBatch`, which flushes once at its
/// end) writes the rest, so the file is readable up to the last flush. The file is created with mode 0600: it
/// holds decrypted traffic. All calls hold one lock, so batches from several threads never interleave.
public final class PcapFileWriter: Sendable {
    /// The largest record the file's header announces: a whole IPv4 datagram.
    static let snapshotLength: UInt32 = 65_535
    /// LINKTYPE_RAW: each record is an IP packet with no link-layer header.
    static let linkTypeRaw: UInt32 = 101

    /// The descriptor and the staged records; used only under the lock, which is what makes sending them between
    /// threads safe.
    private struct Handles: @unchecked Sendable {
        var descriptor: Int32 = -1
        var file: StagedFile?
    }

    /// The file being written.
    public let path: String
    private let handles: Mutex<Handles>

    /// Creates (or truncates) the capture file at `path`; its header is staged with the first records.
    public init(path: String) throws(CaptureError) {
        let descriptor = PrivateFile.open(path, flags: O_WRONLY | O_TRUNC)
        guard descriptor >= 0 else {
            throw CaptureError(.open, "cannot open capture file '\(path)': \(String(cString: strerror(errno)))")
        }
        // struct pcap_file_header: magic, version 2.4, time zone and accuracy 0, snapshot length, link type.
        var header: (UInt32, UInt16, UInt16, Int32, UInt32, UInt32, UInt32) = (
            0xa1b2_c3d4, 2, 4, 0, 0, Self.snapshotLength, Self.linkTypeRaw
        )
        let head = withUnsafeBytes(of: &header) { Array($0) }
        self.path = path
        handles = Mutex(
            Handles(descriptor: descriptor, file: StagedFile(path: path, descriptor: descriptor, head: head)))
    }

    deinit {
        try? close()
    }

    /// Whether whole blocks of records bypass the page cache (direct I/O).
    public var writesDirectly: Bool {
        handles.withLock { $0.file?.writesDirectly ?? false }
    }

    /// Appends one record; it reaches the file at the next flush at the latest.
    public func write(packet: UnsafeRawBufferPointer, at time: PacketTimestamp) throws(CaptureError) {
        try handles.withLock { handles throws(CaptureError) in
            try stage(packet, at: time, into: try open(handles))
        }
    }

    /// Appends one record per packet of `packets` (back to back, `lengths` bytes each), all stamped `time`.
    public func write(packets: UnsafeRawBufferPointer, lengths: [Int], at time: PacketTimestamp) throws(CaptureError) {
        try handles.withLock { handles throws(CaptureError) in
            let file = try open(handles)
            var start = 0
            for length in lengths {
                try stage(UnsafeRawBufferPointer(rebasing: packets[start..<start + length]), at: time, into: file)
                start += length
            }
        }
    }

    /// Appends every packet `body` passes to its `write` closure, all stamped `time` (the wall clock read under
    /// the lock when nil, so the file stays in time order), then flushes once.
    public func writeBatch(
        at time: PacketTimestamp? = nil, _ body: (_ write: (UnsafeRawBufferPointer) -> Void) -> Void
    ) throws(CaptureError) {
        try handles.withLock { handles throws(CaptureError) in
            let file = try open(handles)
            let stamp = time ?? .now()
            var failure: CaptureError?
            body { packet in
                guard failure == nil else { return }
                do throws(CaptureError) { try stage(packet, at: stamp, into: file) } catch { failure = error }
            }
            if let failure { throw failure }
            try check(file.flush())
        }
    }

    /// Writes the staged records to the file.
    public func flush() throws(CaptureError) {
        try handles.withLock { handles throws(CaptureError) in try check(open(handles).flush()) }
    }

    /// Flushes and closes the file; later calls do nothing. Throws when the final flush fails (the file is
    /// closed all the same).
    public func close() throws(CaptureError) {
        try handles.withLock { handles throws(CaptureError) in
            guard let file = handles.file else { return }
            defer {
                handles.file = nil
                Glibc.close(handles.descriptor)
            }
            try check(file.flush())
        }
    }

    private func open(_ handles: Handles) throws(CaptureError) -> StagedFile {
        guard let file = handles.file else {
            throw CaptureError(.closed, "capture file '\(path)' is already closed")
        }
        return file
    }

    private func check(_ failure: Int32?) throws(CaptureError) {
        guard let failure else { return }
        throw CaptureError(.write, "cannot write capture file '\(path)': \(String(cString: strerror(failure)))")
    }

    /// Stages one record: its header (32-bit seconds, microseconds, captured and original lengths), then the packet.
    private func stage(_ packet: UnsafeRawBufferPointer, at time: PacketTimestamp, into file: StagedFile)
        throws(CaptureError)
    {
        let stamp = time.timeValue
        var header: (UInt32, UInt32, UInt32, UInt32) = (
            UInt32(truncatingIfNeeded: stamp.tv_sec), UInt32(truncatingIfNeeded: stamp.tv_usec),
            UInt32(packet.count), UInt32(packet.count)
        )
        try check(withUnsafeBytes(of: &header) { file.append($0) })
        try check(file.append(packet))
    }
}
