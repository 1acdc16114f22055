import HTTPWire
import Testing

/// Ordered fields with case-insensitive lookup (RFC 9110 §5).
struct HTTPFieldsTests {
    @Test func keepsOrderAndCase() {
        let fields: HTTPFields = ["Host": "a", "upload-OFFSET": "5", "Accept": "x", "accept": "y"]
        #expect(fields.map(\.name) == ["Host", "upload-OFFSET", "Accept", "accept"])
        #expect(fields.map(\.value) == ["a", "5", "x", "y"])
        #expect(fields.count == 4)
        #expect(fields[1] == HTTPField(name: "upload-OFFSET", value: "5"))
    }

    @Test func looksUpIgnoringCase() {
        let fields: HTTPFields = ["Content-Length": "5", "X-A": "1", "x-a": "2"]
        #expect(fields["content-length"] == "5")
        #expect(fields["CONTENT-LENGTH"] == "5")
        #expect(fields["Content-Lengt"] == nil)
        #expect(fields["x-A"] == "1")
        #expect(fields.values(for: "X-a") == ["1", "2"])
        #expect(fields.values(for: "missing") == [])
        #expect(fields.contains("content-LENGTH"))
        #expect(!fields.contains("Host"))
        #expect(HTTPField(name: "Upload-Complete", value: "?1").hasName("upload-complete"))
    }

    @Test func splitsListValues() {
        let fields: HTTPFields = [
            "Accept": "text/plain, application/json;q=0.5", "accept": " , */*", "Cache": "\"a, b\", c",
        ]
        #expect(fields.listValues(for: "ACCEPT") == ["text/plain", "application/json;q=0.5", "*/*"])
        #expect(fields.listValues(for: "cache") == ["\"a, b\"", "c"])
        #expect(fields.listValues(for: "none") == [])
    }

    @Test func setsAndRemoves() {
        var fields: HTTPFields = ["A": "1", "Upload-Offset": "0", "B": "2", "upload-offset": "9"]
        fields.set("42", for: "UPLOAD-OFFSET")
        #expect(fields.map(\.description) == ["A: 1", "Upload-Offset: 42", "B: 2"])
        fields["C"] = "3"
        #expect(fields.last == HTTPField(name: "C", value: "3"))
        fields["a"] = nil
        #expect(fields.map(\.name) == ["Upload-Offset", "B", "C"])
        fields.remove("b")
        fields.append(name: "D", value: "4")
        fields.append(HTTPField(name: "d", value: "5"))
        #expect(fields.map(\.description) == ["Upload-Offset: 42", "C: 3", "D: 4", "d: 5"])
    }

    @Test func compactsAfterManyUpdates() {
        var fields: HTTPFields = ["Keep": "me"]
        for offset in 0..<1_000 {
            fields.set(String(offset), for: "Upload-Offset")
        }
        #expect(fields.map(\.description) == ["Keep: me", "Upload-Offset: 999"])
        #expect(fields == ["Keep": "me", "Upload-Offset": "999"])
    }

    @Test func comparesFieldByField() {
        let a: HTTPFields = ["A": "1", "B": "2"]
        #expect(a == ["A": "1", "B": "2"])
        #expect(a != ["B": "2", "A": "1"])
        #expect(a != ["a": "1", "B": "2"])
        #expect(a != ["A": "1"])
        var removed: HTTPFields = ["A": "1", "X": "0", "B": "2"]
        removed.remove("X")
        #expect(removed == a)
        #expect(removed.hashValue == a.hashValue)
    }

    @Test func parsedFieldsKeepTheirBytes() throws {
        var parser = HTTP1Parser(role: .server)
        let events = try parser.feed(
            wire("GET / HTTP/1.1\r\nHost: a\r\nX-Name: caf") + [0xC3, 0xA9] + wire("\r\n\r\n"))
        guard case .requestHead(let head) = events.first else {
            Issue.record("no head in \(events)")
            return
        }
        #expect(head.fields["x-name"] == "café")
        #expect(head.fields == ["Host": "a", "X-Name": "café"])
    }
}
