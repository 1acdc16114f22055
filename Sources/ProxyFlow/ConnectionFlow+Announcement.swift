import FaultEngine
import HTTPWire
import ProxyTranscript
import ResumableUpload

/// The one place the flow talks to its `AnnouncementGate`: every input goes through `gate(_:at:budget:)`, which
/// carries out the actions the gate returns.
extension ConnectionFlow {
    /// The hold on the server's lane while a reset waits for the client's interim heads.
    static let cutHold = "squall-cut"
    /// The longest a cut waits for the interim heads queued for the client.
    static let interimFlushLimit = AnnouncementGate.interimFlushLimit

    /// Feeds the gate `input` at `now` and carries out what it returns, in order; returns the actions for the
    /// driver (a cut ends the connection).
    @discardableResult
    mutating func gate(
        _ input: AnnouncementGate.Input, at now: Duration, budget: some FaultBudgetAccess
    ) -> [ConnectionAction] {
        guard !announcement.isIdle(for: input) else { return [] }
        var ends: [ConnectionAction] = []
        for action in announcement.handle(input, gateView(at: now)) {
            switch action {
            case .emit(let kind):
                emit(kind, at: now)
            case .queueInterim(let bytes, let head):
                let before = toClient.appended
                toClient.push(bytes, at: now)
                let through = toClient.appended
                gate(.interimQueued(head, through: through, dropped: through == before), at: now, budget: budget)
            case .resume(let decisions, let piece, let held):
                place(decisions, in: piece, at: now, budget: budget)
                replay(held, at: now, budget: budget)
            case .recordAtEnd(let decisions):
                for decision in decisions { record(decision, at: now, wire: .atEnd) }
            case .holdServerLane:
                toUpstream.holdEverything(rule: Self.cutHold)
            case .cut:
                ends += proxyEnds(.rst)
            case .next(let step):
                ends += gate(step, at: now, budget: budget)
            }
        }
        return ends
    }

    /// What the gate reads of the connection now.
    private func gateView(at now: Duration) -> AnnouncementGate.View {
        AnnouncementGate.View(
            now: now, clientCarriedOut: toClient.carriedOut, clientLaneMoves: toClient.nextRelease(after: now) != nil,
            cut: toClient.isCut || toUpstream.isCut, upstreamEnded: upstreamEnded,
            unanswered: unanswered.map(\.exchange),
            request: request.map { ($0.exchange, $0.serverAnnounces, $0.answeredLocally) },
            cutsBeforeAnnouncement: faults.cutsBeforeAnnouncement, serverLaneRules: toUpstream.activeRules,
            interimHeads: mode == .http && !opaque)
    }

    /// What the client sent while a fault waited, through the flow now. Should a later fault of the body wait
    /// again, the rest waits behind it.
    private mutating func replay(_ held: [AwaitedInput], at now: Duration, budget: some FaultBudgetAccess) {
        for (index, input) in held.enumerated() {
            guard announcement.wait == nil else {
                for rest in held[index...] { gate(.clientInput(rest), at: now, budget: budget) }
                return
            }
            switch input {
            case .events(let events): handleRequestEvents(events, at: now, budget: budget)
            case .bytes(let bytes): received(bytes, from: .client, at: now, budget: budget)
            case .end: ended(.client, at: now, budget: budget)
            }
        }
    }

    /// Whether the upstream announces the upload `facts`' creation asks for (its version served, see
    /// `upstreamInterop`).
    func announces(_ facts: UploadRequestFacts) -> Bool {
        guard facts.createsResumableUpload, let version = facts.version else { return false }
        return upstreamInterop?.contains(version.rawValue) ?? true
    }

    /// An interim head the server sent for `exchange`, as the gate reads it.
    static func interimHead(_ head: ResponseHead, exchange: Int) -> InterimHead {
        let location = head.status == 104 ? UploadResponseFacts(head, requestVersion: nil).resourcePath : nil
        return InterimHead(exchange: exchange, status: head.status, announcedLocation: location)
    }
}
