/// Synthesizes the packets of one TCP connection over IPv4, so that a capture of plaintext that never crossed a
/// wire (the proxy's decrypted legs) reads in Wireshark as a real, reassemblable TCP stream.
///
/// A value-type state machine: each event (`open`, `data`, `finish`, `reset`) hands its packets, each a complete
/// IPv4 datagram with correct checksums, to a closure in the order they would travel, and advances the state.
/// ```
/// idle ──open──▶ open ──finish(side)──▶ open (that side can no longer send) ──finish(peer)──▶ closed
///                   └──reset(side)──▶ closed (nothing after)
/// ```
/// Any event while idle first emits the handshake, so a stream is always well formed. Sequence numbers follow
/// RFC 9293 §3.4: each side's initial sequence number is derived from the endpoints (no randomness), data
/// advances it by its length, a SYN or FIN consumes one. Every segment after the SYN acknowledges all the peer
/// has sent. An event that cannot happen any more (data or a second FIN after that side's FIN, anything after a
/// reset or after both FINs) emits nothing.
public struct TCPFlowSynthesizer: Sendable {
    /// Which end of the connection sends.
    public enum Side: Sendable, Hashable {
        case client
        case server

        /// The other end.
        public var peer: Side { self == .client ? .server : .client }
    }

    /// How packets are shaped.
    public struct Configuration: Sendable, Hashable {
        /// The largest payload per segment, 1 to 65_495 (default 65_495: the IPv4 total length is 16 bits, and
        /// both headers take 40 bytes). Larger data is split into several segments.
        public var maximumSegment: Int
        /// The receive window every segment advertises (default 65_535).
        public var window: UInt16
        /// The IPv4 time to live (default 64).
        public var timeToLive: UInt8

        public init(maximumSegment: Int = 65_495, window: UInt16 = 65_535, timeToLive: UInt8 = 64) {
            precondition((1...TCPSegment.largestPayload).contains(maximumSegment), "maximumSegment out of range")
            self.maximumSegment = maximumSegment
            self.window = window
            self.timeToLive = timeToLive
        }
    }

    private enum Phase: Sendable {
        case idle
        case open
        case closed
    }

    /// What one side has sent so far.
    private struct Half: Sendable {
        var nextSequence: UInt32
        var nextIdentification: UInt16 = 1
        var finished = false
    }

    public let client: IPv4Endpoint
    public let server: IPv4Endpoint
    public let configuration: Configuration
    private var phase = Phase.idle
    private var clientHalf: Half
    private var serverHalf: Half

    /// A connection from `client` to `server`, not yet opened. `generation` tells apart connections that reuse a
    /// four-tuple (an ephemeral port used again): it goes into the initial sequence numbers, so Wireshark sees a
    /// new connection rather than a retransmitted SYN.
    public init(
        client: IPv4Endpoint, server: IPv4Endpoint, configuration: Configuration = Configuration(),
        generation: UInt64 = 0
    ) {
        self.client = client
        self.server = server
        self.configuration = configuration
        clientHalf = Half(
            nextSequence: Self.initialSequence(client: client, server: server, side: .client, generation: generation))
        serverHalf = Half(
            nextSequence: Self.initialSequence(client: client, server: server, side: .server, generation: generation))
    }

    /// The sequence number `side`'s next byte (or FIN) will carry.
    public func nextSequence(from side: Side) -> UInt32 {
        half(side).nextSequence
    }

    /// Whether nothing more can be sent: after a reset or after both FINs.
    public var isClosed: Bool { phase == .closed }

    /// Whether `data(_:from:into:)` would emit `side`'s bytes: not closed and `side` has not sent its FIN.
    public func accepts(from side: Side) -> Bool {
        phase != .closed && !half(side).finished
    }

    /// Accounts for `count` bytes `side` sent that are not shown (a flight recorder dropped them): its sequence
    /// numbers move on as if they had been, so the packets after them follow on correctly, with a gap Wireshark
    /// reports as a segment not captured.
    public mutating func skip(_ count: Int, from side: Side) {
        guard count > 0, accepts(from: side) else { return }
        advance(side, by: count)
    }

    /// The three-way handshake (RFC 9293 §3.5): SYN, SYN-ACK, ACK. Emits nothing once opened.
    public mutating func open(into emit: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard phase == .idle else { return }
        let clientStart = clientHalf.nextSequence
        let serverStart = serverHalf.nextSequence
        try send(from: .client, flags: .syn, acknowledgement: 0, consuming: 1, emit)
        try send(from: .server, flags: [.syn, .ack], acknowledgement: clientStart &+ 1, consuming: 1, emit)
        try send(from: .client, flags: .ack, acknowledgement: serverStart &+ 1, consuming: 0, emit)
        phase = .open
    }

    /// `bytes` sent by `side`, as segments of at most `maximumSegment` bytes, each with ACK, the last with PSH too.
    /// Zero bytes, or data after `side`'s FIN, emit nothing.
    public mutating func data(
        _ bytes: UnsafeRawBufferPointer, from side: Side, into emit: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        guard !bytes.isEmpty, try canSend(from: side, emit) else { return }
        let largest = configuration.maximumSegment
        let scratch = UnsafeMutableRawBufferPointer.allocate(
            byteCount: TCPSegment.maximumHeaderLength + min(bytes.count, largest), alignment: 8)
        defer { scratch.deallocate() }
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + largest, bytes.count)
            let segment = makeSegment(from: side, flags: end == bytes.count ? [.ack, .psh] : .ack)
            let length = segment.write(payload: UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), into: scratch)
            try emit(UnsafeRawBufferPointer(rebasing: scratch[..<length]))
            advance(side, by: end - offset)
            offset = end
        }
    }

    /// `side` closes its half (RFC 9293 §3.6): FIN|ACK, which consumes one sequence number, then the peer's ACK
    /// of it. A second FIN from the same side emits nothing; the second side's FIN closes the connection.
    public mutating func finish(from side: Side, into emit: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard try canSend(from: side, emit) else { return }
        try send(from: side, flags: [.fin, .ack], acknowledgement: half(side.peer).nextSequence, consuming: 1, emit)
        setFinished(side)
        try send(from: side.peer, flags: .ack, acknowledgement: half(side).nextSequence, consuming: 0, emit)
        if half(side.peer).finished { phase = .closed }
    }

    /// `side` aborts the connection (RFC 9293 §3.10.7): RST|ACK at its next sequence number; nothing after.
    public mutating func reset(from side: Side, into emit: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        if phase == .idle { try open(into: emit) }
        guard phase == .open else { return }
        try send(from: side, flags: [.rst, .ack], acknowledgement: half(side.peer).nextSequence, consuming: 0, emit)
        phase = .closed
    }

    /// The initial sequence number of `side` for a connection between these endpoints: an FNV-1a hash of the
    /// four-tuple, the side and the generation, so both directions differ, a reused four-tuple gets new numbers,
    /// and a rerun gives the same capture.
    public static func initialSequence(
        client: IPv4Endpoint, server: IPv4Endpoint, side: Side, generation: UInt64 = 0
    ) -> UInt32 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ value: UInt64, bytes: Int) {
            for index in 0..<bytes {
                hash = (hash ^ (value >> (8 * UInt64(index)) & 0xFF)) &* 0x0000_0100_0000_01B3
            }
        }
        mix(UInt64(client.address), bytes: 4)
        mix(UInt64(client.port), bytes: 2)
        mix(UInt64(server.address), bytes: 4)
        mix(UInt64(server.port), bytes: 2)
        mix(side == .client ? 0x43 : 0x53, bytes: 1)
        if generation != 0 { mix(generation, bytes: 8) }
        return UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
    }

    /// Opens if idle; then whether `side` may still send.
    private mutating func canSend(from side: Side, _ emit: (UnsafeRawBufferPointer) throws -> Void) rethrows -> Bool {
        if phase == .idle { try open(into: emit) }
        return phase == .open && !half(side).finished
    }

    /// Emits one segment without payload and advances `side`'s sequence by `consuming` (1 for SYN and FIN).
    private mutating func send(
        from side: Side, flags: TCPFlags, acknowledgement: UInt32, consuming: UInt32,
        _ emit: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        var segment = makeSegment(from: side, flags: flags)
        segment.acknowledgement = acknowledgement
        try withUnsafeTemporaryAllocation(byteCount: TCPSegment.maximumHeaderLength, alignment: 8) { scratch in
            let length = segment.write(payload: UnsafeRawBufferPointer(start: nil, count: 0), into: scratch)
            try emit(UnsafeRawBufferPointer(rebasing: scratch[..<length]))
        }
        advance(side, by: Int(consuming))
    }

    private func makeSegment(from side: Side, flags: TCPFlags) -> TCPSegment {
        TCPSegment(
            source: side == .client ? client : server, destination: side == .client ? server : client,
            flags: flags, sequence: half(side).nextSequence, acknowledgement: half(side.peer).nextSequence,
            identification: half(side).nextIdentification, window: configuration.window,
            timeToLive: configuration.timeToLive, maximumSegmentOption: UInt16(configuration.maximumSegment))
    }

    private func half(_ side: Side) -> Half {
        side == .client ? clientHalf : serverHalf
    }

    /// Counts one packet sent by `side` and `count` sequence numbers it consumed.
    private mutating func advance(_ side: Side, by count: Int) {
        switch side {
        case .client:
            clientHalf.nextSequence &+= UInt32(truncatingIfNeeded: count)
            clientHalf.nextIdentification &+= 1
        case .server:
            serverHalf.nextSequence &+= UInt32(truncatingIfNeeded: count)
            serverHalf.nextIdentification &+= 1
        }
    }

    private mutating func setFinished(_ side: Side) {
        switch side {
        case .client: clientHalf.finished = true
        case .server: serverHalf.finished = true
        }
    }
}
