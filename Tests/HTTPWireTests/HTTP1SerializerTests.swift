import HTTPWire
import Testing

/// Heads and chunks to bytes, and back through the parser.
struct HTTP1SerializerTests {
    @Test func serializesARequestHead() throws {
        let head = RequestHead(
            method: .patch, target: "/uploads/abc",
            fields: ["Host": "upload.example.com", "Upload-Offset": "11", "Content-Length": "5"])
        #expect(
            try HTTP1Serializer.serialize(head)
                == wire(
                    "PATCH /uploads/abc HTTP/1.1\r\nHost: upload.example.com\r\nUpload-Offset: 11\r\n"
                        + "Content-Length: 5\r\n\r\n"))
    }

    @Test func serializesAResponseHead() throws {
        let interim = ResponseHead(status: 104, reason: "Upload Resumption Supported", fields: ["Upload-Offset": "5"])
        #expect(
            try HTTP1Serializer.serialize(interim)
                == wire("HTTP/1.1 104 Upload Resumption Supported\r\nUpload-Offset: 5\r\n\r\n"))
        #expect(try HTTP1Serializer.serialize(ResponseHead(status: 204)) == wire("HTTP/1.1 204 \r\n\r\n"))
    }

    @Test func writesChunks() throws {
        #expect(HTTP1Serializer.chunk(wire("hello world, hi")) == wire("f\r\nhello world, hi\r\n"))
        #expect(HTTP1Serializer.chunk([UInt8]()) == [])
        #expect(HTTP1Serializer.chunkHeader(size: 4096) == wire("1000\r\n"))
        #expect(try HTTP1Serializer.lastChunk() == wire("0\r\n\r\n"))
        #expect(try HTTP1Serializer.lastChunk(trailers: ["Digest": "x"]) == wire("0\r\nDigest: x\r\n\r\n"))
    }

    @Test func chunkedMessageRoundTrips() throws {
        let head = RequestHead(
            method: .post, target: "/uploads", fields: ["Host": "a", "Transfer-Encoding": "chunked"])
        let parts = [wire("first part, "), wire(String(repeating: "x", count: 300)), wire("last")]
        var bytes = try HTTP1Serializer.serialize(head)
        for part in parts { bytes += HTTP1Serializer.chunk(part) }
        bytes += try HTTP1Serializer.lastChunk(trailers: ["Upload-Checksum": "abc"])
        var parser = HTTP1Parser(role: .server)
        let events = Harness.merged(try parser.feed(bytes))
        #expect(
            events == [
                .requestHead(head), .body(ArraySlice(parts.joined())), .end(trailers: ["Upload-Checksum": "abc"]),
            ])
    }

    @Test(arguments: Corpus.all)
    func corpusHeadsRoundTrip(_ entry: CorpusEntry) throws {
        for event in Harness.run(entry, [entry.bytes]).events {
            switch event {
            case .requestHead(let head):
                var parser = HTTP1Parser(role: .server)
                let reparsed = try parser.feed(try HTTP1Serializer.serialize(head))
                #expect(reparsed.first == .requestHead(head))
            case .responseHead(let head):
                var parser = HTTP1Parser(role: .client)
                parser.expectResponse(to: .head)
                let reparsed = try parser.feed(try HTTP1Serializer.serialize(head))
                #expect(reparsed.first == .responseHead(head))
            default:
                break
            }
        }
    }

    @Test func rejectsInvalidValuesWithoutWriting() {
        let cases: [(HTTPFields, HTTPWireError.Code)] = [
            (["Host": "a", "X": "a\r\nInjected: yes"], .invalidFieldValue),
            (["Host": "a", "X": "a\nb"], .invalidFieldValue),
            (["Host": "a", "X": "a\u{0}b"], .invalidFieldValue),
            (["Host": "a", "X": " padded"], .invalidFieldValue),
            (["Host": "a", "X": "padded\t"], .invalidFieldValue),
            (["Host": "a", "Bad Name": "1"], .invalidFieldName),
            (["Host": "a", "": "1"], .invalidFieldName),
            (["Host": "a", "X:Y": "1"], .invalidFieldName),
            (["Accept": "*/*"], .missingHost),
            (["Host": "a", "Content-Length": "1", "Transfer-Encoding": "chunked"], .contentLengthWithTransferEncoding),
            (["Host": "a", "Content-Length": "x"], .invalidContentLength),
        ]
        for (fields, code) in cases {
            var buffer = wire("kept")
            let error = #expect(throws: HTTPWireError.self) {
                try HTTP1Serializer.write(RequestHead(method: .get, target: "/", fields: fields), into: &buffer)
            }
            #expect(error?.code == code, "\(fields)")
            #expect(buffer == wire("kept"))
        }
    }

    @Test func rejectsInvalidStartLines() {
        let requests: [(RequestHead, HTTPWireError.Code)] = [
            (RequestHead(method: "GE T", target: "/", fields: ["Host": "a"]), .invalidMethod),
            (RequestHead(method: "", target: "/", fields: ["Host": "a"]), .invalidMethod),
            (RequestHead(method: .get, target: "/a b", fields: ["Host": "a"]), .invalidTarget),
            (RequestHead(method: .get, target: "/a\r\nX: y", fields: ["Host": "a"]), .bareCarriageReturn),
            (RequestHead(method: .get, target: "", fields: ["Host": "a"]), .invalidTarget),
            (RequestHead(method: .get, target: "/", version: HTTPVersion(major: 2, minor: 0)), .unsupportedVersion),
            (RequestHead(method: .get, target: "/", version: HTTPVersion(major: 1, minor: 10)), .invalidVersion),
        ]
        for (head, code) in requests {
            let error = #expect(throws: HTTPWireError.self) { try HTTP1Serializer.serialize(head) }
            #expect(error?.code == code, "\(head)")
        }
        let responses: [(ResponseHead, HTTPWireError.Code)] = [
            (ResponseHead(status: 99), .invalidStatus),
            (ResponseHead(status: 1000), .invalidStatus),
            (ResponseHead(status: 200, reason: "O\r\nK"), .invalidReason),
            (ResponseHead(status: 200, fields: ["X": "\u{7F}"]), .invalidFieldValue),
        ]
        for (head, code) in responses {
            let error = #expect(throws: HTTPWireError.self) { try HTTP1Serializer.serialize(head) }
            #expect(error?.code == code, "\(head)")
        }
    }
}
