import FaultEngine
import Foundation
import HTTPWire
import SquallCore
import Testing

struct FaultMatchTests {
    private func decode(_ json: String) throws -> FaultMatch {
        try FaultMatch(try JSONValue.parse(json))
    }

    @Test func decodesEveryCriterion() throws {
        let match = try decode(
            #"""
            {"method": "PATCH", "path": "/uploads/*", "header": {"name": "Authorization", "value": "Bearer *"},
             "interop": 6, "nth-connection": 2, "nth-request": 3}
            """#)
        #expect(match.method == .patch)
        #expect(match.path == Glob("/uploads/*"))
        #expect(match.header == HeaderMatch(name: "Authorization", value: Glob("Bearer *")))
        #expect(match.interop == 6)
        #expect(match.nthConnection == 2)
        #expect(match.nthRequest == 3)
        #expect(match.needsRequest)
        #expect(try decode(#"{"header": {"name": "X"}}"#).header?.value == Glob("*"))
        #expect(try !decode(#"{"nth-connection": 1}"#).needsRequest)
    }

    @Test(arguments: [
        (#"{"verb": "GET"}"#, FaultError.Code.unknownKey, "verb"),
        (#"{"method": 5}"#, .wrongType, "method"),
        (#"{"path": ["/a"]}"#, .wrongType, "path"),
        (#"{"header": "Authorization"}"#, .wrongType, "header"),
        (#"{"header": {"value": "x"}}"#, .missingKey, "header.name"),
        (#"{"header": {"name": "A", "regex": "x"}}"#, .unknownKey, "header.regex"),
        (#"{"interop": "6"}"#, .wrongType, "interop"),
        (#"{"nth-request": 1.5}"#, .wrongType, "nth-request"),
    ])
    func rejectsInvalidMatches(_ json: String, _ code: FaultError.Code, _ path: String) {
        #expect {
            try decode(json)
        } throws: { error in
            (error as? FaultError)?.code == code && (error as? FaultError)?.path == path
        }
    }

    @Test(arguments: ["nth-request", "nth-connection"])
    func countsStartAtOne(_ key: String) throws {
        let error = try #require(decodingError(#"{"name": "m", "action": "reset", "match": {""# + key + #"": 0}}"#))
        #expect(error.code == .invalidValue)
        #expect(error.path == "match.\(key)")
    }

    @Test func matchesRequestHeads() {
        let head = RequestHead(
            method: .patch, target: "/uploads/42?part=1",
            fields: ["Authorization": "Bearer abc", "Upload-Draft-Interop-Version": "6"])
        #expect(FaultMatch().matches(head))
        #expect(FaultMatch(method: .patch, path: Glob("/uploads/*")).matches(head))
        #expect(!FaultMatch(method: .post).matches(head))
        #expect(FaultMatch(path: Glob("/uploads/4?")).matches(head))
        #expect(!FaultMatch(path: Glob("/uploads/42?part=1")).matches(head))
        #expect(FaultMatch(header: HeaderMatch(name: "authorization", value: Glob("Bearer *"))).matches(head))
        #expect(!FaultMatch(header: HeaderMatch(name: "Authorization", value: Glob("Basic *"))).matches(head))
        #expect(!FaultMatch(header: HeaderMatch(name: "Cookie")).matches(head))
        #expect(FaultMatch(interop: 6).matches(head))
        #expect(!FaultMatch(interop: 8).matches(head))
        #expect(!FaultMatch(interop: 6).matches(RequestHead(method: .patch, target: "/uploads/42")))
    }
}
