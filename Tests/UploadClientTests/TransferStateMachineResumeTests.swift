import HTTPWire
import Testing
import UploadClient

/// A server that restarts while a transfer resumes (issue 13 item 7): a refused, reset or timed-out connection for
/// the HEAD is one more resume attempt with the same backoff as a 5xx to the HEAD, in developer mode too, bounded
/// by the resume attempts; without an upload resource the first connection's failure is the transfer's.
struct TransferStateMachineResumeTests {
    typealias Action = TransferStateMachine.Action
    typealias Fixture = TransferStateMachineTests

    /// What goes wrong with a HEAD while the server is down or coming back.
    static let connectionFailures = [
        TransferError(.cannotConnectToHost, "connect: connection refused"),
        TransferError(.networkConnectionLost, "read: connection reset by peer"),
        TransferError(.timedOut, "connect timed out"),
    ]

    /// A developer-mode machine (as `squall upload` runs by default) with `--backoff 50ms --backoff-limit 500ms`
    /// whose creation got its 104 and 4000 bytes out before the server went away.
    static func cutAfterAnnouncement(attempts: Int = 20) -> (TransferStateMachine, [Action]) {
        var machine = Fixture.machine { configuration in
            configuration.developerMode = true
            configuration.backoffBase = .milliseconds(50)
            configuration.backoffLimit = .milliseconds(500)
            configuration.maximumResumeAttempts = attempts
        }
        _ = machine.handle(.start)
        _ = machine.handle(.interim(Fixture.announce()))
        _ = machine.handle(.bodySent(4000))
        let actions = machine.handle(.failed(TransferError(.networkConnectionLost, "the server was killed")))
        return (machine, actions)
    }

    /// Lets the backoff pass and checks that the HEAD of attempt `attempt` goes out.
    static func elapse(_ machine: inout TransferStateMachine, attempt: Int) throws {
        let actions = machine.handle(.backoffElapsed)
        #expect(actions.first == .report(.resumeAttempt(attempt)))
        let head = try #require(Fixture.requests(actions).first)
        #expect(head.kind == .offsetRetrieval && head.head.target == "/upload/abc")
    }

    @Test(arguments: TransferStateMachineResumeTests.connectionFailures)
    func aFailedConnectionForTheHeadIsOneMoreAttemptWithBackoff(failure: TransferError) throws {
        var (machine, first) = Self.cutAfterAnnouncement()
        #expect(first.last == .backoff(.milliseconds(50)))
        try Self.elapse(&machine, attempt: 1)
        #expect(machine.handle(.failed(failure)).last == .backoff(.milliseconds(100)))
        try Self.elapse(&machine, attempt: 2)
        #expect(machine.handle(.failed(failure)).last == .backoff(.milliseconds(200)))
        try Self.elapse(&machine, attempt: 3)

        let actions = machine.handle(.response(Fixture.head(offset: 4000)))
        let patch = try #require(Fixture.requests(actions).first)
        #expect(patch.kind == .append && patch.offset == 4000 && patch.length == 6000)
        _ = machine.handle(.bodySent(6000))
        let outcome = Fixture.outcome(machine.handle(.response(ResponseHead(status: 204))))
        #expect(outcome?.result == .succeeded && outcome?.resumeAttempts == 3)
    }

    @Test func aRefusedHeadWaitsAsLongAsA5xxToTheHead() throws {
        var (refused, _) = Self.cutAfterAnnouncement()
        var (answered, _) = Self.cutAfterAnnouncement()
        for attempt in 1...6 {
            try Self.elapse(&refused, attempt: attempt)
            try Self.elapse(&answered, attempt: attempt)
            let afterRefusal = refused.handle(.failed(Self.connectionFailures[0]))
            let after502 = answered.handle(.response(ResponseHead(status: 502)))
            // The same wait after both; each first says what interrupted it.
            #expect(after502.last == afterRefusal.last && after502.count == 3 && afterRefusal.count == 2)
            #expect(afterRefusal.last != .backoff(.zero))
            #expect(afterRefusal.first == .report(.interrupted(at: 4000, Self.connectionFailures[0])))
        }
    }

    @Test(arguments: TransferStateMachineResumeTests.connectionFailures)
    func exhaustedAttemptsFailWithTheLastConnectionError(failure: TransferError) throws {
        var (machine, _) = Self.cutAfterAnnouncement(attempts: 2)
        try Self.elapse(&machine, attempt: 1)
        #expect(machine.handle(.failed(failure)).last == .backoff(.milliseconds(100)))
        try Self.elapse(&machine, attempt: 2)
        let actions = machine.handle(.failed(failure))
        #expect(Fixture.requests(actions).isEmpty)
        #expect(!actions.contains { if case .backoff = $0 { true } else { false } })
        let outcome = Fixture.outcome(actions)
        #expect(outcome?.error == failure && outcome?.resumeAttempts == 2)
        #expect(outcome?.location == Fixture.location && machine.isFinished)
    }

    @Test func aRefusedCreationFailsAtOnceForTheSystemToRetry() {
        var machine = Fixture.machine { $0.developerMode = true }
        _ = machine.handle(.start)
        let actions = machine.handle(.failed(Self.connectionFailures[0]))
        #expect(actions.count == 1)
        let outcome = Fixture.outcome(actions)
        #expect(outcome?.error?.code == .cannotConnectToHost && outcome?.resumeAttempts == 0)
        #expect(outcome?.location == nil)
    }

    @Test func aRelaunchedTransferWaitsForARefusedResumeLocation() throws {
        var machine = Fixture.reconciling { configuration in
            configuration.developerMode = true
            configuration.backoffBase = .milliseconds(50)
        }
        _ = machine.handle(.start)
        #expect(machine.handle(.failed(Self.connectionFailures[0])).last == .backoff(.milliseconds(50)))
        try Self.elapse(&machine, attempt: 1)
        let actions = machine.handle(.response(Fixture.head(offset: 4000)))
        #expect(Fixture.requests(actions).first?.offset == 4000)
    }
}
