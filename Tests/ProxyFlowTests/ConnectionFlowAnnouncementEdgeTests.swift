import FaultEngine
import HTTPWire
import ProxyTranscript
import TestSupport
import Testing

@testable import ProxyFlow

/// The edges of the wait for a creation's announcement (`Announcement`), each with the control it is told from: a
/// rule removed while it waits, the server answering first, a rewritten version, a second 104, a 100 Continue
/// under `"announcement": "before"`, a cut deferred for its interim heads. Driven as `ConnectionFlowAnnouncementTests`.
@Suite struct ConnectionFlowAnnouncementEdgeTests {
    typealias Base = ConnectionFlowAnnouncementTests

    static func waitEnds(_ kinds: [TranscriptEvent.Kind]) -> [AnnouncementWaitEnd] {
        kinds.compactMap { if case .announcementWaitEnded(_, let outcome) = $0 { outcome } else { nil } }
    }

    static func fired(_ kinds: [TranscriptEvent.Kind]) -> [String] {
        kinds.compactMap { if case .faultFired(let fault) = $0 { fault.rule } else { nil } }
    }

    /// A rule removed through the control API while its cut waits never fires: the wait ends `withdrawn` and the
    /// rest of the body goes on. The control: the same wait without the removal cuts.
    @Test(arguments: [false, true])
    func aRuleRemovedWhileItWaitsNeverFires(removed: Bool) throws {
        var (flow, budget) = Base.flow([try Base.cut()])
        Base.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        #expect(!flow.reads(.client))
        if removed {
            let change = budget.budget.replaceRules(with: [], time: .milliseconds(3))
            _ = flow.handle(.message(.rulesChanged(change)), at: .milliseconds(3), budget: budget)
        }
        _ = flow.handle(.tick, at: .seconds(3), budget: budget)
        let rest = Base.carryOut(&flow, \.toUpstream, at: .seconds(3), budget: budget)
        // A cut is recorded once it reaches the wire: the RST, after one poll for interim heads.
        _ = flow.handle(.tick, at: .seconds(3), budget: budget)
        _ = flow.handle(.endSent, at: .seconds(3), budget: budget)
        let kinds = Base.kinds(&flow)
        if removed {
            #expect(rest.marker == nil && rest.bytes.count == Base.length / 2)
            #expect(Self.waitEnds(kinds) == [.withdrawn])
            #expect(Self.fired(kinds).isEmpty)
            #expect(flow.reads(.client))
        } else {
            #expect(rest.marker == .reset)
            #expect(Self.waitEnds(kinds) == [.timedOut])
            #expect(Self.fired(kinds) == ["cut"])
        }
    }

    /// A `respond` whose wait the server's final response ended does not answer the request a second time: it
    /// only closes. The control: the same respond before any response answers for the server.
    @Test(arguments: [false, true])
    func aRespondAfterTheServersAnswerOnlyCloses(serverAnswered: Bool) throws {
        let respond = try Base.rule(
            #"{"name": "busy", "match": {"method": "POST"}, "trigger": {"at-offset": "50%"}, "action": "respond", "status": 503}"#
        )
        var (flow, budget) = Base.flow([respond])
        Base.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        let refusal = Array("HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n".utf8)
        if serverAnswered {
            _ = flow.handle(.received(refusal[...], from: .upstream), at: .milliseconds(3), budget: budget)
        } else {
            _ = flow.handle(.tick, at: .seconds(3), budget: budget)
        }
        let down = Base.carryOut(&flow, \.toClient, at: .seconds(3), budget: budget)
        let text = String(decoding: down.bytes, as: UTF8.self)
        #expect(down.marker == .close)
        if serverAnswered {
            #expect(text == String(decoding: refusal, as: UTF8.self), "one response, the server's")
        } else {
            #expect(text.hasPrefix("HTTP/1.1 503"))
        }
    }

    /// The version the server sees decides whether it announces: a `rewrite-header` that moves the creation to a
    /// version the upstream does not serve makes the cut fire at once. The control: unrewritten, it waits.
    @Test(arguments: [false, true])
    func theForwardedVersionDecidesTheWait(rewritten: Bool) throws {
        var rules = [try Base.cut()]
        if rewritten {
            rules.insert(
                try Base.rule(
                    #"{"name": "old", "match": {"method": "POST"}, "action": "rewrite-header", "direction": "upstream", "header": "Upload-Draft-Interop-Version", "value": "3"}"#
                ), at: 0)
        }
        var (flow, budget) = Base.flow(rules, interop: [6, 7, 8])
        let up = Base.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        #expect(up.marker == (rewritten ? .reset : nil))
        let waited = Base.kinds(&flow).contains { if case .announcementAwaited = $0 { true } else { false } }
        #expect(waited == !rewritten)
    }

    /// `"announcement": "before"` keeps the 104s from the client, not a 100 Continue it may be waiting for.
    @Test func aCutBeforeTheAnnouncementLetsA100ContinueThrough() throws {
        var (flow, budget) = Base.flow([try Base.cut(#"{"at-offset": "50%", "announcement": "before"}"#)])
        let proceed = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
        let heads = proceed + Base.announcement
        _ = flow.handle(.received(heads[...], from: .upstream), at: .milliseconds(1), budget: budget)
        let down = Base.carryOut(&flow, \.toClient, at: .milliseconds(2), budget: budget)
        #expect(down.bytes == proceed)
        #expect(Base.kinds(&flow).contains(.announcementWithheld(exchange: 1, rule: "cut")))
    }

    /// A second 104 with `Location` for the same creation does not move the point the client has the announcement
    /// at: the first one written ends the wait, the second still queued.
    @Test func theFirstAnnouncementOfACreationCounts() throws {
        var (flow, budget) = Base.flow([try Base.cut()])
        Base.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        _ = flow.handle(.received(Base.announcement[...], from: .upstream), at: .milliseconds(3), budget: budget)
        // The first 104 is written; a second one arrives before the client lane carries it.
        var first: [UInt8] = []
        while case .bytes(let chunk)? = flow.toClient.next(at: .milliseconds(4)) {
            first += chunk
            flow.toClient.consume(chunk.count)
        }
        #expect(first == Base.announcement)
        _ = flow.handle(.received(Base.announcement[...], from: .upstream), at: .milliseconds(4), budget: budget)
        _ = flow.handle(.wrote, at: .milliseconds(4), budget: budget)
        #expect(Self.waitEnds(Base.kinds(&flow)) == [.announced])
    }

    /// While a cut waits for its interim heads the client is not read, and both peers' ends do not turn the RST into
    /// a FIN: the RST comes at the flush limit, the 104 still unwritten.
    @Test func aDeferredCutEndsWithItsRSTWhateverThePeersDo() throws {
        var (flow, budget) = Base.resetFromOutside()
        #expect(!flow.reads(.client))
        _ = flow.handle(.ended(.upstream), at: .milliseconds(3), budget: budget)
        let ended = flow.handle(.ended(.client), at: .milliseconds(3), budget: budget)
        #expect(!ended.contains(.finishWrites) && !ended.contains(.close), "no FIN while the RST waits")
        #expect(flow.handle(.tick, at: .milliseconds(3), budget: budget).isEmpty)
        let limit = .milliseconds(2) + ConnectionFlow.interimFlushLimit
        #expect(flow.handle(.tick, at: limit, budget: budget).contains(.abort(waitForAcknowledgement: true)))
    }
}
