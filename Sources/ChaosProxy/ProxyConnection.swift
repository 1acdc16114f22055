import CSystem
import FaultEngine
import Glibc
import ProxyFlow
import ProxyTranscript
import SquallNet

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
    private var ended: [FlowSide: Bool] = [.client: false, .upstream: false]
    private var readInterest: [FlowSide: IOInterest] = [.client: .read, .upstream: .read]
    private var writeWait: [FlowSide: IOInterest] = [:]
    private var firstEnd: FlowSide?
    static let readSize = 32 * 1024

    struct PollFailure: Error {
        var errno: Int32
    }

    init(
        handle: ConnectionHandle, flow: ConnectionFlow, client: any ByteStream, upstream: any ByteStream,
        engine: EngineBox, registry: ConnectionRegistry, transcript: TranscriptStore, counters: ProxyCounters,
        origin: ContinuousClock.Instant, laneCapacity: Int
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
    }

    var now: Duration { ContinuousClock.now - origin }

    /// Runs until the connection ends; both streams are closed or aborted on return.
    func run() -> Ending {
        for stream in [client, upstream] { try? Socket.setNonBlocking(stream.fileDescriptor, true) }
        let ending = loop()
        transcript.append(flow.takeEvents())
        switch ending.kind {
        case .fin:
            client.close()
            upstream.close()
        case .rst:
            if ending.side == .proxy { waitForAcknowledgement() }
            client.abort()
            upstream.abort()
        }
        return ending
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

    private func loop() -> Ending {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            if let stop = readInbox() { return stop }
            // Recorded before the bytes they describe are written, so the transcript never lags the peers (a body
            // range still growing may wait up to ConnectionFlow.bodyEventAge).
            transcript.append(flow.takeEvents(at: now))
            if let end = flow.immediateEnd { return Ending(side: .proxy, kind: end == .reset ? .rst : .fin) }
            if let ending = pump(\.toUpstream, to: upstream, side: .upstream) { return ending }
            if let ending = pump(\.toClient, to: client, side: .client) { return ending }
            if ended[.client] == true, ended[.upstream] == true, flow.toUpstream.isEmpty, flow.toClient.isEmpty {
                return Ending(side: CloseSide(rawValue: (firstEnd ?? .client).rawValue) ?? .client, kind: .fin)
            }
            let ready: [FlowSide: Bool]
            do {
                ready = try wait()
            } catch {
                return Ending(side: .proxy, kind: .rst)
            }
            for side in [FlowSide.client, .upstream] where ready[side] == true {
                if let ending = read(side, into: buffer) { return ending }
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
                    outcome = try bytes.withUnsafeBytes { try stream.write($0) }
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
                _ = try? stream.shutdownWrite()
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
        guard ended[side] != true else { return false }
        let lane = side == .client ? flow.toUpstream : flow.toClient
        return lane.queuedBytes < laneCapacity
    }

    /// Polls both sockets and the wake eventfd until something is ready or the next deadline; returns which
    /// sides to read.
    private func wait() throws -> [FlowSide: Bool] {
        let streams: [FlowSide: any ByteStream] = [.client: client, .upstream: upstream]
        var entries: [pollfd] = []
        var buffered: [FlowSide: Bool] = [:]
        for side in [FlowSide.client, .upstream] {
            var interest: IOInterest = []
            if wantsRead(side) {
                interest.formUnion(readInterest[side] ?? .read)
                buffered[side] = streams[side]!.bufferedReadableCount > 0
            }
            if let wait = writeWait[side] { interest.formUnion(wait) }
            entries.append(pollfd(fd: streams[side]!.fileDescriptor, events: Self.events(interest), revents: 0))
        }
        entries.append(pollfd(fd: handle.wakeDescriptor, events: Int16(POLLIN), revents: 0))
        let anyBuffered = buffered.values.contains(true)
        let deadline = anyBuffered ? now : nextDeadline()
        let result: Int32
        if let deadline {
            let (seconds, attoseconds) = max(.zero, deadline - now).components
            var spec = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            result = ppoll(&entries, nfds_t(entries.count), &spec, nil)
        } else {
            result = ppoll(&entries, nfds_t(entries.count), nil, nil)
        }
        if result < 0, errno != EINTR { throw PollFailure(errno: errno) }
        var ready: [FlowSide: Bool] = [:]
        for (index, side) in [FlowSide.client, .upstream].enumerated() {
            let revents = entries[index].revents
            ready[side] = wantsRead(side) && (buffered[side] == true || revents != 0)
        }
        return ready
    }

    private func nextDeadline() -> Duration? {
        let current = now
        return [
            flow.toUpstream.nextRelease(after: current), flow.toClient.nextRelease(after: current),
            engine.nextDue(on: handle.id),
        ].compactMap { $0 }.min()
    }

    private static func events(_ interest: IOInterest) -> Int16 {
        var events: Int16 = 0
        if interest.contains(.read) { events |= Int16(POLLIN) }
        if interest.contains(.write) { events |= Int16(POLLOUT) }
        return events
    }

    /// Reads what `side` has (a few reads at most, for fairness) into the flow.
    private func read(_ side: FlowSide, into buffer: UnsafeMutableRawBufferPointer) -> Ending? {
        let stream = side == .client ? client : upstream
        for _ in 0..<4 where wantsRead(side) {
            let outcome: IOOutcome
            do {
                outcome = try stream.read(into: buffer)
            } catch {
                return Ending(side: CloseSide(rawValue: side.rawValue) ?? .proxy, kind: .rst)
            }
            switch outcome {
            case .done(let count):
                readInterest[side] = .read
                let bytes = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                let before = flow.requests
                flow.received(bytes[...], from: side, at: now, oracle: engine.handle)
                if flow.requests > before { handle.requests.add(flow.requests - before, ordering: .relaxed) }
            case .wouldBlock(let interest):
                readInterest[side] = interest
                return nil
            case .endOfStream:
                ended[side] = true
                if firstEnd == nil { firstEnd = side }
                flow.ended(side, at: now, oracle: engine.handle)
                return nil
            }
        }
        return nil
    }

    /// Sends a tick when a delayed trigger of this connection is due; decisions for others go to their inboxes.
    private func tickIfDue() {
        guard let due = engine.nextDue(on: handle.id), due <= now else { return }
        let decisions = engine.handle(.tick(time: now))
        for decision in decisions where decision.connection == handle.id { flow.apply(decision, at: now) }
        registry.deliver(decisions.filter { $0.connection != handle.id })
    }
}
