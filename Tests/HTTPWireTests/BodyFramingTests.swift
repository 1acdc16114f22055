import HTTPWire
import Testing

/// RFC 9112 §6.3, applied to heads on their own.
struct BodyFramingTests {
    private func request(_ fields: HTTPFields, version: HTTPVersion = .http11) throws(HTTPWireError) -> BodyFraming {
        try BodyFraming(request: RequestHead(method: .post, target: "/", version: version, fields: fields))
    }

    private func response(
        _ status: Int, _ fields: HTTPFields = [:], to method: HTTPMethod = .get, version: HTTPVersion = .http11
    ) throws(HTTPWireError) -> BodyFraming {
        try BodyFraming(
            response: ResponseHead(version: version, status: status, fields: fields), requestMethod: method)
    }

    @Test func requestFraming() throws {
        #expect(try request([:]) == .none)
        #expect(try request(["Content-Length": "0"]) == .contentLength(0))
        #expect(try request(["content-length": "1073741824"]) == .contentLength(1 << 30))
        #expect(try request(["Content-Length": "7, 7", "Content-Length": "7"]) == .contentLength(7))
        #expect(try request(["Transfer-Encoding": "chunked"]) == .chunked)
        #expect(try request(["Content-Length": "9223372036854775807"]) == .contentLength(Int.max))
        #expect(try request(["Content_Length": "5", "Content\rLength": "5", "Content-Lengths": "5"]) == .none)
        #expect(try request(["TRANSFER-ENCODING": "CHUNKED"]) == .chunked)
    }

    @Test func responseFraming() throws {
        #expect(try response(200, ["Content-Length": "12"]) == .contentLength(12))
        #expect(try response(200, ["Transfer-Encoding": "chunked"]) == .chunked)
        #expect(try response(200, ["Transfer-Encoding": "gzip"]) == .untilClose)
        #expect(try response(200) == .untilClose)
        #expect(try response(200, ["Content-Length": "12"], to: .head) == .none)
        #expect(try response(204, ["Content-Length": "12"]) == .none)
        #expect(try response(304, ["Transfer-Encoding": "chunked"]) == .none)
        #expect(try response(104, ["Upload-Offset": "5"]) == .none)
        #expect(try response(100) == .none)
        #expect(try response(101, ["Upgrade": "websocket"]) == .tunnel)
        #expect(try response(200, to: .connect) == .tunnel)
        #expect(try response(407, ["Content-Length": "3"], to: .connect) == .contentLength(3))
    }

    @Test func rejectsSmugglingPatterns() {
        let cases: [(HTTPFields, HTTPVersion, HTTPWireError.Code)] = [
            (["Content-Length": "3", "Transfer-Encoding": "chunked"], .http11, .contentLengthWithTransferEncoding),
            (["Transfer-Encoding": "chunked"], .http10, .transferEncodingInHTTP10),
            (["Transfer-Encoding": "gzip"], .http11, .unsupportedTransferEncoding),
            (["Transfer-Encoding": "chunked, gzip"], .http11, .unsupportedTransferEncoding),
            (["Transfer-Encoding": "br, chunked"], .http11, .unsupportedTransferEncoding),
            (["Transfer-Encoding": "gzip", "Transfer-Encoding": "Chunked"], .http11, .unsupportedTransferEncoding),
            (["Content-Length": "3", "Content-Length": "4"], .http11, .conflictingContentLength),
            (["Content-Length": "-1"], .http11, .invalidContentLength),
            (["Content-Length": "18446744073709551616"], .http11, .invalidContentLength),
        ]
        for (fields, version, code) in cases {
            let error = #expect(throws: HTTPWireError.self) { try request(fields, version: version) }
            #expect(error?.code == code, "\(fields)")
        }
    }

    @Test func responseRules() {
        let both: HTTPFields = ["Content-Length": "3", "Transfer-Encoding": "chunked"]
        let error = #expect(throws: HTTPWireError.self) { try response(200, both) }
        #expect(error?.code == .contentLengthWithTransferEncoding)
        #expect((try? response(204, both)) == BodyFraming.none)
        let old = #expect(throws: HTTPWireError.self) {
            try response(200, ["Transfer-Encoding": "chunked"], version: .http10)
        }
        #expect(old?.code == .transferEncodingInHTTP10)
    }
}
