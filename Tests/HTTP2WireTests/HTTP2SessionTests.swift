import HTTP2Wire
import HTTPWire
import Testing

/// A client and a server session joined in memory: what one writes, the other reads.
private final class Pair {
    let client: HTTP2Session
    let server: HTTP2Session
    var clientEvents: [HTTP2Event] = []
    var serverEvents: [HTTP2Event] = []

    init(client: HTTP2Session.Options = .init(), server: HTTP2Session.Options = .init()) throws {
        self.client = try HTTP2Session(role: .client, options: client)
        self.server = try HTTP2Session(role: .server, options: server)
    }

    /// Moves bytes both ways until neither side has anything to write.
    func pump() throws {
        while true {
            let toServer = try client.takeOutput()
            let toClient = try server.takeOutput()
            if toServer.isEmpty && toClient.isEmpty { return }
            serverEvents += try server.receive(toServer)
            clientEvents += try client.receive(toClient)
        }
    }

    static func bytes(_ events: [HTTP2Event], on stream: Int32) -> Int {
        events.reduce(0) { total, event in
            guard case .data(stream, let bytes) = event else { return total }
            return total + bytes.count
        }
    }

    static func heads(_ events: [HTTP2Event], on stream: Int32) -> [[HTTPField]] {
        events.compactMap { event in
            guard case .headers(stream, let fields, _) = event else { return nil }
            return fields
        }
    }
}

private let upload = [
    HTTPField(name: ":method", value: "POST"), HTTPField(name: ":scheme", value: "https"),
    HTTPField(name: ":authority", value: "localhost"), HTTPField(name: ":path", value: "/upload"),
]

struct HTTP2SessionTests {
    @Test func anUploadWithInterimResponsesAndAFinalOne() throws {
        let pair = try Pair()
        let stream = try pair.client.submitRequest(upload, endStream: false)
        #expect(stream == 1)
        let body = [UInt8](repeating: 7, count: 3 << 20)
        pair.client.send(body, on: stream)
        pair.client.end(stream)
        try pair.pump()
        #expect(Pair.bytes(pair.serverEvents, on: stream) == body.count)
        #expect(pair.serverEvents.contains(.endStream(stream: stream)))
        let request = try #require(HTTP2Heads.request(Pair.heads(pair.serverEvents, on: stream).first ?? []))
        #expect(request.method == .post && request.target == "/upload" && request.fields["Host"] == "localhost")

        try pair.server.submitResponse(
            [HTTPField(name: ":status", value: "104"), HTTPField(name: "location", value: "/u/1")], on: stream,
            endStream: false)
        try pair.server.submitResponse([HTTPField(name: ":status", value: "104")], on: stream, endStream: false)
        try pair.server.submitResponse([HTTPField(name: ":status", value: "201")], on: stream, endStream: false)
        pair.server.send(Array("done".utf8), on: stream)
        pair.server.end(stream)
        try pair.pump()
        let statuses = Pair.heads(pair.clientEvents, on: stream).compactMap { HTTP2Heads.response($0)?.status }
        #expect(statuses == [104, 104, 201])
        #expect(
            Pair.heads(pair.clientEvents, on: stream).first?.contains(HTTPField(name: "location", value: "/u/1"))
                == true)
        #expect(Pair.bytes(pair.clientEvents, on: stream) == 4)
        #expect(pair.clientEvents.contains(.closed(stream: stream, code: .noError)))
    }

    /// A burst of DATA frames read at once comes out as one `.data` event a run of the same stream, in order: the
    /// proxy writes it into a stream's exchange in one go.
    @Test func aBurstOfFramesOfAStreamIsOneEvent() throws {
        let pair = try Pair()
        let first = try pair.client.submitRequest(upload, endStream: false)
        try pair.pump()
        pair.serverEvents = []
        let body = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        pair.client.send(body, on: first)
        try pair.pump()
        let runs = pair.serverEvents.compactMap { event -> [UInt8]? in
            guard case .data(first, let bytes) = event else { return nil }
            return bytes
        }
        // 100 000 bytes are seven frames of at most 16 384; all of them in one read.
        #expect(runs.count == 1)
        #expect(runs.first.map { $0 == body } == true, "the content, in order")

        // Two streams' frames interleaved stay apart and in order.
        let second = try pair.client.submitRequest(upload, endStream: false)
        try pair.pump()
        pair.serverEvents = []
        pair.client.send([UInt8](repeating: 1, count: 40_000), on: first)
        pair.client.send([UInt8](repeating: 2, count: 40_000), on: second)
        try pair.pump()
        var order: [Int32] = []
        for case .data(let stream, _) in pair.serverEvents where order.last != stream { order.append(stream) }
        #expect(Pair.bytes(pair.serverEvents, on: first) == 40_000)
        #expect(Pair.bytes(pair.serverEvents, on: second) == 40_000)
        #expect(order.count >= 2 && Set(order) == [first, second])
    }

    @Test func aResetReachesThePeerWithItsCode() throws {
        let pair = try Pair()
        let first = try pair.client.submitRequest(upload, endStream: false)
        let second = try pair.client.submitRequest(upload, endStream: false)
        pair.client.send([1, 2, 3], on: first)
        pair.client.send([4, 5], on: second)
        try pair.pump()
        pair.server.reset(first, code: .cancel)
        try pair.pump()
        #expect(pair.clientEvents.contains(.reset(stream: first, code: .cancel)))
        #expect(pair.clientEvents.contains(.closed(stream: first, code: .cancel)))
        // The other stream goes on.
        pair.client.send([6], on: second)
        pair.client.end(second)
        try pair.pump()
        #expect(Pair.bytes(pair.serverEvents, on: second) == 3)
        #expect(pair.serverEvents.contains(.endStream(stream: second)))
    }

    @Test func goawayNamesTheLastStreamItProcessed() throws {
        let pair = try Pair()
        let streams = try (0..<3).map { _ in try pair.client.submitRequest(upload, endStream: false) }
        try pair.pump()
        pair.server.goAway(lastStream: streams[0], code: .noError)
        try pair.pump()
        #expect(pair.clientEvents.contains(.goaway(lastStream: streams[0], code: .noError)))
        // The streams above it are closed on the client, refused.
        #expect(pair.clientEvents.contains(.closed(stream: streams[1], code: .refusedStream)))
        #expect(pair.clientEvents.contains(.closed(stream: streams[2], code: .refusedStream)))
        #expect(!pair.clientEvents.contains { if case .closed(streams[0], _) = $0 { true } else { false } })
    }

    /// A pair whose server takes 65,535 bytes a stream and reopens its window only when told, and a stream on which
    /// the client sent 200,000 bytes (pumped).
    private static func heldUpload() throws -> (Pair, Int32) {
        var held = HTTP2Session.Options()
        held.manualWindowUpdates = true
        held.settings = [HTTP2Setting(.initialWindowSize, 65_535)]
        let pair = try Pair(server: held)
        let stream = try pair.client.submitRequest(upload, endStream: false)
        pair.client.send([UInt8](repeating: 1, count: 200_000), on: stream)
        try pair.pump()
        return (pair, stream)
    }

    @Test func aWindowNeverReopenedStallsTheSender() throws {
        let (pair, stream) = try Self.heldUpload()
        #expect(Pair.bytes(pair.serverEvents, on: stream) == 65_535)
        #expect(pair.client.queuedCount(on: stream) == 200_000 - 65_535)
        #expect(pair.client.sendWindow(on: stream) == 0)
        // Taking what came reopens the window.
        pair.server.consume(65_535, on: stream)
        try pair.pump()
        #expect(Pair.bytes(pair.serverEvents, on: stream) == 131_070)
        #expect(pair.clientEvents.contains(.windowUpdate(stream: stream, increment: 65_535)))
    }

    /// A stream the peer resets: the sender learns how much of its queued content was never framed, so that it
    /// counts as sent what went (a resumable upload then resumes from what the server may have, not less).
    @Test func aResetStreamTellsWhatWasNeverFramed() throws {
        let (pair, stream) = try Self.heldUpload()
        #expect(pair.client.unframedAtClose(on: stream) == nil, "open: nothing to tell")
        pair.server.reset(stream, code: .cancel)
        let toClient = try pair.server.takeOutput()
        let events = try pair.client.receive(toClient)
        #expect(events.contains(.reset(stream: stream, code: .cancel)))
        #expect(pair.client.unframedAtClose(on: stream) == 200_000 - 65_535)
        // Only for the events of the last read.
        _ = try pair.client.receive(try pair.server.takeOutput())
        #expect(pair.client.unframedAtClose(on: stream) == nil)
    }

    @Test func anHTTP1RequestIsABadPreface() throws {
        let server = try HTTP2Session(role: .server)
        #expect {
            _ = try server.receive(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        } throws: { error in
            (error as? HTTP2Error)?.isBadPreface == true
        }
    }

    @Test func thePeersSettingsArriveAndCount() throws {
        var server = HTTP2Session.Options()
        server.settings = [HTTP2Setting(.maxConcurrentStreams, 2)]
        let pair = try Pair(server: server)
        _ = try pair.client.submitRequest(upload, endStream: true)
        try pair.pump()
        #expect(pair.clientEvents.contains(.settings([HTTP2Setting(.maxConcurrentStreams, 2)])))
        #expect(pair.client.peerSetting(.maxConcurrentStreams) == 2)
        pair.server.submitSettings([HTTP2Setting(.maxConcurrentStreams, 1)])
        try pair.pump()
        #expect(pair.client.peerSetting(.maxConcurrentStreams) == 1)
    }

    @Test func pingsAreAnsweredUnlessHeld() throws {
        let pair = try Pair()
        pair.client.ping()
        try pair.pump()
        #expect(pair.clientEvents.contains(.pingAcknowledged))

        var held = HTTP2Session.Options()
        held.holdPings = true
        let silent = try Pair(server: held)
        silent.client.ping()
        try silent.pump()
        #expect(!silent.clientEvents.contains(.pingAcknowledged))
    }
}

struct HTTP2HeadsTests {
    @Test func aRequestLosesItsConnectionSpecificFields() throws {
        let head = RequestHead(
            method: .patch, target: "/u/1?x=1",
            fields: [
                "Host": "example.test:8443", "Connection": "keep-alive, X-Hop", "X-Hop": "1", "Keep-Alive": "5",
                "Transfer-Encoding": "chunked", "TE": "gzip", "Upload-Offset": "10",
            ])
        let fields = HTTP2Heads.fields(of: head, scheme: "https")
        #expect(
            fields == [
                HTTPField(name: ":method", value: "PATCH"), HTTPField(name: ":scheme", value: "https"),
                HTTPField(name: ":authority", value: "example.test:8443"), HTTPField(name: ":path", value: "/u/1?x=1"),
                HTTPField(name: "upload-offset", value: "10"),
            ])
        let back = try #require(HTTP2Heads.request(fields))
        #expect(back.version == .http2 && back.method == .patch && back.target == "/u/1?x=1")
        #expect(back.fields["Host"] == "example.test:8443" && back.fields["Upload-Offset"] == "10")
        #expect(HTTP2Heads.request([HTTPField(name: ":method", value: "GET")]) == nil)
    }

    @Test func aResponseKeepsItsStatusNotItsReason() throws {
        let fields = HTTP2Heads.fields(
            of: ResponseHead(status: 104, reason: "Upload Resumption Supported", fields: ["Location": "/u/1"]))
        #expect(fields == [HTTPField(name: ":status", value: "104"), HTTPField(name: "location", value: "/u/1")])
        #expect(HTTP2Heads.response(fields)?.status == 104)
        #expect(HTTP2Heads.response([HTTPField(name: ":status", value: "2000")]) == nil)
        #expect(HTTPVersion.http2.description == "HTTP/2")
    }

    @Test func errorCodesHaveTheirNames() {
        #expect(HTTP2ErrorCode.cancel.description == "CANCEL")
        #expect(HTTP2ErrorCode(name: "refused-stream") == .refusedStream)
        #expect(HTTP2ErrorCode(name: "0x8") == .cancel)
        #expect(HTTP2ErrorCode(rawValue: 0x42).description == "0x42")
        #expect(HTTP2ErrorCode(name: "nonsense") == nil)
    }
}
