import Foundation
import PacketSynthesis
import Synchronization

/// One pcap file of plaintext TCP connections, shared by many connection threads: the proxy's decrypted legs,
/// synthesized as TCP/IPv4 packets (see `TCPFlowSynthesizer`) so Wireshark reassembles them without any key.
///
/// Capture never stops the traffic it records: a write failure is kept in `firstError` (the harness reports
/// it) and the capture writes nothing more. Packets are synthesized on the caller's thread and written by a
/// writer thread of the capture's own in blocks of a MiB (direct I/O where the file system allows it, see
/// `StagedFile`), and the rest once no packet came for `idleFlush`, so a crash leaves a readable file that lacks at
/// most the last MiB and what was still queued (about twice `queueLimit` bytes at worst).
/// ```
/// proxy thread ──CapturedConnection.data──▶ TCPFlowSynthesizer ──batch──▶ CaptureQueue (bounded)
///                                         writer thread ◀──┘ ──▶ PcapFileWriter ──▶ StagedFile (1 MiB blocks)
/// ```
///
/// As a flight recorder (`recorder` limits given), nothing is synthesized or written while the traffic flows: each
/// connection's events (its bytes, opening, FINs, RST) are kept in memory (see `FlightRecorder`) and turned into
/// packets, written in time order, when the capture is closed, or dropped if `keep(false)` was said before (a
/// passing scenario's capture, with `squall run --capture on-failure`). The file then holds each connection's
/// handshake, FINs and RST and its newest data within the limits; `recorderDroppedBytes` says how much older data
/// was not kept.
public final class DecryptedCapture: Sendable {
    /// The capture file.
    public var path: String { writer.path }
    /// How every connection's packets are shaped.
    public let configuration: TCPFlowSynthesizer.Configuration
    private let writer: PcapFileWriter
    private let failure = FirstFailure()
    private let queue: CaptureQueue
    /// Set for a flight-recording capture: batches are kept here, not queued for the writer.
    private let recorder: FlightRecorder?
    private let keeping = Atomic<Bool>(true)
    private let closed = Atomic<Bool>(false)
    private let serials = Atomic<Int>(0)
    /// How often each four-tuple was recorded (a few dozen bytes per connection; a capture holds thousands).
    private let uses = Mutex<[FourTuple: UInt64]>([:])

    private struct FourTuple: Hashable {
        var client: IPv4Endpoint
        var server: IPv4Endpoint
    }
    /// The most bytes of packets queued for the writer before recording threads wait. 8 MiB.
    public static let queueLimit = 8 << 20

    /// Creates (or truncates) the capture file at `path`; with `recorder`, a flight recorder within those limits.
    public init(
        path: String, configuration: TCPFlowSynthesizer.Configuration = TCPFlowSynthesizer.Configuration(),
        recorder: FlightRecorderLimits? = nil
    ) throws(CaptureError) {
        writer = try PcapFileWriter(path: path)
        self.configuration = configuration
        queue = CaptureQueue(limit: Self.queueLimit)
        self.recorder = recorder.map(FlightRecorder.init)
        guard self.recorder == nil else { return }
        let thread = Thread { [writer, queue, failure] in Self.drain(queue, into: writer, failure: failure) }
        thread.name = "squall-capture-writer"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    deinit {
        close()
    }

    /// The writer thread: writes each batch taken from `queue` until the queue closes, and flushes once nothing
    /// came for `idleFlush` (or `sync()` asks): while the traffic flows, records reach the file only in whole blocks.
    private static func drain(_ queue: CaptureQueue, into writer: PcapFileWriter, failure: FirstFailure) {
        var unflushed = false
        while var batches = queue.take(idleFlush: unflushed ? idleFlush : nil) {
            if failure.error == nil {
                do throws(CaptureError) {
                    if batches.isEmpty {
                        try writer.flush()
                        unflushed = false
                    } else {
                        for batch in batches { try write(batch, to: writer) }
                        unflushed = true
                    }
                } catch {
                    failure.record(error)
                }
            }
            // Moved out one by one, so each buffer goes back with no other reference to it (reused, not copied).
            var buffers: [[UInt8]] = []
            while let batch = batches.popLast() { buffers.append(batch.bytes) }
            queue.written(returning: buffers)
        }
    }

    /// How long the writer waits for more packets before it flushes what it staged.
    static let idleFlush = Duration.milliseconds(20)

    /// Starts recording a connection: writes its handshake now. The n-th use of a four-tuple in this capture gets
    /// initial sequence numbers of its own (see `TCPFlowSynthesizer.init`).
    public func connection(client: IPv4Endpoint, server: IPv4Endpoint) -> CapturedConnection {
        let key = FourTuple(client: client, server: server)
        let generation = uses.withLock { uses in
            defer { uses[key, default: 0] += 1 }
            return uses[key, default: 0]
        }
        let serial = serials.add(1, ordering: .relaxed).newValue
        let flow = TCPFlowSynthesizer(
            client: client, server: server, configuration: configuration, generation: generation)
        recorder?.begin(connection: serial, flow: flow)
        let connection = CapturedConnection(capture: self, serial: serial, flow: flow)
        connection.open()
        return connection
    }

    /// The first write failure, if any; after it nothing more is written.
    public var firstError: CaptureError? {
        failure.error
    }

    /// Writes `batch`'s packets, each one record stamped with the batch's time.
    private static func write(_ batch: PacketBatch, to writer: PcapFileWriter) throws(CaptureError) {
        let failure: CaptureError? = batch.bytes.withUnsafeBytes { bytes in
            do throws(CaptureError) {
                try writer.write(packets: bytes, lengths: batch.lengths, at: batch.time)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Waits until every event recorded so far is in the file (written and flushed).
    public func sync() {
        queue.sync()
    }

    /// Whether a flight recorder's packets are written when it closes (the default) or dropped; a streaming
    /// capture writes as it goes and ignores this.
    public func keep(_ keep: Bool) {
        keeping.store(keep, ordering: .releasing)
    }

    /// Whether this capture is a flight recorder.
    public var isFlightRecorder: Bool { recorder != nil }

    /// The packet bytes a flight recorder did not keep because of its limits (0 for a streaming capture).
    public var recorderDroppedBytes: Int64 { recorder?.droppedBytes ?? 0 }

    /// Writes what is queued (a flight recorder's packets, unless told not to keep them), flushes and closes the
    /// file; later calls, and connections' later events, do nothing.
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if recorder == nil { queue.close() }
        do throws(CaptureError) {
            if let recorder {
                if keeping.load(ordering: .acquiring) {
                    for batch in recorder.takeAll() { try Self.write(batch, to: writer) }
                } else {
                    recorder.discard()
                }
            }
            try writer.close()
        } catch {
            record(error)
            try? writer.close()
        }
    }

    /// Queues the packets `body` produces as one batch for the writer thread (stamped with the wall clock when it
    /// enters the queue); `expectedBytes` sizes the batch's buffer.
    func writeBatch(expectedBytes: Int = 256, _ body: (_ write: (UnsafeRawBufferPointer) -> Void) -> Void) {
        guard firstError == nil, !closed.load(ordering: .relaxed) else { return }
        var batch = PacketBatch(time: .now(), reserving: expectedBytes, reusing: queue.buffer())
        body { batch.append($0) }
        queue.put(batch)
    }

    /// The flight recorder, when this capture is one and still open: connections keep their events there.
    var openRecorder: FlightRecorder? {
        guard let recorder, !closed.load(ordering: .relaxed) else { return nil }
        return recorder
    }

    private func record(_ error: CaptureError) {
        failure.record(error)
    }
}

/// The first error of a capture, shared by the recording threads and the writer thread.
final class FirstFailure: Sendable {
    private let first = Mutex<CaptureError?>(nil)

    var error: CaptureError? { first.withLock { $0 } }

    func record(_ error: CaptureError) {
        first.withLock { first in
            if first == nil { first = error }
        }
    }
}
