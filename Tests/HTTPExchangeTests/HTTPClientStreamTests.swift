import HTTPExchange
import HTTPWire
import SquallNet
import TestSupport
import Testing

/// The client role against `ScriptedServer` (itself on `HTTPServerStream`): interim responses while the body is
/// sent, body limits, an early final response, the named errors.
struct HTTPClientStreamTests {
    static func connect(_ server: ScriptedServer) throws -> HTTPClientStream {
        let socket = try TCPConnector.connect(String(server.url.dropFirst("http://".count)))
        try socket.setNonBlocking(true)
        return HTTPClientStream(stream: PlainStream(socket: socket))
    }

    static func post(_ length: Int) -> RequestHead {
        RequestHead(method: .post, target: "/upload", fields: ["Host": "x", "Content-Length": String(length)])
    }

    @Test func interimResponsesArriveWhileAFileBodyIsSent() throws {
        // More than both socket buffers hold, so that the 104 at 100,000 bytes comes while the body is being sent.
        var bytes = [UInt8](repeating: 0x5A, count: 32 << 20)
        bytes[100_000] = 1
        bytes[bytes.count - 1] = 2
        let file = TemporaryFile(bytes)
        defer { file.close() }
        let server = try ScriptedServer(steps: [
            ScriptedStep(
                interims: [
                    ScriptedStep.interim104(version: 8, location: "/upload/a"),
                    ScriptedStep.interim104(version: 8, offset: 100_000, afterBytes: 100_000),
                ],
                respond: 201)
        ])
        let client = try Self.connect(server)
        var offsetsSeenWhileSending: [String] = []
        var sent = 0
        let response = try client.exchange(
            Self.post(bytes.count),
            body: RequestBody(fileDescriptor: file.descriptor, offset: 0, length: Int64(bytes.count), chunkSize: 8192),
            progressTimeout: .seconds(10),
            onInterim: { head in
                if let offset = head.fields["Upload-Offset"], sent < bytes.count {
                    offsetsSeenWhileSending.append(offset)
                }
                return true
            },
            onBodySent: {
                sent += $0
                return true
            })
        #expect(response.interims.map(\.status) == [104, 104])
        #expect(offsetsSeenWhileSending == ["100000"])
        #expect(response.head.status == 201 && response.sentEverything && response.bodyBytesSent == 32 << 20)
        #expect(server.requests.first?.body == bytes)
    }

    @Test func aFinalResponseBeforeTheBodyEndsStopsTheSending() throws {
        let file = TemporaryFile([UInt8](repeating: 1, count: 4 << 20))
        defer { file.close() }
        let server = try ScriptedServer(steps: [
            ScriptedStep(bodyLimit: 1000, ending: .respond(ResponseHead(status: 413, fields: ["Connection": "close"])))
        ])
        let response = try Self.connect(server).exchange(
            Self.post(4 << 20), body: RequestBody(fileDescriptor: file.descriptor, offset: 0, length: 4 << 20),
            progressTimeout: .seconds(10))
        #expect(response.head.status == 413 && !response.sentEverything && response.bodyBytesSent < 4 << 20)
    }

    @Test func theResponseBodyIsKeptUpToItsLimitOrRefused() throws {
        let content = ResponseHead(status: 200, fields: ["Content-Length": "10"])
        let server = try ScriptedServer(steps: [
            ScriptedStep(ending: .raw(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789".utf8))),
            ScriptedStep(ending: .raw(try HTTP1Serializer.serialize(content) + Array("0123456789".utf8))),
        ])
        let kept = try Self.connect(server).exchange(
            Self.post(0), progressTimeout: .seconds(10), bodyLimit: .keepFirst(4))
        #expect(kept.body == Array("0123".utf8))
        let error = #expect(throws: HTTPExchangeError.self) {
            try Self.connect(server).exchange(Self.post(0), progressTimeout: .seconds(10), bodyLimit: .refuseOver(9))
        }
        #expect(error?.code == .bodyTooLarge)
    }

    @Test func aServerThatSaysNothingIsTimedOutAndOneThatClosesIsClosed() throws {
        let server = try ScriptedServer(steps: [ScriptedStep(ending: .stall), ScriptedStep(ending: .close)])
        let silent = #expect(throws: HTTPExchangeError.self) {
            try Self.connect(server).exchange(Self.post(0), progressTimeout: .milliseconds(100))
        }
        #expect(silent?.code == .timedOut)
        let closed = #expect(throws: HTTPExchangeError.self) {
            try Self.connect(server).exchange(Self.post(0), progressTimeout: .seconds(10))
        }
        #expect(closed?.code == .closed)
    }

    @Test func aCallbackReturningFalseCancels() throws {
        let server = try ScriptedServer(steps: [
            ScriptedStep(interims: [ScriptedStep.interim104(version: 8)], respond: 201)
        ])
        let error = #expect(throws: HTTPExchangeError.self) {
            try Self.connect(server).exchange(Self.post(0), progressTimeout: .seconds(10), onInterim: { _ in false })
        }
        #expect(error?.code == .cancelled)
    }

    /// Found by fuzzing (Tools/fuzz.sh http-client): what follows the final response in the read that ended it is
    /// not the exchange's. A body after the answer to a HEAD made the exchange fail as malformed, and a second
    /// response replaced the final one, only when they came in the same read.
    @Test func bytesAfterTheFinalResponseInTheSameReadAreNotTheExchanges() throws {
        let head = try StreamPair()
        try head.server.writeAll(Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc".utf8))
        let toHead = try HTTPClientStream(stream: head.client).readResponses(to: .head, progressTimeout: .seconds(10))
        #expect(toHead.head.status == 200 && toHead.body.isEmpty)

        let twice = try StreamPair()
        let answers = "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 500 Oops\r\nContent-Length: 4\r\n\r\noops"
        try twice.server.writeAll(Array(answers.utf8))
        let first = try HTTPClientStream(stream: twice.client).readResponses(to: .get, progressTimeout: .seconds(10))
        #expect(first.head.status == 204 && first.body.isEmpty)
    }

    @Test func responsesToARequestWrittenInPiecesByTheCallerAreRead() throws {
        let server = try ScriptedServer(steps: [
            ScriptedStep(interims: [ScriptedStep.interim104(version: 8, location: "/upload/a")], respond: 201)
        ])
        let client = try Self.connect(server)
        let request = try HTTP1Serializer.serialize(Self.post(3)) + Array("abc".utf8)
        for byte in request { try client.stream.writeAll([byte]) }
        let response = try client.readResponses(to: .post, progressTimeout: .seconds(10))
        #expect(response.interims.map(\.status) == [104])
        #expect(response.head.status == 201)
        #expect(response.sentEverything)
        #expect(server.requests.first?.body == Array("abc".utf8))
    }
}
