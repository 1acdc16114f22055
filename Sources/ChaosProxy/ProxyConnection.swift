import CSystem
import FaultEngine
import Glibc
import ProxyFlow
import ProxyTranscript
import SquallNet
import TLSKit

/// The poll loop of one proxied connection, on its own thread: reads both sides into the `ConnectionFlow`,
/// writes each lane's due items, sleeps in `ppoll` until a socket is ready, a lane's next release time, the
/// engine's next delayed trigger, or a message on the handle's eventfd.
///
/// Backpressure: a side is read only while the lane it feeds holds less than `laneCapacity` bytes. Ends: both
/// sides finished (FINs passed on), a fault's close or reset, an error on either side (the other gets an RST),
/// or a stop message.
final class ProxyConnection {
    struct Ending {
        var side: CloseSide
        var kind: CloseKind
        /// A side's failure that was a TLS peer closing without close_notify (a FIN, not an RST, on the wire).
        var abruptEOF = false
    }

    let handle: ConnectionHandle
    var flow: ConnectionFlow
    let client: any ByteStream
    let upstream: any ByteStream
    let engine: EngineBox
    let registry: ConnectionRegistry
    let transcript: TranscriptStore
    let counters: ProxyCounters
    let origin: ContinuousClock.Instant
    let laneCapacity: Int
    /// The decrypted capture of both legs; nil when the proxy captures nothing.
    let capture: ConnectionCapture?
    private var ended = BothSides(false)
    private var readInterest = BothSides<IOInterest>(.read)
    private var writeWait = BothSides<IOInterest?>(nil)
    private static let sides: [FlowSide] = [.client, .upstream]
    private var firstEnd: FlowSide?
    /// A read buffer not handed over to the flow, kept for the next read.
    private var spare: [UInt8]?
    /// The most bytes read from one side per wake-up (one chunk into the flow).
    static let readSize = 256 * 1024

    struct PollFailure: Error {
        var errno: Int32
    }

    init(
        handle: ConnectionHandle, flow: ConnectionFlow, client: any ByteStream, upstream: any ByteStream,
        engine: EngineBox, registry: ConnectionRegistry, transcript: TranscriptStore, counters: ProxyCounters,
        origin: ContinuousClock.Instant, laneCapacity: Int, capture: ConnectionCapture?
    ) {
        self.handle = handle
        self.flow = flow
        self.client = client
        self.upstream = upstream
        self.engine = engine
        self.registry = registry
        self.transcript = transcript
        self.counters = counters
        self.origin = origin
        self.laneCapacity = laneCapacity
        self.capture = capture
    }

    var now: Duration { ContinuousClock.now - origin }

    /// Runs until the connection ends; both streams are closed or aborted on return.
    func run() -> Ending {
        for stream in [client, upstream] { try? Socket.setNonBlocking(stream.fileDescriptor, true) }
        let ending = loop()
        transcript.append(flow.takeEvents())
        switch ending.kind {
        case .fin where ending.side == .proxy:
            for side in Self.sides { capture?.proxyFinished(side) }
            closeLingering()
        case .fin:
            client.close()
            upstream.close()
            recordFinished()
        case .rst:
            if ending.side == .proxy { waitForAcknowledgement() }
            recordReset(ending)
            client.abort()
            upstream.abort()
            recordFinished()
        }
        return ending
    }

    /// The last RST or FIN went out: the faults waiting for the end are recorded now.
    private func recordFinished() {
        flow.finished(at: now)
        transcript.append(flow.takeEvents())
    }

    /// A reset ending in the capture, as the abort about to happen puts it on the wire: the proxy's RST on both
    /// legs; or, when a side failed, that peer's RST (or its FIN, for a TLS peer gone without close_notify, which
    /// the proxy's abort answers with an RST) and the proxy's RST on the other leg.
    private func recordReset(_ ending: Ending) {
        guard let capture else { return }
        guard ending.side != .proxy else {
            for side in Self.sides { capture.proxyReset(side) }
            return
        }
        let side: FlowSide = ending.side == .client ? .client : .upstream
        if ending.abruptEOF {
            capture.peerFinished(side)
            capture.proxyReset(side)
        } else {
            capture.peerReset(side)
        }
        capture.proxyReset(side == .client ? .upstream : .client)
    }

    /// Before a fault's RST, waits (at most a second) until the peers acknowledged what was written, so that the
    /// cut lands exactly after the last forwarded byte: an RST discards the unsent part of the send queue.
    private func waitForAcknowledgement() {
        let deadline = ContinuousClock.now + .seconds(1)
        for stream in [client, upstream] {
            var entries = [pollfd(fd: stream.fileDescriptor, events: 0, revents: 0)]
            while squall_unacknowledged_bytes(stream.fileDescriptor) > 0, ContinuousClock.now < deadline {
                var pause = timespec(tv_sec: 0, tv_nsec: 200_000)
                _ = ppoll(&entries, 1, &pause, nil)
            }
        }
    }

    /// A close the proxy decides (a fault, an answer that closes): FIN on both sides, then what the peers still
    /// send is read and dropped (at most a second, 1 MiB a side) before the sockets close, so that unread bytes do
    /// not turn the FIN into an RST while a client is still sending its body.
    private func closeLingering() {
        for stream in [client, upstream] { _ = try? stream.shutdownWrite() }
        recordFinished()
        let deadline = ContinuousClock.now + .seconds(1)
        var open = BothSides(true)
        var drained = BothSides(0)
        var finished = ended
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { scratch.deallocate() }
        while open.client || open.upstream, ContinuousClock.now < deadline {
            var entries = Self.sides.map { side in
                pollfd(fd: open[side] ? stream(side).fileDescriptor : -1, events: Int16(POLLIN), revents: 0)
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 50_000_000)
            _ = ppoll(&entries, nfds_t(entries.count), &pause, nil)
            for (index, side) in Self.sides.enumerated() where open[side] && entries[index].revents != 0 {
                switch try? stream(side).read(into: scratch) {
                case .done(let count)?:
                    capture?.received(UnsafeRawBufferPointer(rebasing: scratch[..<count]), from: side)
                    drained[side] += count
                    if drained[side] >= 1 << 20 { open[side] = false }
                    continue
                case .wouldBlock?:
                    continue
                case .endOfStream?:
                    capture?.peerFinished(side)
                case nil:
                    capture?.peerReset(side)
                }
                open[side] = false
                finished[side] = true
            }
        }
        // A peer still sending (the drain's time or size ran out) finds unread bytes: the close is an RST.
        for side in Self.sides where !finished[side] { capture?.proxyReset(side) }
        client.close()
        upstream.close()
    }

    private static func heldForever(_ lane: Lane, _ now: Duration) -> Bool {
        !lane.isEmpty && lane.nextRelease(after: now) == nil
    }

    private func stream(_ side: FlowSide) -> any ByteStream {
        side == .client ? client : upstream
    }

    private func loop() -> Ending {
        while true {
            if let stop = readInbox() { return stop }
            // Recorded before the bytes they describe are written, so the transcript never lags the peers (a body
            // range still growing may wait up to ConnectionFlow.bodyEventAge).
            transcript.append(flow.takeEvents(at: now))
            if let end = flow.immediateEnd { return Ending(side: .proxy, kind: end == .reset ? .rst : .fin) }
            if let ending = pump(\.toUpstream, to: upstream, side: .upstream) { return ending }
            if let ending = pump(\.toClient, to: client, side: .client) { return ending }
            // Faults whose action the writes just put on the wire.
            flow.wrote(at: now)
            transcript.append(flow.takeEvents(at: now))
            if ended.client, ended.upstream {
                if flow.toUpstream.isEmpty, flow.toClient.isEmpty {
                    return Ending(side: CloseSide(rawValue: (firstEnd ?? .client).rawValue) ?? .client, kind: .fin)
                }
                // Both peers are done sending and what is left is held forever: nothing can change any more (as
                // Toxiproxy's timeout closes on EOF); end rather than keep a thread for nobody.
                if Self.heldForever(flow.toUpstream, now) || Self.heldForever(flow.toClient, now) {
                    return Ending(side: .proxy, kind: .fin)
                }
            }
            let ready: BothSides<Bool>
            do {
                ready = try wait()
            } catch {
                return Ending(side: .proxy, kind: .rst)
            }
            for side in Self.sides where ready[side] {
                if let ending = read(side) { return ending }
            }
            tickIfDue()
        }
    }

    /// Applies messages from other threads; a stop ends the loop.
    private func readInbox() -> Ending? {
        for message in handle.receive() {
            switch message {
            case .decision(let decision): flow.apply(decision, at: now)
            case .keepRules(let names): flow.keepEffects(of: names)
            case .stop: return Ending(side: .proxy, kind: .fin)
            }
        }
        return nil
    }

    /// Writes the lane's due items to `stream` until one would block or nothing is due.
    private func pump(_ lane: WritableKeyPath<ConnectionFlow, Lane>, to stream: any ByteStream, side: FlowSide)
        -> Ending?
    {
        writeWait[side] = nil
        while let item = flow[keyPath: lane].next(at: now) {
            switch item {
            case .bytes(let bytes):
                let outcome: IOOutcome
                do {
                    outcome = try bytes.withUnsafeBytes { raw in
                        let outcome = try stream.write(raw)
                        if let capture, case .done(let count) = outcome {
                            capture.sent(UnsafeRawBufferPointer(rebasing: raw[..<count]), to: side)
                        }
                        return outcome
                    }
                } catch {
                    return Ending(side: CloseSide(rawValue: side.rawValue) ?? .proxy, kind: .rst)
                }
                guard case .done(let count) = outcome else {
                    if case .wouldBlock(let interest) = outcome { writeWait[side] = interest }
                    return nil
                }
                flow[keyPath: lane].consume(count)
                account(count, to: side)
            case .endStream:
                // A TLS close_notify that would block is tried again when the socket is writable.
                let outcome = try? stream.shutdownWrite()
                if case .wouldBlock(let interest)? = outcome {
                    writeWait[side] = interest
                    return nil
                }
                if outcome != nil { capture?.proxyFinished(side) }
                flow[keyPath: lane].pop()
            case .close:
                return Ending(side: .proxy, kind: .fin)
            case .reset:
                return Ending(side: .proxy, kind: .rst)
            }
        }
        return nil
    }

    private func account(_ bytes: Int, to side: FlowSide) {
        if side == .upstream {
            counters.bytesUpstream.add(Int64(bytes), ordering: .relaxed)
            handle.bytesUpstream.add(Int64(bytes), ordering: .relaxed)
        } else {
            counters.bytesDownstream.add(Int64(bytes), ordering: .relaxed)
            handle.bytesDownstream.add(Int64(bytes), ordering: .relaxed)
        }
    }

    private func wantsRead(_ side: FlowSide) -> Bool {
        guard !ended[side] else { return false }
        let lane = side == .client ? flow.toUpstream : flow.toClient
        return lane.queuedBytes < laneCapacity
    }

    /// Polls both sockets and the wake eventfd until something is ready or the next deadline; returns which
    /// sides to read.
    private func wait() throws -> BothSides<Bool> {
        let streams = BothSides<any ByteStream>(client: client, upstream: upstream)
        var entries: [pollfd] = []
        var buffered = BothSides(false)
        for side in Self.sides {
            var interest: IOInterest = []
            if wantsRead(side) {
                interest.formUnion(readInterest[side])
                buffered[side] = streams[side].bufferedReadableCount > 0
            }
            if let wait = writeWait[side] { interest.formUnion(wait) }
            // A side with nothing to wait for is left out (fd -1): a hung-up socket would report POLLHUP at once
            // and forever.
            let descriptor = interest.isEmpty ? -1 : streams[side].fileDescriptor
            entries.append(pollfd(fd: descriptor, events: Self.events(interest), revents: 0))
        }
        entries.append(pollfd(fd: handle.wakeDescriptor, events: Int16(POLLIN), revents: 0))
        let deadline = buffered.client || buffered.upstream ? now : nextDeadline()
        let result: Int32
        if let deadline {
            let (seconds, attoseconds) = max(.zero, deadline - now).components
            var spec = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            result = ppoll(&entries, nfds_t(entries.count), &spec, nil)
        } else {
            result = ppoll(&entries, nfds_t(entries.count), nil, nil)
        }
        if result < 0, errno != EINTR { throw PollFailure(errno: errno) }
        var ready = BothSides(false)
        for (index, side) in Self.sides.enumerated() {
            ready[side] = wantsRead(side) && (buffered[side] || entries[index].revents != 0)
        }
        return ready
    }

    /// The next time something becomes due: a lane's release (unless its destination is blocked, when only
    /// writability can help) or a delayed trigger.
    private func nextDeadline() -> Duration? {
        let current = now
        let toUpstream = writeWait.upstream == nil ? flow.toUpstream.nextRelease(after: current) : nil
        let toClient = writeWait.client == nil ? flow.toClient.nextRelease(after: current) : nil
        return [toUpstream, toClient, engine.nextDue(on: handle.id)].compactMap { $0 }.min()
    }

    private static func events(_ interest: IOInterest) -> Int16 {
        var events: Int16 = 0
        if interest.contains(.read) { events |= Int16(POLLIN) }
        if interest.contains(.write) { events |= Int16(POLLOUT) }
        return events
    }

    /// Reads what `side` has into the flow as one chunk: reads fill the buffer until the source would block, the
    /// buffer is full or the lane would pass its capacity, so that TLS records (16 KiB each) arrive as one large
    /// write rather than one write each. A large chunk is handed over without a copy (the next read gets a new
    /// buffer); a small one is copied out so that queued small chunks do not each hold a whole buffer.
    private func read(_ side: FlowSide) -> Ending? {
        let stream = side == .client ? client : upstream
        let lane = side == .client ? flow.toUpstream : flow.toClient
        let room = min(Self.readSize, max(0, laneCapacity - lane.queuedBytes))
        // Not zero-filled: only the bytes a read wrote are ever looked at.
        var buffer = spare ?? [UInt8](unsafeUninitializedCapacity: Self.readSize) { _, count in count = Self.readSize }
        spare = nil
        var filled = 0
        var endOfStream = false
        var failure: Ending?
        buffer.withUnsafeMutableBytes { bytes in
            reading: while filled < room {
                do {
                    switch try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[filled..<room])) {
                    case .done(let count):
                        readInterest[side] = .read
                        filled += count
                    case .wouldBlock(let interest):
                        readInterest[side] = interest
                        break reading
                    case .endOfStream:
                        endOfStream = true
                        break reading
                    }
                } catch {
                    failure = Ending(
                        side: CloseSide(rawValue: side.rawValue) ?? .proxy, kind: .rst,
                        abruptEOF: (error as? TLSError)?.code == .unexpectedEOF)
                    break reading
                }
            }
        }
        if filled > 0 {
            if let capture {
                buffer.withUnsafeBytes { capture.received(UnsafeRawBufferPointer(rebasing: $0[..<filled]), from: side) }
            }
            let chunk: ArraySlice<UInt8>
            if filled >= Self.readSize / 4 {
                chunk = buffer[0..<filled]
            } else {
                chunk = ArraySlice(Array(buffer[0..<filled]))
                spare = buffer
            }
            let before = flow.requests
            flow.received(chunk, from: side, at: now, oracle: engine.handle)
            if flow.requests > before { handle.requests.add(flow.requests - before, ordering: .relaxed) }
        } else {
            spare = buffer
        }
        if let failure { return failure }
        if endOfStream {
            capture?.peerFinished(side)
            ended[side] = true
            if firstEnd == nil { firstEnd = side }
            flow.ended(side, at: now, oracle: engine.handle)
        }
        return nil
    }

    /// Sends a tick when a delayed trigger of this connection is due; decisions for others go to their inboxes.
    private func tickIfDue() {
        guard let due = engine.nextDue(on: handle.id), due <= now else { return }
        let decisions = engine.handle(.tick(time: now)).decisions
        for decision in decisions where decision.connection == handle.id { flow.apply(decision, at: now) }
        registry.deliver(decisions.filter { $0.connection != handle.id })
    }
}
