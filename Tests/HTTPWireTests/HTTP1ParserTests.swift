import HTTPWire
import Testing

/// Whole messages with their exact events: RFC 9112 examples and resumable-upload traffic.
struct HTTP1ParserTests {
    private func parse(_ parser: HTTP1Parser, _ text: String) throws -> [HTTP1Event] {
        var parser = parser
        return try parser.feed(wire(text))
    }

    @Test func parsesAnUploadCreationRequest() throws {
        let events = try parse(
            HTTP1Parser(role: .server),
            "POST /uploads HTTP/1.1\r\nHost: upload.example.com\r\nUpload-Draft-Interop-Version: 6\r\n"
                + "Upload-Complete: ?1\r\nContent-Length: 5\r\n\r\nhello")
        let expected = RequestHead(
            method: .post, target: "/uploads", version: .http11,
            fields: [
                "Host": "upload.example.com", "Upload-Draft-Interop-Version": "6", "Upload-Complete": "?1",
                "Content-Length": "5",
            ])
        #expect(events == [.requestHead(expected), .body(wire("hello")[...]), .end(trailers: [:])])
        guard case .requestHead(let head) = events.first else { return }
        #expect(head.fields["upload-draft-interop-version"] == "6")
        #expect(head.fields["UPLOAD-COMPLETE"] == "?1")
    }

    /// Where the parser stands between the messages of a kept-alive stream, byte by byte: between messages, inside a
    /// head, or inside content (neither).
    @Test func saysWhetherItIsBetweenMessagesOrInsideAHead() throws {
        var parser = HTTP1Parser(role: .server)
        #expect(parser.isBetweenMessages && !parser.isInsideHead)
        _ = try parser.feed(wire("GET /a HT"))
        #expect(!parser.isBetweenMessages && parser.isInsideHead)
        _ = try parser.feed(wire("TP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nab"))
        #expect(!parser.isBetweenMessages && !parser.isInsideHead)
        _ = try parser.feed(wire("c"))
        #expect(parser.isBetweenMessages && !parser.isInsideHead)
        _ = try parser.feed(wire("GET /b HTTP/1.1\r\nHost: h\r\n\r\nP"))
        #expect(!parser.isBetweenMessages && parser.isInsideHead)
    }

    @Test func parsesTheRequestTargetForms() throws {
        let targets = [
            ("GET", "/where?q=now"), ("GET", "http://www.example.org/pub/WWW/TheProject.html"),
            ("CONNECT", "www.example.com:80"), ("OPTIONS", "*"), ("OPTIONS", "/"),
        ]
        for (method, target) in targets {
            let events = try parse(HTTP1Parser(role: .server), "\(method) \(target) HTTP/1.1\r\nHost: h\r\n\r\n")
            let head = RequestHead(method: HTTPMethod(rawValue: method), target: target, fields: ["Host": "h"])
            #expect(events == [.requestHead(head), .end(trailers: [:])])
        }
    }

    @Test func parsesAChunkedBodyWithTrailers() throws {
        let events = try parse(
            HTTP1Parser(role: .server),
            "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5;ext=\"v\"\r\npedia\r\n"
                + "0\r\nExpires: Wed, 21 Oct 2015 07:28:00 GMT\r\nX-Sum: 1\r\n\r\n")
        #expect(
            Harness.merged(Array(events.dropFirst())) == [
                .body(wire("Wikipedia")[...]),
                .end(trailers: ["Expires": "Wed, 21 Oct 2015 07:28:00 GMT", "X-Sum": "1"]),
            ])
    }

    @Test func streamsABodyAsItIsFed() throws {
        var parser = HTTP1Parser(role: .server)
        let head = try parser.feed(wire("PATCH /uploads/abc HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123"))
        #expect(head.count == 2)
        #expect(head.last == .body(wire("0123")[...]))
        #expect(try parser.feed(wire("45")) == [.body(wire("45")[...])])
        #expect(try parser.feed([]) == [])
        let last = try parser.feed(wire("6789GET"))
        #expect(last == [.body(wire("6789")[...]), .end(trailers: [:])])
    }

    @Test func bodySlicesShareTheBytesFed() throws {
        var parser = HTTP1Parser(role: .server)
        let bytes = wire("PUT /f HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc")
        let events = try parser.feed(bytes[2...])
        guard case .body(let body) = events[1] else {
            Issue.record("expected a body, got \(events)")
            return
        }
        #expect(body.indices == (bytes.count - 3)..<bytes.count)
    }

    @Test func parsesPipelinedRequestsFromOneChunk() throws {
        var parser = HTTP1Parser(role: .server)
        let events = try parser.feed(
            wire(
                "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi"
                    + "HEAD /3 HTTP/1.1\r\nHost: a\r\n\r\n"))
        let targets = events.compactMap { event -> String? in
            if case .requestHead(let head) = event { head.target } else { nil }
        }
        #expect(targets == ["/1", "/2", "/3"])
        #expect(events.count { $0 == .end(trailers: [:]) } == 3)
        #expect(try parser.finish() == [])
    }

    @Test func ignoresEmptyLinesBeforeARequestLine() throws {
        let events = try parse(HTTP1Parser(role: .server), "\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(
            events == [
                .requestHead(RequestHead(method: .get, target: "/", fields: ["Host": "a"])), .end(trailers: [:]),
            ])
    }

    @Test func acceptsBareLineFeedsWhenAllowed() throws {
        let parser = HTTP1Parser(role: .server, limits: HTTPLimits(allowsBareLineFeed: true))
        let events = try parse(
            parser, "POST / HTTP/1.1\nHost: a\nTransfer-Encoding: chunked\n\n2\nhi\n0\nX-T: 1\n\n")
        #expect(
            Harness.merged(events) == [
                .requestHead(
                    RequestHead(method: .post, target: "/", fields: ["Host": "a", "Transfer-Encoding": "chunked"])),
                .body(wire("hi")[...]), .end(trailers: ["X-T": "1"]),
            ])
    }

    @Test func parsesTwoUploadResumption104sBeforeThe201() throws {
        var parser = HTTP1Parser(role: .client)
        parser.expectResponse(to: .post)
        let events = try parser.feed(Corpus.responses[0].bytes)
        let heads = events.compactMap { event -> ResponseHead? in
            if case .responseHead(let head) = event { head } else { nil }
        }
        #expect(heads.map(\.status) == [104, 104, 201])
        #expect(heads.map(\.isInformational) == [true, true, false])
        #expect(heads[0].fields["Location"] == "https://upload.example.com/uploads/abc")
        #expect(heads[0].reason == "Upload Resumption Supported")
        #expect(heads[1].fields["upload-offset"] == "5")
        #expect(heads[1].fields["Location"] == nil)
        #expect(events.last == .end(trailers: [:]))
        #expect(events.count == 4)
        #expect(try parser.finish() == [])
    }

    @Test func anInterimResponseDoesNotAnswerTheRequest() throws {
        var parser = HTTP1Parser(role: .client)
        parser.expectResponse(to: .head)
        #expect(try parser.feed(wire("HTTP/1.1 104 Upload Resumption Supported\r\n\r\n")).count == 1)
        let error = #expect(throws: HTTPWireError.self) { try parser.finish() }
        #expect(error?.code == .truncated)
    }

    @Test func readsResponseFramingFromTheRequestMethod() throws {
        var parser = HTTP1Parser(role: .client)
        parser.expectResponse(to: .head)
        parser.expectResponse(to: .get)
        let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"
        let events = try parser.feed(wire(response + response + "ok"))
        #expect(events.count == 5)
        #expect(
            Array(events[1...]) == [
                .end(trailers: [:]), events[2], .body(wire("ok")[...]), .end(trailers: [:]),
            ])
    }

    @Test func aResponseNobodyAskedForIsReadAsForGET() throws {
        var parser = HTTP1Parser(role: .client)
        let events = try parser.feed(
            wire("HTTP/1.1 408 Request Timeout\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno"))
        #expect(events.count == 3)
        #expect(events[1] == .body(wire("no")[...]))
        #expect(parser.keepAlive == false)
        #expect(try parser.finish() == [])
    }

    @Test func responsesWithNoContent() throws {
        for (method, status) in [(HTTPMethod.patch, 204), (.get, 304), (.head, 200)] {
            var parser = HTTP1Parser(role: .client)
            parser.expectResponse(to: method)
            let events = try parser.feed(wire("HTTP/1.1 \(status) X\r\nContent-Length: 7\r\n\r\n"))
            #expect(events.count == 2)
            #expect(events.last == .end(trailers: [:]))
        }
    }

    @Test func aResponseWithoutLengthEndsWithTheConnection() throws {
        var parser = HTTP1Parser(role: .client)
        parser.expectResponse(to: .get)
        let events = try parser.feed(wire("HTTP/1.1 200 OK\r\n\r\npart one, "))
        #expect(events.last == .body(wire("part one, ")[...]))
        #expect(try parser.feed(wire("part two")) == [.body(wire("part two")[...])])
        #expect(parser.keepAlive == false)
        #expect(try parser.finish() == [.end(trailers: [:])])
        #expect(throws: HTTPWireError.self) { try parser.feed(wire("more")) }
    }

    @Test func switchingProtocolsMakesTheRestOpaque() throws {
        var parser = HTTP1Parser(role: .client)
        parser.expectResponse(to: .get)
        let events = try parser.feed(wire("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\nPRI *"))
        #expect(events.count == 3)
        #expect(Array(events[1...]) == [.upgrade, .opaque(wire("PRI *")[...])])
        #expect(try parser.feed(wire("HTTP/1.1 garbage")) == [.opaque(wire("HTTP/1.1 garbage")[...])])
        #expect(parser.keepAlive == false)
        #expect(try parser.finish() == [])
    }

    @Test func keepAliveFollowsVersionAndConnection() throws {
        let cases: [(String, Bool)] = [
            ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade, close\r\n\r\n", false),
            ("GET / HTTP/1.0\r\n\r\n", false),
            ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
        ]
        for (text, keepAlive) in cases {
            var parser = HTTP1Parser(role: .server)
            let events = try parser.feed(wire(text))
            #expect(parser.keepAlive == keepAlive, "\(text)")
            guard case .requestHead(let head) = events.first else { continue }
            #expect(head.keepAlive == keepAlive, "\(text)")
        }
    }

    @Test func finishAtAMessageBoundaryIsClean() throws {
        var server = HTTP1Parser(role: .server)
        #expect(try server.finish() == [])
        #expect(try server.finish() == [])
        #expect(try server.feed([]) == [])
        var client = HTTP1Parser(role: .client)
        client.expectResponse(to: .get)
        #expect(throws: HTTPWireError.self) { try client.finish() }
    }

    @Test func eventsBeforeAnErrorAreKept() {
        var parser = HTTP1Parser(role: .server)
        var events: [HTTP1Event] = []
        let bytes = wire("GET /ok HTTP/1.1\r\nHost: a\r\n\r\nGET /bad path HTTP/1.1\r\n")
        #expect(throws: HTTPWireError.self) { try parser.feed(bytes[...], into: &events) }
        #expect(
            events == [
                .requestHead(RequestHead(method: .get, target: "/ok", fields: ["Host": "a"])), .end(trailers: [:]),
            ])
    }
}
