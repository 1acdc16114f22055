import CSystem
import FaultEngine
import Glibc
import ProxyFlow
import ProxyTranscript
import SquallNet
import TLSKit

/// One proxied connection on its own thread: executes the `ConnectionAction`s its `ConnectionFlow` returns and
/// feeds back what happened (`ConnectionInput`), through a `FlowDriver`, which writes the lanes to the sockets (the
/// legs, `FlowLegs`) in the order its doc comment gives. While relaying it reads both sides into the flow, and
/// sleeps in `ppoll` until a socket is ready, a lane's next release time, a delayed trigger of this connection, or a
/// message on the handle's eventfd.
///
/// Backpressure: a side is read only while the lane it feeds holds less than `laneCapacity` bytes.
final class ProxyConnection {
    let handle: ConnectionHandle
    private var driver: FlowDriver
    /// The requests the flow had counted when `handle.requests` was last told.
    private var countedRequests = 0
    let settings: ListenerSettings
    let engine: EngineBox
    let shared: ProxyShared
    let laneCapacity: Int
    /// The accepted socket, until the client leg is set up; nil for an HTTP/2 stream's connection.
    let socket: Socket?
    /// An HTTP/2 stream's client leg: its front's end of the stream (`HTTP2Front`).
    let streamClient: MemoryStream?
    // Set up in ProxyConnection+Setup.swift.
    var client: (any ByteStream)?
    var upstream: (any ByteStream)?
    /// The decrypted capture of both legs; nil when the proxy captures nothing.
    let capture: ConnectionCapture?
    private var readInterest = BothSides<IOInterest>(.read)
    var writeWait = BothSides<IOInterest?>(nil)
    private static let sides: [FlowSide] = [.client, .upstream]
    /// A read buffer not handed over to the flow, kept for the next read.
    private var spare: [UInt8]?
    /// Whether the inbox may hold messages: set when the last `ppoll` found the wake eventfd readable (and before
    /// the first iteration). A message sent after that `ppoll` leaves the eventfd readable until `receive` reads
    /// it, so the next level-triggered `ppoll` reports it: none is lost.
    private var woken = true
    /// The most bytes read from one side per wake-up (one chunk into the flow).
    static let readSize = 256 * 1024
    /// The most bytes of consecutive lane items joined into one write.
    static let mergeLimit = 64 * 1024
    /// How long an interactive connection polls without sleeping before it waits in `ppoll` (see `spin(_:)`);
    /// zero when the process may run on one CPU only, where spinning would only keep the peer from answering.
    static let spin = squall_allowed_cpus() > 1 ? Duration.microseconds(50) : .zero
    /// A read this small (or smaller) marks the connection as interactive: small messages back and forth.
    static let interactiveRead = 16 * 1024
    /// The last read was small and there was nothing left to write: the peers exchange small messages.
    private var interactive = false
    /// Set when the client chose HTTP/2: the relay is then an `HTTP2Front`, its streams proxied one by one.
    var speaksHTTP2 = false
    /// An HTTP/2 stream's connection: set once it claimed its request for the upstream (`claimForwarding`).
    var claimedForwarding = false
    /// An HTTP/2 stream's connection: the upstream its connection's streams share (nil: it dials its own).
    var sharedUpstream: HTTP2Upstream?
    /// The connection's place among its listener's and the listener's address (for its streams' flows).
    private(set) var nth = 0
    private(set) var listenerName = ""

    /// A connection the listener accepted.
    convenience init(
        socket: Socket, handle: ConnectionHandle, flow: ConnectionFlow, settings: ListenerSettings, engine: EngineBox,
        shared: ProxyShared
    ) {
        self.init(
            socket: socket, stream: nil, handle: handle, flow: flow, settings: settings, engine: engine, shared: shared)
    }

    /// An HTTP/2 stream's connection, whose client leg is `stream` (its front's other end is the stream's).
    convenience init(
        stream: MemoryStream, handle: ConnectionHandle, flow: ConnectionFlow, settings: ListenerSettings,
        engine: EngineBox, shared: ProxyShared
    ) {
        self.init(
            socket: nil, stream: stream, handle: handle, flow: flow, settings: settings, engine: engine, shared: shared)
    }

    private init(
        socket: Socket?, stream: MemoryStream?, handle: ConnectionHandle, flow: ConnectionFlow,
        settings: ListenerSettings, engine: EngineBox, shared: ProxyShared
    ) {
        self.socket = socket
        self.streamClient = stream
        self.handle = handle
        self.driver = FlowDriver(flow)
        self.settings = settings
        self.engine = engine
        self.shared = shared
        self.laneCapacity = shared.laneCapacity
        self.capture = shared.capture.map { capture in
            socket.map { ConnectionCapture(capture: capture, accepted: $0) } ?? ConnectionCapture(capture: capture)
        }
    }

    var now: Duration { shared.now }

    /// Runs the connection from its opening to its recorded close.
    func run(nth: Int, listener: String) {
        self.nth = nth
        self.listenerName = listener
        feed(.opened(client: handle.client, listener: listener, nth: nth))
        while let action = driver.nextAction() {
            execute(action)
            drive { driver, legs in driver.recordEvents(legs: &legs) }
        }
    }

    /// Feeds one input into the flow; its capture marks are written at once, the other actions queued.
    func feed(_ input: ConnectionInput) {
        drive { driver, legs in driver.feed(input, budget: engine, legs: &legs) }
    }

    /// Runs `body` on the driver with this connection as its legs, then counts the requests the flow saw meanwhile.
    private func drive(_ body: (inout FlowDriver, inout ProxyConnection) -> Void) {
        var legs = self
        body(&driver, &legs)
        let signals = driver.takeHTTP2Signals()
        if !signals.isEmpty {
            handle.http2Signals.withLock { $0 += signals }
            handle.frontWake?.signal()
        }
        let requests = driver.flow.requests
        if requests > countedRequests {
            handle.requests.add(requests - countedRequests, ordering: .relaxed)
            countedRequests = requests
        }
    }

    private func execute(_ action: ConnectionAction) {
        switch action {
        case .acceptClient(let deadline):
            acceptClient(by: deadline)
        case .connectUpstream:
            connectUpstream()
        case .relay:
            for stream in [client, upstream].compactMap({ $0 }) {
                try? Socket.setNonBlocking(stream.fileDescriptor, true)
            }
            if speaksHTTP2, let client {
                relayHTTP2(client)
                feed(.ended(.client))
            } else {
                relay()
            }
        case .capture(let mark):
            capture?.mark(mark)
        case .abort(let wait):
            if let code = driver.flow.streamResetCode { handle.streamResetCode.store(code, ordering: .releasing) }
            if wait { waitForAcknowledgement() }
            if let client { client.abort() } else if let socket { socket.abort() } else { streamClient?.abort() }
            upstream?.abort()
            feed(.endSent)
        case .finishWrites:
            for stream in [client, upstream] { _ = try? stream?.shutdownWrite() }
            feed(.endSent)
        case .drain:
            drain()
            feed(.drained)
        case .close:
            if let client { client.close() } else if let socket { socket.close() } else { streamClient?.close() }
            upstream?.close()
            feed(.endSent)
        case .release:
            // Gone from the live list before its close is recorded: whoever waits on the transcript sees both.
            shared.registry.remove(handle.id)
            shared.counters.closed(handle)
            feed(.released)
        }
    }

    /// Before a fault's RST, waits (at most a second) until the peers acknowledged what was written, so that the
    /// cut lands exactly after the last forwarded byte: an RST discards the unsent part of the send queue. A leg
    /// whose peer is gone (an error or hang-up on its socket: a stopped client's kernel reset it) is not waited
    /// for, since no acknowledgement can come.
    private func waitForAcknowledgement() {
        let deadline = ContinuousClock.now + .seconds(1)
        let gone = Int16(POLLERR) | Int16(POLLHUP)
        for stream in [client, upstream].compactMap({ $0 }) {
            var entries = [pollfd(fd: stream.fileDescriptor, events: 0, revents: 0)]
            while squall_unacknowledged_bytes(stream.fileDescriptor) > 0, ContinuousClock.now < deadline,
                entries[0].revents & gone == 0
            {
                var pause = timespec(tv_sec: 0, tv_nsec: 200_000)
                _ = ppoll(&entries, 1, &pause, nil)
            }
        }
    }

    /// After the proxy's FINs: what the peers still send is read and dropped (at most a second, 1 MiB a side)
    /// before the sockets close, so that unread bytes do not turn the FIN into an RST while a client is still
    /// sending its body. Ends and failures go to the flow (it marks the capture).
    private func drain() {
        let deadline = ContinuousClock.now + .seconds(1)
        var open = BothSides(client: client != nil, upstream: upstream != nil)
        var drained = BothSides(0)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { scratch.deallocate() }
        while open.client || open.upstream, ContinuousClock.now < deadline {
            var entries = Self.sides.map { side in
                let polled = open[side] ? stream(side)?.pollInterest(for: .read) ?? [] : []
                return pollfd(
                    fd: polled.isEmpty ? -1 : stream(side)?.fileDescriptor ?? -1, events: Self.events(polled),
                    revents: 0)
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 50_000_000)
            _ = ppoll(&entries, nfds_t(entries.count), &pause, nil)
            for (index, side) in Self.sides.enumerated() where open[side] && entries[index].revents != 0 {
                guard let stream = stream(side) else { continue }
                switch try? stream.read(into: scratch) {
                case .done(let count)?:
                    capture?.received(UnsafeRawBufferPointer(rebasing: scratch[..<count]), from: side)
                    drained[side] += count
                    if drained[side] >= 1 << 20 { open[side] = false }
                    continue
                case .wouldBlock?:
                    continue
                case .endOfStream?:
                    feed(.ended(side))
                case nil:
                    feed(.failed(side, abruptEOF: false))
                }
                open[side] = false
            }
        }
    }

    func stream(_ side: FlowSide) -> (any ByteStream)? {
        side == .client ? client : upstream
    }

    /// The poll loop: relay rounds in `FlowDriver`'s order, until the flow asks for something else than relaying.
    private func relay() {
        woken = true
        while !driver.hasPending {
            if woken {
                woken = false
                for message in handle.receive() { feed(.message(message)) }
            }
            guard !driver.hasPending else { return }
            writeWait = BothSides(nil)
            drive { driver, legs in driver.writeLanes(limit: Self.mergeLimit, budget: engine, legs: &legs) }
            guard !driver.hasPending else { return }
            guard let ready = try? wait() else { return feed(.waitFailed) }
            for side in Self.sides where ready[side] && !driver.hasPending { read(side) }
            guard !driver.hasPending else { return }
            if driver.tickDue(at: now) { feed(.tick) }
        }
    }

    private func wantsRead(_ side: FlowSide) -> Bool {
        stream(side) != nil && driver.wantsRead(side, capacity: laneCapacity)
    }

    /// Polls both sockets and the wake eventfd until something is ready or the next deadline; returns which
    /// sides to read.
    private func wait() throws(PollFailure) -> BothSides<Bool> {
        var entries: [pollfd] = []
        var buffered = BothSides(false)
        for side in Self.sides {
            var interest: IOInterest = []
            if wantsRead(side) {
                interest.formUnion(readInterest[side])
                buffered[side] = (stream(side)?.bufferedReadableCount ?? 0) > 0
            }
            if let wait = writeWait[side] { interest.formUnion(wait) }
            // A side with nothing to wait for is left out (fd -1): a hung-up socket would report POLLHUP at once
            // and forever.
            let polled = stream(side)?.pollInterest(for: interest) ?? []
            let descriptor = polled.isEmpty ? -1 : stream(side)?.fileDescriptor ?? -1
            entries.append(pollfd(fd: descriptor, events: Self.events(polled), revents: 0))
        }
        entries.append(pollfd(fd: handle.wakeDescriptor, events: Int16(POLLIN), revents: 0))
        let deadline = buffered.client || buffered.upstream ? now : nextDeadline()
        var result: Int32 = 0
        if interactive, Self.spin > .zero, deadline.map({ $0 - now > Self.spin }) ?? true, writeWait.client == nil,
            writeWait.upstream == nil
        {
            result = spin(&entries)
        }
        if result == 0, let deadline {
            let (seconds, attoseconds) = max(.zero, deadline - now).components
            var spec = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            result = ppoll(&entries, nfds_t(entries.count), &spec, nil)
        } else if result == 0 {
            result = ppoll(&entries, nfds_t(entries.count), nil, nil)
        }
        if result < 0, errno != EINTR { throw PollFailure(errno: errno) }
        woken = result < 0 || entries[Self.sides.count].revents != 0
        var ready = BothSides(false)
        for (index, side) in Self.sides.enumerated() {
            ready[side] = wantsRead(side) && (buffered[side] || entries[index].revents != 0)
        }
        return ready
    }

    /// Polls without sleeping for up to `spin`: what `ppoll` returns once something is ready, or 0. A request's
    /// answer usually follows within tens of microseconds, and on a virtual machine a sleeping thread (and an idle
    /// virtual CPU) takes about as long again to wake: an interactive connection stays awake for that long instead
    /// (measured on this 2-core VM: added latency of a kept-alive GET +25 to +60 µs at p50 without, −20 to −10
    /// µs with: the awake CPU speeds up the peers' wake-ups too). Bulk transfers (large reads), blocked writes and a
    /// process bound to one CPU never spin.
    private func spin(_ entries: inout [pollfd]) -> Int32 {
        let until = ContinuousClock.now + Self.spin
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        var result: Int32 = 0
        repeat {
            result = ppoll(&entries, nfds_t(entries.count), &zero, nil)
        } while result == 0 && ContinuousClock.now < until
        return result
    }

    struct PollFailure: Error {
        var errno: Int32
    }

    /// The next time something becomes due: a lane's release (unless its destination is blocked, when only
    /// writability can help) or a tick.
    private func nextDeadline() -> Duration? {
        driver.deadline(after: now) { writeWait[$0] != nil }
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
    private func read(_ side: FlowSide) {
        guard let stream = stream(side) else { return }
        let room = min(Self.readSize, driver.room(from: side, capacity: laneCapacity))
        if let memory = stream as? MemoryStream { return take(side, from: memory, max: room) }
        // Not zero-filled: only the bytes a read wrote are ever looked at.
        var buffer = spare ?? [UInt8](unsafeUninitializedCapacity: Self.readSize) { _, count in count = Self.readSize }
        spare = nil
        var filled = 0
        var end: ConnectionInput?
        buffer.withUnsafeMutableBytes { bytes in
            reading: while filled < room {
                do {
                    switch try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[filled..<room])) {
                    case .done(let count):
                        readInterest[side] = .read
                        let asked = room - filled
                        filled += count
                        // A short read drained what the socket had, unless the TLS layer still holds bytes (a
                        // record decrypted or read ahead): the next level-triggered ppoll reports new bytes, so
                        // the read that would only say wouldBlock is skipped.
                        if count < asked, stream.bufferedReadableCount == 0 { break reading }
                    case .wouldBlock(let interest):
                        readInterest[side] = interest
                        break reading
                    case .endOfStream:
                        end = .ended(side)
                        break reading
                    }
                } catch {
                    end = .failed(side, abruptEOF: (error as? TLSError)?.code == .unexpectedEOF)
                    break reading
                }
            }
        }
        interactive = filled > 0 && filled <= Self.interactiveRead
        if filled > 0 {
            let chunk: ArraySlice<UInt8>
            if filled >= Self.readSize / 4 {
                chunk = buffer[0..<filled]
            } else {
                chunk = ArraySlice(Array(buffer[0..<filled]))
                spare = buffer
            }
            capture?.received(chunk, from: side)
            feed(.received(chunk, from: side))
        } else {
            spare = buffer
        }
        if let end { feed(end) }
    }
    /// `read` for an HTTP/2 stream's end (`MemoryStream`): the next chunk written into it goes to the flow uncopied.
    /// One chunk a turn, as a socket read takes what came so far: the lanes are written before the next, so that a
    /// 104 goes to the client before the final response that came after it is read (a cut waiting for the 104
    /// would otherwise find the exchange answered).
    private func take(_ side: FlowSide, from memory: MemoryStream, max room: Int) {
        interactive = false
        guard room > 0 else { return }
        var taken: ArraySlice<UInt8> = []
        let outcome: IOOutcome
        do {
            outcome = try memory.take(max: room, chunks: 1) { taken = $0 }
        } catch {
            return feed(.failed(side, abruptEOF: false))
        }
        switch outcome {
        case .endOfStream:
            feed(.ended(side))
        case .wouldBlock(let interest):
            readInterest[side] = interest
        case .done:
            readInterest[side] = .read
            capture?.received(taken, from: side)
            feed(.received(taken, from: side))
        }
    }
}
