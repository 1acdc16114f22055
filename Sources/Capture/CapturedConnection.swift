import PacketSynthesis

/// One connection being recorded into a `DecryptedCapture`: each event queues its packets as one batch.
///
/// Used from one thread at a time (the proxy's connection thread owns it), which is why it may be
/// `@unchecked Sendable`: it can be handed to that thread, but its calls must not overlap.
public final class CapturedConnection: @unchecked Sendable {
    /// Which end sent the bytes.
    public typealias Direction = TCPFlowSynthesizer.Side

    private let capture: DecryptedCapture
    /// This connection's number in its capture (a flight recorder keeps packets per connection).
    private let serial: Int
    private var flow: TCPFlowSynthesizer

    init(capture: DecryptedCapture, serial: Int, flow: TCPFlowSynthesizer) {
        self.capture = capture
        self.serial = serial
        self.flow = flow
    }

    /// The client end, as the capture shows it.
    public var client: IPv4Endpoint { flow.client }
    /// The server end, as the capture shows it.
    public var server: IPv4Endpoint { flow.server }

    /// Records `bytes` sent by `direction`, split into segments; empty data writes nothing.
    public func data(_ bytes: ArraySlice<UInt8>, from direction: Direction) {
        guard !bytes.isEmpty, !flow.isClosed else { return }
        if let recorder = capture.openRecorder {
            // Kept as it is (no copy: the slice holds its buffer); packets are built when the capture is written,
            // and `flow` only keeps the state that decides what counts.
            if flow.accepts(from: direction) { recorder.record(connection: serial, .data(direction), bytes: bytes) }
            return
        }
        bytes.withUnsafeBytes { data($0, from: direction) }
    }

    /// Records `bytes` sent by `direction` (copied when the capture is a flight recorder); see the slice form.
    public func data(_ bytes: UnsafeRawBufferPointer, from direction: Direction) {
        guard !bytes.isEmpty, !flow.isClosed else { return }
        if capture.openRecorder != nil {
            data(ArraySlice(bytes), from: direction)
            return
        }
        // Room for the payload and a 40-byte header (plus options) per segment.
        let segments = bytes.count / max(1, flow.configuration.maximumSegment) + 1
        capture.writeBatch(expectedBytes: bytes.count + segments * 64) { write in
            flow.data(bytes, from: direction, into: write)
        }
    }

    /// Records `direction` closing its half: FIN and the peer's ACK of it.
    public func finish(from direction: Direction) {
        guard !flow.isClosed else { return }
        if let recorder = capture.openRecorder {
            recorder.record(connection: serial, .finish(direction))
            flow.finish(from: direction) { _ in }
            return
        }
        capture.writeBatch { write in flow.finish(from: direction, into: write) }
    }

    /// Records `direction` resetting the connection: an RST at its next byte.
    public func reset(from direction: Direction) {
        guard !flow.isClosed else { return }
        if let recorder = capture.openRecorder {
            recorder.record(connection: serial, .reset(direction))
            flow.reset(from: direction) { _ in }
            return
        }
        capture.writeBatch { write in flow.reset(from: direction, into: write) }
    }

    func open() {
        if let recorder = capture.openRecorder {
            recorder.record(connection: serial, .open)
            flow.open { _ in }
            return
        }
        capture.writeBatch { write in flow.open(into: write) }
    }
}
