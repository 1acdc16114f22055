import HTTPWire
import ResumableUpload
import Testing
import UploadClient

/// Server states no conforming server can be in are a `badServerResponse` naming the rule, never a success; each
/// has a twin the client accepts (the control). A 413 whose `Upload-Limit` allows less is retried within it.
struct ImpossibleServerStateTests {
    typealias Fixture = TransferStateMachineTests

    /// The failure `actions` end the transfer with; after a DELETE of the upload (an impossible offset), once the
    /// server answered it.
    static func failure(_ actions: [TransferStateMachine.Action], _ machine: inout TransferStateMachine) -> String? {
        var outcome = Fixture.outcome(actions)
        if outcome == nil, Fixture.requests(actions).first?.kind == .cancellation {
            outcome = Fixture.outcome(machine.handle(.response(ResponseHead(status: 204))))
        }
        return outcome?.error.map { "\($0.code): \($0.detail)" }
    }

    @Test func aHeadThatSaysCompleteBelowTheLengthFails() {
        var (machine, _) = Fixture.interrupted(sent: 6000)
        let actions = machine.handle(.response(Fixture.head(offset: 6000, complete: true)))
        #expect(
            Self.failure(actions, &machine)?.hasPrefix("badServerResponse: complete-below-length: HEAD says") == true)
        var (control, _) = Fixture.interrupted(sent: 10_000)
        #expect(Fixture.outcome(control.handle(.response(Fixture.head(offset: 10_000, complete: true))))?.error == nil)
    }

    @Test func aSuccessFlaggedCompleteToAPartialRequestFails() throws {
        var machine = Fixture.machine(10) { $0.appendSize = 4000 }
        let creation = try #require(Fixture.requests(machine.handle(.start)).first)
        #expect(creation.length == 4000 && !creation.completes)
        _ = machine.handle(.interim(Fixture.announce(version: 10)))
        _ = machine.handle(.bodySent(4000))
        var early = ResponseHead(status: 200, fields: ["Upload-Draft-Interop-Version": "10", "Upload-Complete": "?1"])
        early.fields.append(name: "Location", value: Fixture.location)
        let actions = machine.handle(.response(early))
        #expect(Self.failure(actions, &machine)?.contains("complete-below-length") == true)
        // The control: the same answer flagged incomplete goes on with an append.
        var control = Fixture.machine(10) { $0.appendSize = 4000 }
        _ = control.handle(.start)
        _ = control.handle(.interim(Fixture.announce(version: 10)))
        _ = control.handle(.bodySent(4000))
        var partial = early
        partial.fields.set("?0", for: "Upload-Complete")
        partial.fields.append(name: "Upload-Offset", value: "4000")
        #expect(Fixture.requests(control.handle(.response(partial))).first?.kind == .append)
    }

    @Test func aCreationsFirst104WithoutLocationFails() {
        var machine = Fixture.machine(10)
        _ = machine.handle(.start)
        let actions = machine.handle(.interim(Fixture.announce(version: 10, location: "")))
        #expect(Self.failure(actions, &machine)?.contains("missing-location") == true)
        var control = Fixture.machine(10)
        _ = control.handle(.start)
        #expect(Fixture.outcome(control.handle(.interim(Fixture.announce(version: 10)))) == nil)
    }

    @Test func a104AcknowledgingBytesNeverSentFails() {
        var machine = Fixture.machine(10)
        _ = machine.handle(.start)
        _ = machine.handle(.interim(Fixture.announce(version: 10)))
        _ = machine.handle(.bodySent(3000))
        let beyond = machine.handle(.interim(Fixture.announce(version: 10, location: "", offset: 3001)))
        #expect(Self.failure(beyond, &machine)?.contains("offset-beyond-data") == true)
        var control = Fixture.machine(10)
        _ = control.handle(.start)
        _ = control.handle(.interim(Fixture.announce(version: 10)))
        _ = control.handle(.bodySent(3000))
        #expect(
            Fixture.outcome(control.handle(.interim(Fixture.announce(version: 10, location: "", offset: 3000)))) == nil)
    }

    static func refusal(maxAppend: Int64?) -> ResponseHead {
        var head = ResponseHead(status: 413, fields: ["Upload-Draft-Interop-Version": "10"])
        if let maxAppend { head.fields.append(name: "Upload-Limit", value: "min-size=0, max-append-size=\(maxAppend)") }
        return head
    }

    /// A 413 before any 104, whose limit allows 4000 bytes: the creation is sent again with 4000; a 413 that allows
    /// no less than was sent fails as before (the control).
    @Test func a413WithASmallerLimitIsRetriedWithinIt() throws {
        var machine = Fixture.machine(10)
        _ = machine.handle(.start)
        let retry = machine.handle(.response(Self.refusal(maxAppend: 4000)))
        let creation = try #require(Fixture.requests(retry).first)
        #expect(creation.kind == .creation && creation.length == 4000 && !creation.completes)
        #expect(creation.head.fields["Upload-Length"] == "10000")

        var control = Fixture.machine(10)
        _ = control.handle(.start)
        let refused = control.handle(.response(Self.refusal(maxAppend: nil)))
        #expect(Self.failure(refused, &control)?.contains("413") == true)
        var same = Fixture.machine(10)
        _ = same.handle(.start)
        let notLess = same.handle(.response(Self.refusal(maxAppend: 10_000)))
        #expect(Self.failure(notLess, &same)?.contains("413") == true)
    }

    /// A 413 to an append after the upload was announced: the offset is asked (HEAD), then appends go within it.
    @Test func a413ToAnAppendAsksTheOffsetThenAppendsWithinTheLimit() throws {
        var (machine, _) = Fixture.interrupted(sent: 2000)
        let patch = try #require(Fixture.requests(machine.handle(.response(Fixture.head(offset: 2000)))).first)
        #expect(patch.kind == .append && patch.length == 8000)
        let asked = machine.handle(.response(Self.refusal(maxAppend: 3000)))
        #expect(Fixture.requests(asked).first?.kind == .offsetRetrieval)
        let append = try #require(Fixture.requests(machine.handle(.response(Fixture.head(offset: 2000)))).first)
        #expect(append.kind == .append && append.offset == 2000 && append.length == 3000)
    }
}
