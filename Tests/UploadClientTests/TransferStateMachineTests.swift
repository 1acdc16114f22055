import HTTPWire
import ResumableUpload
import Testing
import UploadClient

/// The transfer's decisions without sockets: inputs in, actions out.
struct TransferStateMachineTests {
    typealias Action = TransferStateMachine.Action
    static let url = try! HTTPURL("http://127.0.0.1:8080/upload")
    static let location = "http://127.0.0.1:8080/upload/abc"

    static func machine(
        _ version: Int? = 8, total: Int64 = 10_000, preflight: PreflightResult? = .resumable(UploadLimits(minSize: 0)),
        configure: (inout TransferConfiguration) -> Void = { _ in }
    ) -> TransferStateMachine {
        var configuration = TransferConfiguration(
            headerFields: ["Authorization": "Bearer t", "Content-Type": "image/heic"],
            interopVersion: version.flatMap(InteropVersion.init(rawValue:)))
        configure(&configuration)
        return TransferStateMachine(url: url, total: total, configuration: configuration, preflight: preflight)
    }

    static func requests(_ actions: [Action]) -> [TransferRequest] {
        actions.compactMap { if case .send(let request) = $0 { request } else { nil } }
    }

    static func outcome(_ actions: [Action]) -> TransferOutcome? {
        actions.lazy.compactMap { if case .finish(let outcome) = $0 { outcome } else { nil } }.first
    }

    static func announce(version: Int = 8, location: String = location, offset: Int64? = nil) -> ResponseHead {
        var head = ResponseHead(status: 104, fields: ["Upload-Draft-Interop-Version": "\(version)"])
        if !location.isEmpty { head.fields.append(name: "Location", value: location) }
        if let offset { head.fields.append(name: "Upload-Offset", value: "\(offset)") }
        return head
    }

    static func head(offset: Int64, complete: Bool = false) -> ResponseHead {
        ResponseHead(status: 204, fields: ["Upload-Offset": "\(offset)", "Upload-Complete": complete ? "?1" : "?0"])
    }

    /// A machine whose creation got its 104 and `sent` bytes out before the connection was lost (no backoff: the
    /// HEAD follows at once).
    static func interrupted(sent: Int, acknowledged: Int64? = nil) -> (TransferStateMachine, [Action]) {
        var machine = machine { $0.backoffBase = .zero }
        _ = machine.handle(.start)
        _ = machine.handle(.interim(announce()))
        _ = machine.handle(.bodySent(sent))
        if let acknowledged { _ = machine.handle(.interim(announce(location: "", offset: acknowledged))) }
        let actions = machine.handle(.failed(TransferError(.networkConnectionLost, "reset")))
        return (machine, actions)
    }

    @Test(arguments: [(3, "Upload-Incomplete", "?0"), (4, "Upload-Complete", "?1"), (8, "Upload-Complete", "?1")])
    func theCreationCarriesTheVersionsCompletionField(version: Int, field: String, value: String) throws {
        var machine = Self.machine(version)
        let creation = try #require(Self.requests(machine.handle(.start)).first)
        #expect(creation.kind == .creation && creation.head.method == .post && creation.head.target == "/upload")
        #expect(creation.head.fields[field] == value)
        #expect(creation.head.fields["Upload-Draft-Interop-Version"] == "\(version)")
        #expect(creation.head.fields["Upload-Length"] == (version >= 6 ? "10000" : nil))
        #expect(creation.head.fields["Content-Length"] == "10000")
        #expect(creation.head.fields["Content-Type"] == "image/heic")
        #expect(creation.length == 10_000 && creation.completes)
    }

    @Test func aPlainUploadCarriesNoResumableFieldsAndIgnores104s() throws {
        var machine = Self.machine(nil, preflight: nil)
        let creation = try #require(Self.requests(machine.handle(.start)).first)
        #expect(!creation.head.fields.contains("Upload-Draft-Interop-Version"))
        #expect(!creation.head.fields.contains("Upload-Complete"))
        #expect(machine.handle(.interim(Self.announce())).isEmpty)
        let outcome = Self.outcome(machine.handle(.failed(TransferError(.networkConnectionLost, "reset"))))
        #expect(outcome?.error?.code == .networkConnectionLost && outcome?.resumable == false)
    }

    @Test func aNotResumablePreflightMakesThePlainPath() throws {
        var machine = Self.machine(8, preflight: .notResumable)
        #expect(machine.version == nil)
        let creation = try #require(Self.requests(machine.handle(.start)).first)
        #expect(!creation.head.fields.contains("Upload-Draft-Interop-Version"))
    }

    @Test func a104OfAnotherVersionOrWithoutOneIsIgnored() {
        var machine = Self.machine()
        _ = machine.handle(.start)
        #expect(machine.handle(.interim(Self.announce(version: 6))).isEmpty)
        #expect(machine.handle(.interim(ResponseHead(status: 104, fields: ["Location": Self.location]))).isEmpty)
        #expect(machine.location == nil)
        #expect(
            machine.handle(.interim(Self.announce())) == [
                .report(.interimReceived(location: Self.location, offset: nil))
            ])
        #expect(machine.location == Self.location)
    }

    @Test func aSecondLocationThatDiffersFailsTheTransfer() {
        var machine = Self.machine()
        _ = machine.handle(.start)
        _ = machine.handle(.interim(Self.announce()))
        #expect(
            machine.handle(.interim(Self.announce())) == [
                .report(.interimReceived(location: Self.location, offset: nil))
            ])
        let outcome = Self.outcome(machine.handle(.interim(Self.announce(location: Self.location + "x"))))
        #expect(outcome?.error?.code == .badServerResponse)
        #expect(machine.isFinished)
        #expect(machine.handle(.response(ResponseHead(status: 200))).isEmpty)
    }

    @Test func progressIsReportedAndFinalisingFollowsTheLastByte() {
        var machine = Self.machine(total: 300)
        _ = machine.handle(.start)
        #expect(machine.handle(.bodySent(100)) == [.report(.bytesSent(offset: 0, count: 100))])
        #expect(machine.handle(.bodySent(200)) == [.report(.bytesSent(offset: 100, count: 200)), .report(.finalising)])
        #expect(machine.highestSent == 300)
    }

    @Test(arguments: [
        (200, nil), (201, nil), (401, TransferError.Code.userAuthenticationRequired),
        (403, .userAuthenticationRequired), (409, .badServerResponse), (413, .badServerResponse),
        (500, .badServerResponse),
    ])
    func theFinalResponseDecides(status: Int, code: TransferError.Code?) {
        var machine = Self.machine()
        _ = machine.handle(.start)
        _ = machine.handle(.bodySent(10_000))
        var head = ResponseHead(status: status, fields: ["X-Server-Resource-Id": "r1", "Vary": "a"])
        head.fields.append(name: "vary", value: "b")
        let actions = machine.handle(.response(head))
        #expect(actions.first == .report(.finalResponse(method: "POST", status: status)))
        let outcome = Self.outcome(actions)
        #expect(outcome?.error?.code == code)
        #expect(outcome?.status == status)
        #expect(outcome?.headerFields == ["x-server-resource-id": "r1", "vary": "a, b"])
    }

    @Test func anInterruptionAfterA104BacksOffThenAsksForTheOffset() throws {
        var machine = Self.machine()
        _ = machine.handle(.start)
        _ = machine.handle(.interim(Self.announce()))
        let failed = machine.handle(.failed(TransferError(.timedOut, "slow")))
        #expect(failed == [.report(.interrupted(at: 0, TransferError(.timedOut, "slow"))), .backoff(.seconds(1))])
        let actions = machine.handle(.backoffElapsed)
        #expect(actions.first == .report(.resumeAttempt(1)))
        let head = try #require(Self.requests(actions).first)
        #expect(head.kind == .offsetRetrieval && head.head.method == .head && head.head.target == "/upload/abc")
        #expect(head.head.fields["Authorization"] == "Bearer t")
        #expect(!head.head.fields.contains("Content-Type") && !head.head.fields.contains("Content-Length"))
    }

    @Test func aNonTransientFailureAfterA104IsNotResumed() {
        var machine = Self.machine()
        _ = machine.handle(.start)
        _ = machine.handle(.interim(Self.announce()))
        let outcome = Self.outcome(machine.handle(.failed(TransferError(.badServerResponse, "garbage"))))
        #expect(outcome?.error?.code == .badServerResponse && outcome?.resumeAttempts == 0)
    }

    @Test func theHeadsOffsetStartsTheAppendWithTheVersionsFields() throws {
        var (machine, _) = Self.interrupted(sent: 6000)
        let actions = machine.handle(.response(Self.head(offset: 4000)))
        #expect(actions.contains(.report(.backtrack(from: 6000, to: 4000))))
        let patch = try #require(Self.requests(actions).first)
        #expect(patch.kind == .append && patch.head.method == .patch && patch.offset == 4000 && patch.length == 6000)
        #expect(patch.head.fields["Upload-Offset"] == "4000" && patch.head.fields["Upload-Complete"] == "?1")
        #expect(patch.head.fields["Content-Type"] == "application/partial-upload")
        #expect(patch.head.fields["Authorization"] == "Bearer t")
        #expect(patch.head.fields["Content-Length"] == "6000")
    }

    @Test(arguments: [(Int64(7000), Int64?.none), (3000, 3500), (10_001, nil)])
    func anImpossibleOffsetFailsAndDeletes(offset: Int64, acknowledged: Int64?) throws {
        var (machine, _) = Self.interrupted(sent: 6000, acknowledged: acknowledged)
        let actions = machine.handle(.response(Self.head(offset: offset)))
        #expect(actions.contains(.report(.deleteSent(location: Self.location))))
        let delete = try #require(Self.requests(actions).first)
        #expect(delete.kind == .cancellation && delete.head.method == .delete)
        #expect(Self.outcome(actions) == nil)
        let outcome = Self.outcome(machine.handle(.response(ResponseHead(status: 204))))
        #expect(outcome?.error?.code == .badServerResponse)
        #expect(outcome?.status == 204)
    }

    @Test func theResumeAttemptsAreBounded() {
        var machine = Self.machine { $0.maximumResumeAttempts = 2 }
        _ = machine.handle(.start)
        _ = machine.handle(.interim(Self.announce()))
        let lost = TransferError(.networkConnectionLost, "reset")
        #expect(machine.handle(.failed(lost)).last == .backoff(.seconds(1)))
        _ = machine.handle(.backoffElapsed)
        #expect(machine.handle(.failed(lost)).last == .backoff(.seconds(2)))
        _ = machine.handle(.backoffElapsed)
        let outcome = Self.outcome(machine.handle(.failed(lost)))
        #expect(outcome?.error?.code == .networkConnectionLost && outcome?.resumeAttempts == 2)
    }

    @Test func aServerErrorToTheHeadIsOneMoreResumeAttemptWhileAttemptsLast() throws {
        var (machine, _) = Self.interrupted(sent: 6000)
        let again = machine.handle(.response(ResponseHead(status: 502)))
        #expect(again.contains(.report(.resumeAttempt(2))))
        #expect(try #require(Self.requests(again).first).kind == .offsetRetrieval)
        for attempt in 3...5 {
            #expect(machine.handle(.response(ResponseHead(status: 503))).contains(.report(.resumeAttempt(attempt))))
        }
        let outcome = Self.outcome(machine.handle(.response(ResponseHead(status: 504))))
        #expect(outcome?.error?.code == .badServerResponse && outcome?.status == 504 && outcome?.resumeAttempts == 5)
    }

    @Test func aClientErrorToTheHeadEndsTheTransfer() {
        var (machine, _) = Self.interrupted(sent: 6000)
        let outcome = Self.outcome(machine.handle(.response(ResponseHead(status: 400))))
        #expect(outcome?.error?.code == .badServerResponse && outcome?.status == 400 && outcome?.resumeAttempts == 1)
    }

    @Test func theAppendSizeSplitsAndThePartialResponseGoesOn() throws {
        var machine = Self.machine(6) { $0.appendSize = 4000 }
        let creation = try #require(Self.requests(machine.handle(.start)).first)
        #expect(creation.length == 4000 && !creation.completes && creation.head.fields["Upload-Complete"] == "?0")
        _ = machine.handle(.bodySent(4000))
        let partial = ResponseHead(status: 201, fields: ["Location": Self.location, "Upload-Complete": "?0"])
        let patch = try #require(Self.requests(machine.handle(.response(partial))).first)
        #expect(patch.offset == 4000 && patch.length == 4000 && patch.head.fields["Upload-Complete"] == "?0")
        _ = machine.handle(.bodySent(4000))
        let last = try #require(Self.requests(machine.handle(.response(ResponseHead(status: 201)))).first)
        #expect(last.offset == 8000 && last.length == 2000 && last.completes)
    }

    @Test func theServersAppendLimitsWinOverTheCallers() throws {
        let limits = UploadLimits(maxAppendSize: 3000, minAppendSize: 2000)
        var lowered = Self.machine(preflight: .resumable(limits)) { $0.appendSize = 5000 }
        #expect(Self.requests(lowered.handle(.start)).first?.length == 3000)
        var raised = Self.machine(preflight: .resumable(limits)) { $0.appendSize = 1000 }
        #expect(Self.requests(raised.handle(.start)).first?.length == 2000)
    }

    @Test func aPartialSuccessWithoutLocationIsABadServerResponse() {
        var machine = Self.machine { $0.appendSize = 4000 }
        _ = machine.handle(.start)
        let outcome = Self.outcome(machine.handle(.response(ResponseHead(status: 201))))
        #expect(outcome?.error?.code == .badServerResponse)
    }

    @Test func cancellingWithoutAnUploadResourceEndsAtOnce() {
        var machine = Self.machine()
        _ = machine.handle(.start)
        let outcome = Self.outcome(machine.handle(.cancelled))
        #expect(outcome?.result == .cancelled && outcome?.serverState == nil)
    }

    @Test func cancellingAfterA104AsksTheServerForTheState() throws {
        var machine = Self.machine()
        _ = machine.handle(.start)
        _ = machine.handle(.interim(Self.announce()))
        let head = try #require(Self.requests(machine.handle(.cancelled)).first)
        #expect(head.kind == .offsetRetrieval)
        #expect(machine.handle(.cancelled).isEmpty)
        let outcome = Self.outcome(machine.handle(.response(Self.head(offset: 1234))))
        #expect(outcome?.result == .cancelled)
        #expect(outcome?.serverState == ServerUploadState(offset: 1234, complete: false))
    }

    @Test func anEmptyFileCompletesInItsCreation() throws {
        var machine = Self.machine(total: 0)
        let actions = machine.handle(.start)
        #expect(Self.requests(actions).first?.length == 0)
        #expect(actions.last == .report(.finalising))
    }

    @Test func backoffDoublesUpToTheLimitAndDeveloperModeShortensItWithoutRemovingIt() {
        var configuration = TransferConfiguration(backoffBase: .seconds(1), backoffLimit: .seconds(5))
        #expect((1...5).map(configuration.backoff(beforeAttempt:)) == [1, 2, 4, 5, 5].map { .seconds($0) })
        configuration.developerMode = true
        #expect((1...3).map(configuration.backoff(beforeAttempt:)) == [1, 1, 1].map { .seconds($0) })
        configuration.backoffBase = .milliseconds(50)
        let shortened = (1...6).map(configuration.backoff(beforeAttempt:))
        #expect(shortened == [50, 100, 200, 400, 800, 1000].map { .milliseconds($0) })
    }

    // MARK: resume location

    static func reconciling(_ version: Int? = 8, configure: (inout TransferConfiguration) -> Void = { _ in })
        -> TransferStateMachine
    {
        machine(version, preflight: nil) { configuration in
            configuration.resumeLocation = location
            configure(&configuration)
        }
    }

    @Test func aResumeLocationStartsWithHeadThenAppendsFromTheServersOffset() throws {
        var machine = Self.reconciling()
        let start = machine.handle(.start)
        #expect(start.first == .report(.reconciling(location: Self.location)))
        let head = try #require(Self.requests(start).first)
        #expect(Self.requests(start).count == 1)
        #expect(head.kind == .offsetRetrieval && head.head.target == "/upload/abc")
        let actions = machine.handle(.response(Self.head(offset: 4000)))
        #expect(!actions.contains { if case .report(.backtrack) = $0 { true } else { false } })
        let patch = try #require(Self.requests(actions).first)
        #expect(patch.kind == .append && patch.offset == 4000 && patch.length == 6000 && patch.completes)
        _ = machine.handle(.bodySent(6000))
        let outcome = Self.outcome(machine.handle(.response(ResponseHead(status: 204))))
        #expect(outcome?.result == .succeeded && outcome?.location == Self.location)
        #expect(outcome?.resumeAttempts == 0 && outcome?.completionConfirmedByOffsetRetrieval == false)
    }

    @Test func aResumeLocationReportedCompleteSucceedsWithoutSendingAByte() {
        var machine = Self.reconciling()
        _ = machine.handle(.start)
        let actions = machine.handle(.response(Self.head(offset: 10_000, complete: true)))
        #expect(Self.requests(actions).isEmpty)
        let outcome = Self.outcome(actions)
        #expect(outcome?.result == .succeeded && outcome?.completionConfirmedByOffsetRetrieval == true)
    }

    @Test(arguments: [404, 410])
    func aForgottenResumeLocationStartsOverFromZero(status: Int) throws {
        var machine = Self.reconciling()
        _ = machine.handle(.start)
        let actions = machine.handle(.response(ResponseHead(status: status)))
        #expect(actions.contains(.report(.restartedFromZero)))
        let creation = try #require(Self.requests(actions).first)
        #expect(creation.kind == .creation && creation.offset == 0 && creation.length == 10_000)
        #expect(machine.location == nil && !machine.reconciling)
        let other = "http://127.0.0.1:8080/upload/def"
        #expect(machine.handle(.interim(Self.announce(location: other))).count == 1)
        _ = machine.handle(.bodySent(10_000))
        let outcome = Self.outcome(machine.handle(.response(ResponseHead(status: 201))))
        #expect(outcome?.result == .succeeded && outcome?.location == other)
    }

    @Test func a404AfterTheResumeLocationAnsweredIsABadServerResponse() throws {
        var machine = Self.reconciling { $0.backoffBase = .zero }
        _ = machine.handle(.start)
        _ = machine.handle(.response(Self.head(offset: 4000)))
        _ = machine.handle(.bodySent(1000))
        let retry = machine.handle(.failed(TransferError(.networkConnectionLost, "reset")))
        #expect(Self.requests(retry).first?.kind == .offsetRetrieval)
        let outcome = Self.outcome(machine.handle(.response(ResponseHead(status: 404))))
        #expect(outcome?.error?.code == .badServerResponse)
    }

    /// A server that announced the upload and lost it in a crash before its store had it answers the HEAD 404: with
    /// nothing acknowledged, the transfer starts over; once an offset was acknowledged, the same 404 fails it.
    @Test func a404BeforeAnyAcknowledgementStartsOverAndAfterOneFails() throws {
        var (machine, actions) = Self.interrupted(sent: 5000)
        #expect(Self.requests(actions).first?.kind == .offsetRetrieval)
        let restart = machine.handle(.response(ResponseHead(status: 404)))
        #expect(restart.contains(.report(.restartedFromZero)))
        let creation = try #require(Self.requests(restart).first)
        #expect(creation.kind == .creation && creation.length == 10_000)
        var (acknowledged, retry) = Self.interrupted(sent: 5000, acknowledged: 4096)
        #expect(Self.requests(retry).first?.kind == .offsetRetrieval)
        let outcome = Self.outcome(acknowledged.handle(.response(ResponseHead(status: 404))))
        #expect(outcome?.error?.code == .badServerResponse)
    }

    @Test func aLostResumeLocationHeadIsRetriedAndMayStillFindItGone() throws {
        var machine = Self.reconciling()
        _ = machine.handle(.start)
        #expect(machine.handle(.failed(TransferError(.timedOut, "slow"))).last == .backoff(.seconds(1)))
        let retry = machine.handle(.backoffElapsed)
        #expect(retry.first == .report(.resumeAttempt(1)) && Self.requests(retry).first?.kind == .offsetRetrieval)
        let actions = machine.handle(.response(ResponseHead(status: 410)))
        #expect(Self.requests(actions).first?.kind == .creation)
    }

    @Test(arguments: [Int64(10_001), -1])
    func aResumeLocationsImpossibleOffsetFailsAndDeletes(offset: Int64) throws {
        var machine = Self.reconciling()
        _ = machine.handle(.start)
        let actions = machine.handle(.response(Self.head(offset: offset)))
        if offset < 0 {
            #expect(Self.outcome(actions)?.error?.code == .badServerResponse)
        } else {
            #expect(Self.requests(actions).first?.kind == .cancellation)
            #expect(actions.contains(.report(.deleteSent(location: Self.location))))
        }
    }

    @Test func aResumeLocationIsIgnoredByAPlainUploadAndMustBeAURL() throws {
        var plain = Self.reconciling(nil)
        #expect(Self.requests(plain.handle(.start)).first?.kind == .creation)
        var unusable = Self.machine(preflight: nil) { $0.resumeLocation = "ftp://example.com/x" }
        #expect(Self.outcome(unusable.handle(.start))?.error?.code == .invalidRequest)
    }
}
