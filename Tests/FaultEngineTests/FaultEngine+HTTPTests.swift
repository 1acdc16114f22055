import FaultEngine
import HTTPWire
import TestSupport
import Testing

struct FaultEngineHTTPTests {
    private func started(_ rules: FaultRule...) -> FaultReplay {
        var engine = FaultReplay(rules: rules, seed: 7)
        _ = engine.handle(.connectionOpened(connection: 1, nth: 1, time: .zero))
        return engine
    }

    private func request(
        _ engine: inout FaultReplay, _ head: RequestHead = patchHead(offset: 0), at time: Duration = .zero
    ) -> [FaultDecision] {
        engine.handle(.requestHead(connection: 1, head: head, time: time))
    }

    private func respond(_ engine: inout FaultReplay, _ status: Int) -> [FaultDecision] {
        engine.handle(.responseHead(connection: 1, head: ResponseHead(status: status), time: .zero))
    }

    @Test func respondAnswersAtTheRequestHead() throws {
        let response = FaultResponse(status: 503, fields: [FaultHeader(name: "Retry-After", value: "1")])
        var engine = started(try FaultRule(name: "busy", match: FaultMatch(method: .patch), action: .respond(response)))
        #expect(request(&engine, RequestHead(method: .head, target: "/uploads/1")).isEmpty)
        let fired = request(&engine)
        #expect(fired.map(\.action) == [.respond(response)])
        #expect(fired.first?.afterBytes == nil)
        #expect(fired.first?.offset == nil)
    }

    @Test func stripInterimDropsEveryInterimHeadOfTheMatchedRequest() throws {
        var engine = started(try FaultRule(name: "no-104", match: FaultMatch(method: .post), action: .stripInterim))
        _ = request(&engine, RequestHead(method: .post, target: "/uploads"))
        #expect(respond(&engine, 104).map(\.action) == [.stripInterim])
        #expect(respond(&engine, 100).map(\.action) == [.stripInterim])
        #expect(respond(&engine, 201).isEmpty)
        _ = request(&engine, RequestHead(method: .head, target: "/uploads/1"))
        #expect(respond(&engine, 104).isEmpty)
        #expect(engine.firings(of: "no-104") == 2)
    }

    @Test func finalResponseActionsFireOnTheFinalHeadOnly() throws {
        var engine = started(
            try FaultRule(name: "drop", match: FaultMatch(method: .patch), action: .dropResponse),
            try FaultRule(name: "slow", match: FaultMatch(method: .patch), action: .delayResponse(.seconds(2))),
            try FaultRule(
                name: "offset", match: FaultMatch(method: .patch),
                action: .rewriteHeader(name: "Upload-Offset", value: "0")))
        #expect(request(&engine).isEmpty)
        #expect(respond(&engine, 104).isEmpty)
        #expect(respond(&engine, 204).map(\.rule) == ["drop", "slow", "offset"])
        #expect(respond(&engine, 204).isEmpty)
    }

    @Test func upstreamRewriteFiresOnTheRequestHead() throws {
        let action = FaultAction.rewriteHeader(name: "Upload-Complete", value: "?0")
        var engine = started(try FaultRule(name: "rw", action: action, direction: .upstream))
        #expect(request(&engine).map(\.direction) == [.upstream])
        #expect(respond(&engine, 204).isEmpty)
    }

    @Test func truncateAndResponseByteTriggersCutInsideTheBody() throws {
        var engine = started(
            try FaultRule(name: "truncate", match: FaultMatch(method: .get), action: .truncateResponse(afterBytes: 10)),
            try FaultRule(
                name: "late-reset", match: FaultMatch(method: .get), trigger: .afterResponseBytes(4), action: .reset))
        _ = request(&engine, RequestHead(method: .get, target: "/f"))
        _ = respond(&engine, 200)
        let chunks = [3, 4, 4, 4].map { engine.handle(.responseBody(connection: 1, count: $0, time: .zero)) }
        #expect(chunks.map { $0.map(\.rule) } == [[], ["late-reset"], ["truncate"], []])
        #expect(chunks[1].first?.afterBytes == 1)
        #expect(chunks[1].first?.offset == 4)
        #expect(chunks[2].first?.afterBytes == 3)
        #expect(chunks[2].first?.offset == 10)
    }

    @Test func expireAuthRejectsOnlyTokensSeenBeforeItArmed() throws {
        let rule = try FaultRule(
            name: "expire", trigger: .window(from: .seconds(5), until: .seconds(100)),
            action: .expireAuth(challenge: "Bearer"))
        var engine = started(rule)
        func authorized(_ token: String, at seconds: Int64) -> [FaultDecision] {
            let head = RequestHead(method: .patch, target: "/uploads/1", fields: ["Authorization": token])
            return request(&engine, head, at: .seconds(seconds))
        }
        #expect(authorized("Bearer old", at: 1).isEmpty)
        #expect(authorized("Bearer old", at: 6).map(\.action) == [.expireAuth(challenge: "Bearer")])
        #expect(authorized("Bearer new", at: 7).isEmpty)
        #expect(authorized("Bearer new", at: 8).isEmpty)
        #expect(authorized("Bearer old", at: 9).count == 1)
        #expect(request(&engine, patchHead(offset: 0), at: .seconds(10)).isEmpty)
        #expect(authorized("Bearer old", at: 100).isEmpty)
    }

    @Test func expireAuthOnMatchArmsAtItsFirstMatch() throws {
        let rule = try FaultRule(
            name: "expire", match: FaultMatch(method: .patch), action: .expireAuth(challenge: "Bearer"))
        var engine = started(rule)
        let old = RequestHead(method: .head, target: "/uploads/1", fields: ["Authorization": "t1"])
        #expect(request(&engine, old, at: .seconds(1)).isEmpty)
        let patch = RequestHead(method: .patch, target: "/uploads/1", fields: ["Authorization": "t1"])
        #expect(request(&engine, patch, at: .seconds(2)).count == 1)
        let fresh = RequestHead(method: .patch, target: "/uploads/1", fields: ["Authorization": "t2"])
        #expect(request(&engine, fresh, at: .seconds(3)).isEmpty)
    }

    @Test func eventsOnUnknownConnectionsDecideNothing() throws {
        var engine = started(try FaultRule(name: "any", action: .respond(FaultResponse(status: 500))))
        #expect(engine.handle(.requestHead(connection: 9, head: patchHead(offset: 0), time: .zero)).isEmpty)
        #expect(engine.handle(.responseBody(connection: 9, count: 5, time: .zero)).isEmpty)
        #expect(request(&engine).count == 1)
    }
}

extension FaultEngineHTTPTests {
    @Test func aDelayedPerRequestFaultFiresBeforeTheChunkThatIsDue() throws {
        let rule = try FaultRule(
            name: "late", match: FaultMatch(method: .patch), trigger: .after(.seconds(1)), action: .reset)
        var engine = started(rule)
        _ = request(&engine, at: .seconds(10))
        let early = FaultEvent.requestBody(
            connection: 1, count: 5, uploadOffset: 0, uploadLength: nil, time: .milliseconds(10_500))
        #expect(engine.handle(early).isEmpty)
        let due = FaultEvent.requestBody(
            connection: 1, count: 5, uploadOffset: 5, uploadLength: nil, time: .seconds(11))
        let fired = engine.handle(due)
        #expect(fired.map(\.rule) == ["late"])
        #expect(fired.first?.afterBytes == nil)
        #expect(fired.first?.time == .seconds(11))
    }

    @Test func errorsDescribeThemselvesWithTheirPath() throws {
        let error = try #require(decodingError(#"{"name": "x", "action": "bandwidth", "rate": 0}"#))
        #expect(error.description.hasPrefix("rate: bandwidth must be above 0"))
        #expect(error == FaultError(.invalidValue, path: "rate", error.detail))
    }
}
