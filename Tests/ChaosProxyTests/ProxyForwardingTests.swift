import ChaosProxy
import ControlAPI
import FaultEngine
import Foundation
import HTTPWire
import ProxyTranscript
import SquallNet
import TLSKit
import TestSupport
import Testing

/// Requests pass through the proxy unchanged when no fault fires: plain and TLS, any segmentation.
@Suite struct ProxyForwardingTests {
    static func creation(length: Int, interop: Int = 6) -> RequestHead {
        RequestHead(
            method: .post, target: "/upload",
            fields: [
                "Host": "127.0.0.1", "Upload-Draft-Interop-Version": String(interop), "Upload-Complete": "?1",
                "Content-Length": String(length),
            ])
    }

    static func body(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func segments(seed: UInt64, total: Int) -> [Int] {
        var generator = SeededGenerator(seed: seed)
        var sizes: [Int] = []
        var sum = 0
        while sum < total {
            let size = Int.random(in: 1...70_000, using: &generator)
            sizes.append(size)
            sum += size
        }
        return sizes
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func creationPassesThroughUnderRandomSegmentation(seed: UInt64) throws {
        let fixture = try ProxyFixture()
        let body = Self.body(1 << 20, seed: seed)
        let stream = try fixture.connect()
        let outcome = WireExchange.send(
            Self.creation(length: body.count), body: body, segments: Self.segments(seed: seed, total: body.count),
            over: stream)
        stream.close()
        #expect(outcome.final?.status == 201, "\(outcome)")
        #expect(outcome.interims.contains { $0.status == 104 })
        let record = try #require(fixture.server.uploads().first)
        #expect(record.complete)
        #expect(record.sha256 == MessageDigest.hex(of: body))
        let transcript = fixture.proxy.transcript
        let covered = transcript.events.reduce(Int64(0)) { sum, event in
            if case .requestBody(_, _, let length, _) = event.kind { return sum + length }
            return sum
        }
        #expect(covered == Int64(body.count))
    }

    /// The RFC 9530 fields pass the proxy untouched both ways: a wrong `Content-Digest` reaches the server (which
    /// rejects it: a stripped field would have been accepted), a right one with `Want-Repr-Digest` gets the
    /// server's `Repr-Digest` back.
    @Test func digestFieldsPassThroughBothWays() throws {
        let fixture = try ProxyFixture()
        let body = Self.body(40_000)
        let digest = "sha-256=:" + Self.base64(MessageDigest.digest(of: body, .sha256)) + ":"
        var right = Self.creation(length: body.count)
        right.fields.append(name: "Content-Digest", value: digest)
        right.fields.append(name: "Want-Repr-Digest", value: "sha-256=1")
        let stream = try fixture.connect()
        let accepted = WireExchange.send(right, body: body, segments: [body.count], over: stream)
        stream.close()
        #expect(accepted.final?.status == 201, "\(accepted)")
        #expect(accepted.final?.fields["Repr-Digest"] == digest)

        var wrong = Self.creation(length: body.count)
        wrong.fields.append(
            name: "Content-Digest", value: "sha-256=:" + Self.base64(Array(repeating: 7, count: 32)) + ":")
        let other = try fixture.connect()
        let rejected = WireExchange.send(wrong, body: body, segments: [body.count], over: other)
        other.close()
        #expect(rejected.final?.status == 400, "\(rejected)")
    }

    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Memory that stays flat (issue 37): past `transcriptMemory`, the proxy keeps the newest events within it and
    /// counts the rest, while the `--transcript` file keeps every one. The same uploads without the bound are the
    /// negative control: they keep more than it.
    @Test func theTranscriptInMemoryStaysWithinItsBoundAndTheFileKeepsAll() throws {
        let bound = 16 * 1024
        func upload(_ count: Int, memory: Int?, file: String?) throws -> Transcript {
            let fixture = try ProxyFixture(transcriptPath: file) { $0.transcriptMemory = memory }
            for round in 0..<count {
                let body = Self.body(1024, seed: UInt64(round))
                let stream = try fixture.connect()
                let outcome = WireExchange.send(
                    Self.creation(length: body.count), body: body, segments: [body.count], over: stream)
                stream.close()
                #expect(outcome.final?.status == 201, "\(outcome)")
            }
            fixture.proxy.stop()  // waits for every connection: their events are all in
            let transcript = fixture.proxy.transcript
            let metrics = fixture.proxy.metrics()
            #expect(metrics.transcriptEvents == transcript.count && metrics.transcriptBytes == transcript.keptBytes)
            #expect(metrics.transcriptDropped == transcript.droppedCount)
            return transcript
        }
        let folder = try TLSFixtures.TemporaryDirectory()
        let bounded = try upload(40, memory: bound, file: folder.file("all.jsonl"))
        #expect(bounded.keptBytes <= bound)
        #expect(bounded.droppedCount > 0)
        let lines = try String(contentsOfFile: folder.file("all.jsonl"), encoding: .utf8).split(separator: "\n")
        // The file keeps the dropped events too, after its first line, the proxy's start.
        #expect(lines.first?.contains(#""event":"start""#) == true)
        #expect(lines.count == 1 + bounded.appendedCount, "the file keeps the dropped events too")
        #expect(throws: ChaosProxyError.self) { try ProxyFixture { $0.transcriptMemory = 0 } }
        let unbounded = try upload(40, memory: nil, file: nil)
        #expect(unbounded.droppedCount == 0)
        #expect(unbounded.events.reduce(0) { $0 + $1.footprint } > bound)
    }

    @Test func tlsLegRecordsTheRequestedServerName() throws {
        let fixture = try ProxyFixture(tls: true)
        let body = Self.body(4096)
        let stream = try fixture.connect(serverName: "uploads.example")
        let outcome = WireExchange.send(Self.creation(length: body.count), body: body, over: stream)
        stream.close()
        #expect(outcome.final?.status == 201)
        let sessions = fixture.proxy.transcript.events.compactMap { event -> TLSSession? in
            if case .tlsEstablished(.client, let session) = event.kind { return session }
            return nil
        }
        #expect(sessions.map(\.serverName) == ["uploads.example"])
        #expect(fixture.proxy.url.hasPrefix("https://127.0.0.1:"))
    }
}
