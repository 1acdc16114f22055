import FaultEngine
import ProxyFlow
import ProxyTranscript
import TestSupport

/// The proxy's `ConnectionFlow`, driven by the `FlowDriver` `ChaosProxy.ProxyConnection` uses, over memory legs
/// instead of sockets: the input is a program. Its first bytes choose the mode, the client's limits and which of `catalog`'s rules are loaded; then
/// each byte picks the next step (bytes from the client or the upstream, a lane written out in partial writes,
/// time passing with a tick when one is due, an end or a failure of a side, an inbox message: stop, fire, rule
/// change), and each action the flow asks for is answered (set-up steps may fail). At the end the connection is
/// stopped and its actions answered until it is released. Checked:
///
/// - tcp mode: what is written to each side is what the other side sent, in order, less what faults dropped, and
///   written, queued and dropped bytes never outnumber the bytes sent;
/// - http mode: what is written to a side is bounded by what the other side sent plus the heads and answers the
///   proxy makes (a generous bound: it catches bytes repeated or looping, not an extra field);
/// - transcript events name the connection, their times never go backwards or pass the clock, each kind's first
///   event reads back from its JSON line as the same line, body ranges never cover more bytes than their side sent,
///   and one `closed` event ends them;
/// - a stopped connection is released within a bounded number of steps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConnectionFlow(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(fuzzBytes(data, size))
    var connection = FuzzedConnection(&input)
    connection.run(&input)
    connection.stop()
    connection.checkWritten()
    return 0
}

/// Rules from the scenario catalog, with sizes and times small enough for short inputs.
private let catalog: [FaultRule] = [
    #"{"name": "cut", "trigger": {"at-offset": "40%"}, "action": "reset", "times": 1}"#,
    #"{"name": "fin", "trigger": {"at-offset": 16}, "action": "close"}"#,
    #"{"name": "hold", "trigger": {"at-offset": 8}, "action": "stall", "duration": "300ms", "direction": "upstream"}"#,
    #"{"name": "busy", "match": {"method": "POST"}, "action": "respond", "status": 503, "body": "busy", "times": 2}"#,
    #"{"name": "late", "action": "delay-response", "duration": "400ms"}"#,
    #"{"name": "idle", "trigger": {"after": "150ms"}, "action": "close", "times": 1}"#,
    #"{"name": "stale", "match": {"method": "HEAD"}, "action": "expire-auth", "challenge": "Bearer"}"#,
    #"{"name": "lose", "action": "drop-response", "times": 1}"#,
    #"{"name": "cap", "action": "limit", "bytes": 64, "direction": "upstream"}"#,
    #"{"name": "pieces", "action": "slice", "size": 7, "variation": 3, "delay": "1ms", "direction": "downstream"}"#,
    #"{"name": "wan", "action": "latency", "latency": "20ms", "jitter": "10ms"}"#,
    #"{"name": "strip", "action": "strip-interim"}"#,
    #"{"name": "thin", "action": "bandwidth", "rate": "1KiB"}"#,
    #"{"name": "short", "action": "truncate-response", "after": 10}"#,
    #"{"name": "rw", "action": "rewrite-header", "direction": "upstream", "header": "Host", "value": null}"#,
    #"{"name": "tail", "trigger": {"after-response-bytes": 16}, "action": "reset", "times": 1}"#,
    #"{"name": "linger", "action": "slow-close", "delay": "200ms", "direction": "downstream"}"#,
    #"{"name": "window", "trigger": {"window": {"from": "100ms", "until": "1s"}}, "action": "stall"}"#,
    #"{"name": "timeout", "action": "stall", "duration": "100ms", "then": "close"}"#,
    #"{"name": "second", "match": {"nth-request": 2}, "action": "respond", "status": 500}"#,
    #"{"name": "creation", "match": {"method": "POST", "interop": 6}, "trigger": {"at-offset": 4}, "action": "reset"}"#,
    #"{"name": "first", "match": {"nth-connection": 1}, "action": "reset", "probability": 0.5}"#,
    #"{"name": "rwdown", "action": "rewrite-header", "header": "Location", "value": "/elsewhere"}"#,
    #"{"name": "path", "match": {"path": "/upload*"}, "trigger": {"after": "50ms"}, "action": "stall"}"#,
].map { text in
    do {
        return try FaultRule.parse(text)
    } catch {
        fatalError("catalog rule \(text): \(error)")
    }
}

private struct FuzzedConnection {
    var driver: FlowDriver
    var legs = MemoryLegs()
    let budget: BudgetCell
    var released = false
    /// Bytes each side sent (`received`), and the reads from each side.
    var received: [FlowSide: [UInt8]] = [.client: [], .upstream: []]
    var reads: [FlowSide: Int] = [.client: 0, .upstream: 0]
    var events: [TranscriptEvent] = []
    var closed = false
    /// The event kinds whose JSON line was read back.
    var roundTripped: Set<Int> = []
    /// Body bytes the transcript recorded: request (forwarded and dropped) and response.
    var requestBodyBytes: Int64 = 0
    var responseBodyBytes: Int64 = 0

    var flow: ConnectionFlow { driver.flow }
    var now: Duration { legs.now }

    init(_ input: inout FuzzInput) {
        let setup = input.byte()
        var flow = ConnectionFlow(id: 7, mode: setup & 1 == 0 ? .http : .tcp, seed: UInt64(input.byte()))
        let timeouts: [Duration?] = [nil, .milliseconds(100), .seconds(1), .seconds(30)]
        flow.limits = ConnectionLimits(
            headTimeout: timeouts[Int(setup >> 1) & 3], idleTimeout: timeouts[Int(setup >> 3) & 3],
            upstreamAtAccept: setup & 0x20 != 0)
        if setup & 0x40 != 0 { flow.forwardedProto = "https" }
        if setup & 0x80 != 0 { flow.upstreamOrigins = ["https://up.example", "https://up.example:443"] }
        driver = FlowDriver(flow)
        let mask = UInt32(input.byte()) | UInt32(input.byte()) << 8 | UInt32(input.byte()) << 16
        budget = BudgetCell(rules: Self.rules(mask), seed: 1)
        feed(.opened(client: "127.0.0.1:50000", listener: "127.0.0.1:8443", nth: 1))
    }

    static func rules(_ mask: UInt32) -> [FaultRule] {
        catalog.indices.filter { mask & (1 << $0) != 0 }.map { catalog[$0] }
    }

    /// Steps until the input ends or the connection is released.
    mutating func run(_ input: inout FuzzInput) {
        var relaying = false
        while !input.isAtEnd && !released {
            if let action = driver.nextAction() {
                relaying = action == .relay
                if !relaying { execute(action, choice: input.byte()) }
            } else if relaying {
                step(input.choice(10), &input)
            } else {
                return
            }
        }
    }

    /// Stops the connection and answers its actions (set-up steps succeeding) until it is released.
    mutating func stop() {
        var stopped = false
        for _ in 0..<64 where !released {
            if let action = driver.nextAction() {
                if case .relay = action { continue }
                execute(action, choice: 0xFF)
            } else if !stopped {
                stopped = true
                feed(.message(.stop))
            } else {
                break
            }
        }
        invariant(released, "a stopped connection is not released; last events \(events.suffix(4))")
        invariant(closed, "released without a closed event")
    }

    /// Answers an action the flow asked for; `choice` picks failures of set-up steps and what a drain sees.
    mutating func execute(_ action: ConnectionAction, choice: UInt8) {
        let session = TLSSession(
            serverName: "localhost", alpn: nil, version: "TLSv1.3", cipher: "TLS_AES_128_GCM_SHA256")
        switch action {
        case .acceptClient:
            switch choice % 8 {
            case 0: feed(.tlsFailed(.client, reason: "handshake failure"))
            case 1: feed(.legReady(.client, tls: session))
            default: feed(.legReady(.client, tls: nil))
            }
        case .connectUpstream:
            switch choice % 8 {
            case 0: feed(.upstreamUnreachable(reason: "connection refused"))
            case 1: feed(.tlsFailed(.upstream, reason: "certificate verify failed"))
            case 2: feed(.legReady(.upstream, tls: session))
            default: feed(.legReady(.upstream, tls: nil))
            }
        case .abort, .finishWrites, .close:
            feed(.endSent)
        case .drain:
            if choice & 1 != 0 { feed(.ended(.client)) }
            if choice & 2 != 0 { feed(.failed(.upstream, abruptEOF: choice & 4 != 0)) }
            feed(.drained)
        case .release:
            feed(.released)
            released = true
        case .relay, .capture:
            break
        }
    }

    /// One step of the relay loop.
    mutating func step(_ operation: Int, _ input: inout FuzzInput) {
        let side: FlowSide = operation % 2 == 0 ? .client : .upstream
        switch operation {
        case 0, 1:
            let bytes = input.run()
            guard flow.reads(side), !bytes.isEmpty else { return }
            received[side]! += bytes
            reads[side]! += 1
            feed(.received(bytes, from: side))
        case 2:
            write(limit: Int(input.byte()) * 64 + 1)
        case 3:
            let pause = Int64(input.byte())
            legs.now += .microseconds(pause * pause * 100)
            if driver.tickDue(at: now) { feed(.tick) }
        case 4, 5:
            guard flow.reads(side) else { return }
            feed(input.flag() ? .ended(side) : .failed(side, abruptEOF: input.flag()))
        case 6:
            feed(input.flag() ? .writeFailed(side) : .waitFailed)
        case 7:
            message(input.byte(), input.byte())
        default:
            driver.recordEvents(at: now, legs: &legs)
            collect()
        }
    }

    /// A write round of the driver, at most `limit` bytes per write.
    mutating func write(limit: Int) {
        legs.writeLimit = limit
        driver.writeLanes(limit: 64 * 1024, budget: budget, legs: &legs)
        collect()
        for side in [FlowSide.upstream, .client] {
            let queued = driver.lane(to: side).queuedBytes
            invariant(queued >= 0, "a lane holds \(queued) bytes")
        }
    }

    /// An inbox message: stop, fire one of the rules' actions, or replace the rules (a restart with a new seed).
    mutating func message(_ kind: UInt8, _ detail: UInt8) {
        switch kind % 4 {
        case 0:
            feed(.message(.stop))
        case 1:
            let rule = catalog[Int(detail) % catalog.count]
            let fires: Bool
            switch rule.action {
            case .respond, .expireAuth: fires = flow.mode == .http
            default: fires = rule.action.isConnectionAction
            }
            guard fires else { return }
            let decision = FaultDecision(
                rule: "fire", connection: flow.id, action: rule.action, direction: rule.direction, time: now)
            feed(.message(.fire(decision)))
        default:
            let rules = Self.rules(UInt32(detail) * 0x1_0101)
            let change = budget.withBudget { budget in
                kind % 4 == 2
                    ? budget.replaceRules(with: rules, time: now)
                    : budget.restart(with: rules, seed: UInt64(detail), time: now)
            }
            feed(.message(.rulesChanged(change)))
        }
    }

    mutating func feed(_ input: ConnectionInput) {
        invariant(!released, "\(input) after the release")
        driver.feed(input, budget: budget, legs: &legs)
        driver.recordEvents(at: now, legs: &legs)
        collect()
    }

    /// Checks the events against the ones before them, and the body ranges against what the sides sent.
    mutating func collect() {
        for event in legs.takeRecorded() {
            invariant(event.connection == flow.id, "an event of connection \(event.connection)")
            invariant(event.time <= now, "an event at \(event.time), now \(now)")
            invariant(event.time >= (events.last?.time ?? .zero), "\(event) after \(events.last!)")
            invariant(!closed, "\(event) after the closed event")
            // As text (a field value's invalid UTF-8 is written as U+FFFD); the first event of each kind, the rest
            // costing more time than they find.
            if roundTripped.insert(event.kind.number).inserted {
                let line = event.jsonLine()
                invariant((try? TranscriptEvent(jsonLine: line))?.jsonLine() == line, "\(line) does not read back")
            }
            switch event.kind {
            case .requestBody(_, _, let length, _), .requestBodyDropped(_, _, let length, _): requestBodyBytes += length
            case .responseBody(_, _, let length): responseBodyBytes += length
            case .closed: closed = true
            default: break
            }
            events.append(event)
        }
        invariant(requestBodyBytes <= received[.client]!.count, "\(requestBodyBytes) request body bytes recorded")
        invariant(responseBodyBytes <= received[.upstream]!.count, "\(responseBodyBytes) response body bytes recorded")
    }

    /// What reached each side came from the other (tcp: exactly a prefix of it; http: within a bound).
    func checkWritten() {
        for (destination, source) in [(FlowSide.upstream, FlowSide.client), (.client, .upstream)] {
            let out = legs.written[destination]!
            let sent = received[source]!
            if flow.mode == .tcp {
                // In order, less what faults dropped (a closing stall drops what comes until its rule is removed).
                var rest = sent[...]
                for byte in out {
                    guard let index = rest.firstIndex(of: byte) else {
                        invariant(false, "\(destination) got bytes \(source) did not send, or out of order")
                        return
                    }
                    rest = rest[(index + 1)...]
                }
                let lane = driver.lane(to: destination)
                let accounted = out.count + lane.queuedBytes + Int(lane.droppedBytes)
                invariant(accounted <= sent.count, "\(accounted) bytes written, queued and dropped of \(sent.count)")
            } else {
                // Heads re-serialized (a Forwarded field, a Location rewritten with the client's Host), chunked bodies
                // re-chunked per read, the proxy's own answers (a 502, a 408, a respond) per request.
                let bound = sent.count + received[.client]!.count + 64 * reads[source]! + 2048 * (flow.requests + 1)
                invariant(out.count <= bound, "\(out.count) bytes to \(destination) from \(sent.count) sent")
            }
        }
    }
}

extension TranscriptEvent.Kind {
    /// The case, as a number.
    fileprivate var number: Int {
        switch self {
        case .opened: 0
        case .tlsEstablished: 1
        case .tlsFailed: 2
        case .requestHead: 3
        case .requestBody: 4
        case .requestBodyDropped: 5
        case .requestForwarded: 6
        case .interimResponse: 7
        case .proxyAnswered: 8
        case .finalResponse: 9
        case .locationRewritten: 10
        case .responseBody: 11
        case .closed: 12
        case .faultFired: 13
        case .faultUnresolved: 14
        case .announcementAwaited: 15
        case .announcementWaitEnded: 16
        case .announcementWithheld: 17
        case .clientAnnouncement: 18
        case .requestWritten: 19
        case .started: 20
        case .streamReset: 21
        case .goaway: 22
        case .http2Stream: 23
        }
    }
}
