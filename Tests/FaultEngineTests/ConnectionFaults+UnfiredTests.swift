import FaultEngine
import HTTPWire
import TestSupport
import Testing

/// A rule that matched requests but could never fire in them says why (issue 26): nothing to truncate, no 1xx to
/// strip, a body that ended before the position. Each reason is checked against the same rule on a request that can
/// fire it (the negative control: it fires, and says nothing).
struct ConnectionFaultsUnfiredTests {
    static func rule(_ json: String) throws -> FaultRule { try FaultRule.parse(json) }

    /// One request on a connection of its own: `head`, `body` bytes from upload offset 0 (if any), an interim head
    /// when `interim`, and a final `status` with `responseBody` bytes; then the close.
    static func exchange(
        _ engine: inout FaultReplay, _ head: RequestHead, body: Int = 0, interim: Bool = false, status: Int = 200,
        responseBody: Int = 0
    ) {
        _ = engine.handle(.connectionOpened(connection: 1, nth: 1, time: .zero))
        _ = engine.handle(.requestHead(connection: 1, head: head, time: .zero))
        if body > 0 {
            _ = engine.handle(
                .requestBody(connection: 1, count: body, uploadOffset: 0, uploadLength: Int64(body), time: .zero))
        }
        if interim {
            _ = engine.handle(.responseHead(connection: 1, head: ResponseHead(status: 104), time: .zero))
        }
        _ = engine.handle(.responseHead(connection: 1, head: ResponseHead(status: status), time: .zero))
        if responseBody > 0 { _ = engine.handle(.responseBody(connection: 1, count: responseBody, time: .zero)) }
        _ = engine.handle(.connectionClosed(connection: 1, time: .zero))
    }

    static let options = RequestHead(method: .options, target: "/upload")
    static let creation = RequestHead(
        method: .post, target: "/upload",
        fields: ["Upload-Draft-Interop-Version": "8", "Upload-Complete": "?1", "Content-Length": "1000"])

    @Test func aTruncateResponseOnABodilessAnswerSaysThereIsNothingToTruncate() throws {
        let rule = try Self.rule(
            #"{"name": "t", "match": {"method": "OPTIONS"}, "action": "truncate-response", "after": 0}"#)
        var engine = FaultReplay(rules: [rule], seed: 1)
        Self.exchange(&engine, Self.options)
        #expect(
            engine.neverFiredReasons["t"]
                == "the response to OPTIONS /upload had no body: nothing to truncate after 0 bytes")
        var control = FaultReplay(rules: [rule], seed: 1)
        Self.exchange(&control, Self.options, responseBody: 10)
        #expect(control.neverFired.isEmpty)
    }

    @Test func aStripInterimWithoutAnInterimSaysThereIsNothingToStrip() throws {
        let rule = try Self.rule(#"{"name": "s", "action": "strip-interim"}"#)
        var engine = FaultReplay(rules: [rule], seed: 1)
        Self.exchange(&engine, Self.options)
        #expect(
            engine.neverFiredReasons["s"]
                == "no interim (1xx) response came to OPTIONS /upload before its final response: nothing to strip")
        var control = FaultReplay(rules: [rule], seed: 1)
        Self.exchange(&control, Self.options, interim: true)
        #expect(control.neverFired.isEmpty)
    }

    @Test func aPositionPastTheBodysEndSaysWhereTheBodyEnded() throws {
        let rule = try Self.rule(
            #"{"name": "far", "match": {"method": "POST"}, "trigger": {"at-offset": "1MiB"}, "action": "reset"}"#)
        var engine = FaultReplay(rules: [rule], seed: 1)
        Self.exchange(&engine, Self.creation, body: 1000)
        #expect(
            engine.neverFiredReasons["far"]
                == "POST /upload's body ended at upload offset 1000, before the position 1048576")
        let near = try Self.rule(
            #"{"name": "near", "match": {"method": "POST"}, "trigger": {"at-offset": 500}, "action": "reset"}"#)
        var control = FaultReplay(rules: [near], seed: 1)
        Self.exchange(&control, Self.creation, body: 1000)
        #expect(control.neverFired.isEmpty)
    }

    @Test func aDropResponseOnAConnectionThatEndedFirstSaysSo() throws {
        let rule = try Self.rule(#"{"name": "d", "match": {"method": "POST"}, "action": "drop-response"}"#)
        var engine = FaultReplay(rules: [rule], seed: 1)
        _ = engine.handle(.connectionOpened(connection: 1, nth: 1, time: .zero))
        _ = engine.handle(.requestHead(connection: 1, head: Self.creation, time: .zero))
        _ = engine.handle(.connectionClosed(connection: 1, time: .zero))
        #expect(engine.neverFiredReasons["d"] == "no final response came to POST /upload: the connection ended first")
    }

    /// Such a reason is no status: the rule stays `armed` (a later request may give it what it waits for), and the
    /// latest request's word counts, so a request that might have fired it clears the reason (a rule that cannot be
    /// placed at all is `unresolvable`: `FaultEngineUploadLengthTests`).
    @Test func anUnfiredReasonLeavesTheRuleArmedAndTheLatestRequestDecides() throws {
        let rule = try Self.rule(#"{"name": "s", "action": "strip-interim"}"#)
        var engine = FaultReplay(rules: [rule], seed: 1)
        Self.exchange(&engine, Self.options)
        #expect(engine.statuses.map(\.state) == [.armed])
        #expect(engine.neverFiredReasons["s"] != nil)
        // A request that ends before its final response might still have had a 1xx: no reason any more.
        _ = engine.handle(.connectionOpened(connection: 2, nth: 2, time: .zero))
        _ = engine.handle(.requestHead(connection: 2, head: Self.options, time: .zero))
        _ = engine.handle(.connectionClosed(connection: 2, time: .zero))
        #expect(engine.neverFiredReasons["s"] == nil)
        #expect(engine.neverFired == ["s"])
    }
}
