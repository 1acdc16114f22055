import ChaosProxy
import FaultEngine
import Foundation
import HTTPWire
import ProxyTranscript
import Synchronization
import TestSupport
import Testing

/// Percentages on every request of an upload, over real sockets through the proxy to the reference server: the
/// length a creation announced resolves a percentage on a resume's PATCH on a new connection; an upload whose
/// length nobody states is reported when the rule meets it, not only when the proxy stops.
@Suite struct ProxyUploadLengthTests {
    static let mebibyte = 1 << 20

    /// A creation of the first `part` bytes of a `total`-byte upload (interop 6, `Upload-Length`).
    static func creation(part: Int, total: Int) -> RequestHead {
        RequestHead(
            method: .post, target: "/upload",
            fields: [
                "Host": "127.0.0.1", "Upload-Draft-Interop-Version": "6", "Upload-Complete": "?0",
                "Upload-Length": String(total), "Content-Length": String(part),
            ])
    }

    /// An append of `count` bytes at `offset` that does not complete the upload and does not restate its length.
    static func append(_ location: String, offset: Int, count: Int) -> RequestHead {
        RequestHead(
            method: .patch, target: location,
            fields: [
                "Host": "127.0.0.1", "Upload-Draft-Interop-Version": "6", "Upload-Offset": String(offset),
                "Upload-Complete": "?0", "Content-Type": "application/partial-upload",
                "Content-Length": String(count),
            ])
    }

    @Test func aPercentageCutsANonFinalPatchOnANewConnectionAtTheByteOfTheAnnouncedLength() throws {
        let cut = try ProxyFaultTests.rule(
            #"{"name": "cut", "match": {"method": "PATCH"}, "trigger": {"at-offset": "60%"}, "action": "reset", "times": 1}"#
        )
        let fixture = try ProxyFixture(rules: [cut])
        let total = 2 * Self.mebibyte
        let body = ProxyForwardingTests.body(total, seed: 3)
        let first = try fixture.connect()
        let created = WireExchange.send(
            Self.creation(part: Self.mebibyte, total: total), body: Array(body[..<Self.mebibyte]), over: first)
        first.close()
        let location = try #require(created.final?.fields["Location"]).replacingOccurrences(
            of: #"^https?://[^/]+"#, with: "", options: .regularExpression)
        let second = try fixture.connect()
        let appended = WireExchange.send(
            Self.append(location, offset: Self.mebibyte, count: Self.mebibyte / 2),
            body: Array(body[Self.mebibyte..<(3 * Self.mebibyte / 2)]),
            segments: ProxyForwardingTests.segments(seed: 5, total: Self.mebibyte / 2), over: second)
        second.abort()
        #expect(appended.final == nil)
        ProxyFaultTests.waitForCloses(fixture.proxy, count: 2)
        #expect(fixture.server.waitUntilIdle(timeout: .seconds(20)))
        let record = try #require(fixture.server.uploads().first)
        // 60 % of 2 MiB is byte 1,258,291: the server holds exactly the bytes before it.
        #expect(try ProxyFaultTests.offset(of: record.id, on: fixture) == 1_258_291)
        let transcript = fixture.proxy.transcript
        let fired = transcript.faultsFired()
        #expect(fired.map(\.fault.offset) == [1_258_291])
        // The fault's time is when the RST went out, after it was decided.
        let decided = try #require(fired.first?.fault.decided)
        #expect(try #require(fired.first?.time) >= decided)
        // Forwarded and dropped body bytes of the PATCH apart: the server got what `request_body` says.
        let patch = try #require(transcript.exchanges(connection: fired[0].connection).first)
        #expect(patch.requestBodyBytes == 1_258_291 - Int64(Self.mebibyte))
        #expect(fixture.proxy.neverFired.isEmpty)
        #expect(fixture.proxy.faultStatuses().map(\.state) == [.exhausted])
    }

    @Test func aPercentageOnAnUploadWithoutALengthIsReportedWhenItMeetsIt() throws {
        let cut = try ProxyFaultTests.rule(
            #"{"name": "cut", "match": {"method": "POST"}, "trigger": {"at-offset": "40%"}, "action": "reset", "times": 1}"#
        )
        let heard = Mutex<[UnresolvedFault]>([])
        let fixture = try ProxyFixture(rules: [cut]) { configuration in
            configuration.onUnresolvedFault = { fault in heard.withLock { $0.append(fault) } }
        }
        // An outside client's interop-6 creation, chunked, with no length anywhere.
        let head = RequestHead(
            method: .post, target: "/upload",
            fields: [
                "Host": "127.0.0.1", "Upload-Draft-Interop-Version": "6", "Upload-Complete": "?1",
                "Transfer-Encoding": "chunked",
            ])
        let content = ProxyForwardingTests.body(300_000, seed: 9)
        var chunked: [UInt8] = []
        for start in stride(from: 0, to: content.count, by: 50_000) {
            chunked += HTTP1Serializer.chunk(content[start..<min(content.count, start + 50_000)])
        }
        chunked += Array("0\r\n\r\n".utf8)
        let stream = try fixture.connect()
        let outcome = WireExchange.send(head, body: chunked, segments: [10_000], over: stream)
        stream.close()
        #expect((200...299).contains(outcome.final?.status ?? 0))
        ProxyFaultTests.waitForCloses(fixture.proxy)
        let reason = "40% of an upload whose length the proxy never learned (POST /upload)"
        let unresolved = fixture.proxy.transcript.faultsUnresolved()
        #expect(unresolved.map(\.rule) == ["cut"])
        #expect(unresolved.map(\.reason) == [reason])
        #expect(heard.withLock { $0 }.map(\.reason) == [reason])
        #expect(
            fixture.proxy.faultStatuses() == [
                FaultRuleStatus(name: "cut", fired: 0, state: .unresolvable, reason: reason)
            ])
        #expect(fixture.proxy.neverFired == ["cut"])
        #expect(fixture.proxy.neverFiredReasons == ["cut": reason])
    }
}
