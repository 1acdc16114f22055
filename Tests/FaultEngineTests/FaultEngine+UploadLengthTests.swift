import FaultEngine
import HTTPWire
import TestSupport
import Testing

/// Percentages on every request of an upload: the engine remembers each resource's length from the heads that
/// told it, across connections, and says so when it never learned it.
struct FaultEngineUploadLengthTests {
    static let length: Int64 = 10_000_000
    static let seventy = FaultTrigger.atOffset(.fraction(numerator: 70, denominator: 100))

    static func rule(method: HTTPMethod = .patch, times: Int? = nil) throws -> FaultRule {
        try FaultRule(name: "cut", match: FaultMatch(method: method), trigger: seventy, action: .reset, times: times)
    }

    /// An interop-6 creation with `Upload-Length`, its 104 announcing `/upload/7`, and its first 4 MB; on
    /// connection 1.
    static func create(_ engine: inout FaultReplay, length: Int64? = Self.length) {
        _ = engine.handle(.connectionOpened(connection: 1, nth: 1, time: .zero))
        var fields: HTTPFields = ["Upload-Draft-Interop-Version": "6", "Upload-Complete": "?0"]
        if let length { fields.append(name: "Upload-Length", value: String(length)) }
        fields.append(name: "Content-Length", value: "4000000")
        let creation = RequestHead(method: .post, target: "/upload", fields: fields)
        _ = engine.handle(.requestHead(connection: 1, head: creation, time: .zero))
        let announce = ResponseHead(
            status: 104, reason: "Upload Resumption Supported",
            fields: ["Upload-Draft-Interop-Version": "6", "Location": "https://127.0.0.1:8443/upload/7"])
        _ = engine.handle(.responseHead(connection: 1, head: announce, time: .zero))
        _ = feedBody(&engine, chunks: [4_000_000], start: 0, length: length)
        _ = engine.handle(.connectionClosed(connection: 1, time: .zero))
    }

    /// A PATCH of 4 MB at 4 MB that does not complete the upload nor restate its length, on connection `id`.
    static func append(_ engine: inout FaultReplay, on id: Int, path: String = "/upload/7") -> FaultOutcome {
        _ = engine.handle(.connectionOpened(connection: id, nth: id, time: .zero))
        let head = RequestHead(
            method: .patch, target: path,
            fields: [
                "Upload-Draft-Interop-Version": "6", "Upload-Offset": "4000000", "Upload-Complete": "?0",
                "Content-Type": "application/partial-upload", "Content-Length": "4000000",
            ])
        _ = engine.handle(.requestHead(connection: id, head: head, time: .zero))
        var outcome = FaultOutcome()
        for chunk in 0..<16 {
            let start = 4_000_000 + Int64(chunk) * 250_000
            let next = engine.outcome(
                .requestBody(connection: id, count: 250_000, uploadOffset: start, uploadLength: nil, time: .zero))
            outcome.decisions += next.decisions
            outcome.unresolved += next.unresolved
        }
        return outcome
    }

    @Test func aPercentageFiresOnANonFinalPatchOnceACreationAnnouncedTheLength() throws {
        var engine = FaultReplay(rules: [try Self.rule()], seed: 1)
        Self.create(&engine)
        let outcome = Self.append(&engine, on: 2)
        #expect(outcome.decisions.map(\.offset) == [7_000_000])
        // 7,000,000 is 250,000 bytes into the chunk starting at 6,750,000.
        #expect(outcome.decisions.first?.afterBytes == 250_000)
        #expect(outcome.unresolved.isEmpty)
        #expect(engine.neverFired.isEmpty)
        #expect(engine.statuses == [FaultRuleStatus(name: "cut", fired: 1, state: .fired)])
    }

    @Test func anOffsetRetrievalsAnswerTellsTheLengthToo() throws {
        var engine = FaultReplay(rules: [try Self.rule()], seed: 1)
        _ = engine.handle(.connectionOpened(connection: 1, nth: 1, time: .zero))
        let head = RequestHead(method: .head, target: "/upload/7", fields: ["Upload-Draft-Interop-Version": "8"])
        _ = engine.handle(.requestHead(connection: 1, head: head, time: .zero))
        let answer = ResponseHead(
            status: 204, reason: "No Content",
            fields: ["Upload-Draft-Interop-Version": "8", "Upload-Offset": "4000000", "Upload-Length": "10000000"])
        _ = engine.handle(.responseHead(connection: 1, head: answer, time: .zero))
        #expect(Self.append(&engine, on: 2).decisions.map(\.offset) == [7_000_000])
    }

    @Test func anotherResourcesLengthIsNotUsed() throws {
        var engine = FaultReplay(rules: [try Self.rule()], seed: 1)
        Self.create(&engine)
        let outcome = Self.append(&engine, on: 2, path: "/upload/8")
        #expect(outcome.decisions.isEmpty)
        #expect(outcome.unresolved.map(\.rule) == ["cut"])
    }

    @Test func anUnknownLengthIsReportedOncePerRequestAndInTheNeverFiredReason() throws {
        var engine = FaultReplay(rules: [try Self.rule()], seed: 1)
        Self.create(&engine, length: nil)
        let outcome = Self.append(&engine, on: 2)
        #expect(outcome.decisions.isEmpty)
        let reason = "70% of an upload whose length the proxy never learned (PATCH /upload/7)"
        #expect(outcome.unresolved == [UnresolvedFault(rule: "cut", connection: 2, reason: reason, time: .zero)])
        #expect(engine.neverFired == ["cut"])
        #expect(engine.neverFiredReasons == ["cut": reason])
        #expect(engine.statuses == [FaultRuleStatus(name: "cut", fired: 0, state: .unresolvable, reason: reason)])
        // The next request reports again, once.
        #expect(Self.append(&engine, on: 3).unresolved.count == 1)
    }

    @Test func aCreationWithAChunkedBodyAndNoLengthIsUnresolvable() throws {
        var engine = FaultReplay(rules: [try Self.rule(method: .post, times: 1)], seed: 1)
        _ = engine.handle(.connectionOpened(connection: 1, nth: 1, time: .zero))
        let creation = RequestHead(
            method: .post, target: "/files",
            fields: ["Upload-Draft-Interop-Version": "6", "Upload-Complete": "?1", "Transfer-Encoding": "chunked"])
        _ = engine.handle(.requestHead(connection: 1, head: creation, time: .zero))
        var unresolved: [UnresolvedFault] = []
        for chunk in 0..<4 {
            unresolved +=
                engine.outcome(
                    .requestBody(
                        connection: 1, count: 1000, uploadOffset: Int64(chunk) * 1000, uploadLength: nil, time: .zero)
                ).unresolved
        }
        #expect(unresolved.map(\.reason) == ["70% of an upload whose length the proxy never learned (POST /files)"])
    }

    @Test func statesGoFromArmedToFiredToExhausted() throws {
        var engine = FaultReplay(
            rules: [
                try FaultRule(name: "twice", action: .close, times: 2), try FaultRule(name: "idle", action: .close),
            ],
            seed: 1)
        #expect(engine.statuses.map(\.state) == [.armed, .armed])
        _ = engine.handle(.connectionOpened(connection: 1, nth: 1, time: .zero))
        #expect(engine.statuses.map(\.state) == [.fired, .fired])
        _ = engine.handle(.connectionOpened(connection: 2, nth: 2, time: .zero))
        #expect(engine.statuses.map(\.state) == [.exhausted, .fired])
        #expect(engine.statuses.map(\.fired) == [2, 2])
    }

    @Test func theMemoryIsBoundedAndForgetsTheOldestFirst() throws {
        var engine = FaultReplay(rules: [try Self.rule()], seed: 1)
        Self.create(&engine)
        for index in 0..<FaultBudget.uploadLengthMemory {
            let id = 100 + index
            _ = engine.handle(.connectionOpened(connection: id, nth: id, time: .zero))
            let head = RequestHead(
                method: .patch, target: "/other/\(index)",
                fields: ["Upload-Draft-Interop-Version": "8", "Upload-Offset": "0", "Upload-Length": "5"])
            _ = engine.handle(.requestHead(connection: id, head: head, time: .zero))
            _ = engine.handle(.connectionClosed(connection: id, time: .zero))
        }
        #expect(Self.append(&engine, on: 2).unresolved.map(\.rule) == ["cut"])
    }
}
