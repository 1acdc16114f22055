import HTTPWire
import Testing

@testable import ResumableUpload

/// The draft's rules applied to a server's answers (issue 15 item 4): one conformant exchange per kind judged
/// clean, then one defect per rule, each found with that rule and no other.
struct ServerConformanceTests {
    typealias Rule = ConformanceDeviation.Rule

    static func request(_ method: HTTPMethod, _ target: String = "/upload", _ fields: HTTPFields = [:]) -> RequestHead {
        RequestHead(method: method, target: target, fields: fields)
    }

    static func response(_ status: Int, _ fields: HTTPFields = [:]) -> ResponseHead {
        ResponseHead(status: status, fields: fields)
    }

    /// A complete interop `version` creation of 1000 bytes: the announcing 104, a progress 104 at 500 (from 5
    /// on), and the final 201.
    static func creation(version: Int = 6) -> ServerExchange {
        let completion: HTTPFields =
            version == 3 ? ["Upload-Incomplete": "?0"] : ["Upload-Complete": "?1"]
        var request = request(
            .post, "/upload", ["Upload-Draft-Interop-Version": "\(version)", "Content-Length": "1000"])
        for field in completion { request.fields.append(field) }
        var interims = [response(104, ["Upload-Draft-Interop-Version": "\(version)", "Location": "/upload/7"])]
        if version >= 5 {
            interims.append(response(104, ["Upload-Draft-Interop-Version": "\(version)", "Upload-Offset": "500"]))
        }
        var final: HTTPFields = ["Location": "/upload/7", "Upload-Offset": "1000"]
        if version >= 4 { final.append(name: "Upload-Complete", value: "?1") }
        return ServerExchange(request: request, interims: interims, response: response(201, final), bodyBytes: 1000)
    }

    /// A HEAD at interop `version` answered 204 at offset 400, incomplete.
    static func offsetRetrieval(version: Int = 8, status: Int = 204, fields: HTTPFields? = nil) -> ServerExchange {
        let version3 = version == 3
        let answer: HTTPFields =
            fields ?? [
                "Upload-Offset": "400", version3 ? "Upload-Incomplete" : "Upload-Complete": version3 ? "?1" : "?0",
                "Upload-Limit": "min-size=0", "Cache-Control": "no-store",
            ]
        return ServerExchange(
            request: request(.head, "/upload/7", ["Upload-Draft-Interop-Version": "\(version)"]), interims: [],
            response: response(status, answer))
    }

    /// An OPTIONS at interop `version` answered `status` with `answer`.
    static func options(version: Int, status: Int = 200, answer: HTTPFields) -> ServerExchange {
        ServerExchange(
            request: request(.options, "/upload", ["Upload-Draft-Interop-Version": "\(version)"]),
            response: response(status, answer))
    }

    /// A PATCH of 600 bytes from 400, interop 6, answered `status` with `fields`.
    static func append(status: Int, fields: HTTPFields, bodyBytes: Int64 = 600) -> ServerExchange {
        ServerExchange(
            request: request(
                .patch, "/upload/7",
                [
                    "Upload-Draft-Interop-Version": "6", "Upload-Offset": "400", "Upload-Complete": "?1",
                    "Content-Type": "application/partial-upload", "Content-Length": "600",
                ]), interims: [], response: response(status, fields), bodyBytes: bodyBytes)
    }

    @Test(arguments: [3, 4, 5, 6, 7, 8])
    func aConformantCreationHasNoDeviation(version: Int) {
        #expect(ServerConformance.check(Self.creation(version: version)) == [])
    }

    @Test(arguments: [3, 5, 6, 7, 8, 9, 10])
    func aConformantOffsetRetrievalHasNoDeviation(version: Int) {
        #expect(ServerConformance.check(Self.offsetRetrieval(version: version)) == [])
    }

    /// What the newest drafts allow and earlier ones did not: at 10 a HEAD answer without `Upload-Complete` and
    /// `Upload-Length` (#3493), at 9 an early `?1` 2xx to a partial creation (#3404), from 7 a 200-something HEAD.
    /// Each is a deviation at the version before (the control).
    @Test func theNewestDraftsAllowWhatTheyAllow() {
        var bare = Self.offsetRetrieval(version: 10, fields: ["Upload-Offset": "400", "Upload-Limit": "min-size=0"])
        bare.statedLength = 1000
        #expect(ServerConformance.check(bare) == [])
        bare.request.fields.set("9", for: "Upload-Draft-Interop-Version")
        #expect(ServerConformance.check(bare).map(\.rule) == [.offsetRetrieval, .offsetRetrieval])

        var early = Self.creation(version: 9)
        early.request.fields.set("?0", for: "Upload-Complete")
        early.response = Self.response(200, ["Upload-Complete": "?1"])
        #expect(ServerConformance.check(early) == [])
        early.request.fields.set("8", for: "Upload-Draft-Interop-Version")
        for index in early.interims.indices {
            early.interims[index].fields.set("8", for: "Upload-Draft-Interop-Version")
        }
        #expect(ServerConformance.check(early).map(\.rule).contains(.completionValue))

        #expect(ServerConformance.check(Self.offsetRetrieval(version: 7, status: 203)) == [])
        #expect(
            ServerConformance.check(Self.offsetRetrieval(version: 6, status: 203)).map(\.rule) == [.offsetRetrieval])
    }

    @Test func aConformantAppendAndAPlainAnswerHaveNoDeviation() {
        #expect(
            ServerConformance.check(
                Self.append(status: 201, fields: ["Upload-Offset": "1000", "Upload-Complete": "?1"])) == [])
        // No 104 and no upload field: the server served the creation as a plain upload, which it may.
        var plain = Self.creation(version: 6)
        plain.interims = []
        plain.response = Self.response(201)
        #expect(ServerConformance.check(plain) == [])
        // OPTIONS: Upload-Limit from interop 6 (-05), nothing asked of older versions or of a 501.
        #expect(ServerConformance.check(Self.options(version: 6, answer: ["Upload-Limit": "min-size=0"])) == [])
        #expect(ServerConformance.check(Self.options(version: 5, answer: [:])) == [])
        #expect(ServerConformance.check(Self.options(version: 8, status: 501, answer: [:])) == [])
        // Upload-Length on a HEAD answer once the client stated it, from interop 7.
        var stated = Self.offsetRetrieval(version: 6)
        stated.statedLength = 1000
        #expect(ServerConformance.check(stated) == [])
        // A version this module does not know is not judged.
        var unknown = Self.creation(version: 6)
        unknown.request.fields.set("11", for: "Upload-Draft-Interop-Version")
        unknown.interims = [Self.response(104)]
        #expect(ServerConformance.check(unknown) == [])
    }

    /// One defect per rule.
    static let defects: [(String, ServerExchange, Rule)] = {
        var cases: [(String, ServerExchange, Rule)] = []
        var exchange = creation(version: 6)
        exchange.response?.fields.append(name: "Upload-Incomplete", value: "?0")
        cases.append(("Upload-Incomplete in an interop 6 final response", exchange, .completionField))

        exchange = creation(version: 6)
        exchange.request.fields.remove("Upload-Draft-Interop-Version")
        cases.append(("a 104 to a request without the interop field", exchange, .unrequestedInterim))

        exchange = creation(version: 6)
        exchange.interims[0].fields.set("5", for: "Upload-Draft-Interop-Version")
        cases.append(("a 104 echoing another version", exchange, .interimVersion))

        exchange = creation(version: 6)
        exchange.response?.fields.set("?0", for: "Upload-Complete")
        cases.append(("a complete creation answered Upload-Complete: ?0", exchange, .completionValue))

        exchange = creation(version: 6)
        exchange.request.fields.set("?0", for: "Upload-Complete")
        exchange.response?.fields.remove("Upload-Complete")
        cases.append(("a partial creation answered without Upload-Complete", exchange, .completionValue))

        exchange = creation(version: 6)
        exchange.response?.fields.remove("Upload-Offset")
        cases.append(("an interop 6 final response without Upload-Offset", exchange, .missingOffset))

        exchange = creation(version: 6)
        exchange.interims[1].fields.remove("Upload-Offset")
        cases.append(("a progress 104 without Upload-Offset", exchange, .missingOffset))

        cases.append(
            ("a 409 without Upload-Offset", append(status: 409, fields: ["Upload-Complete": "?0"]), .missingOffset))

        exchange = creation(version: 6)
        exchange.interims[1].fields.set("five hundred", for: "Upload-Offset")
        cases.append(("a malformed Upload-Offset", exchange, .malformedField))

        exchange = creation(version: 6)
        exchange.interims.append(response(104, ["Upload-Draft-Interop-Version": "6", "Upload-Offset": "300"]))
        exchange.response?.fields.set("1000", for: "Upload-Offset")
        cases.append(("a 104 at 300 after one at 500", exchange, .offsetDecreased))

        exchange = creation(version: 6)
        exchange.bodyBytes = 400
        exchange.response = nil
        cases.append(("a 104 at 500 after 400 bytes delivered", exchange, .offsetBeyondData))

        exchange = creation(version: 6)
        exchange.interims[0].fields.remove("Location")
        cases.append(("an announcing 104 without Location", exchange, .missingLocation))

        exchange = creation(version: 6)
        exchange.request.fields.set("?0", for: "Upload-Complete")
        exchange.response?.fields.set("?0", for: "Upload-Complete")
        exchange.response?.fields.set("/upload/8", for: "Location")
        cases.append(("a partial creation's 201 naming another resource", exchange, .locationChanged))

        exchange = creation(version: 6)
        exchange.request.fields.set("?0", for: "Upload-Complete")
        exchange.response?.fields.set("?0", for: "Upload-Complete")
        exchange.response?.fields.remove("Location")
        cases.append(("a partial creation's 201 without Location", exchange, .missingLocation))

        cases.append(("an interop 3 HEAD answered 200", offsetRetrieval(version: 3, status: 200), .offsetRetrieval))
        exchange = offsetRetrieval(version: 7)
        exchange.statedLength = 1000
        cases.append(
            ("an interop 7 HEAD answer without the Upload-Length the client stated", exchange, .offsetRetrieval))
        cases.append(
            ("an interop 6 OPTIONS answered 200 without Upload-Limit", options(version: 6, answer: [:]), .optionsLimit))
        cases.append(
            (
                "an interop 8 HEAD answer without Upload-Limit",
                offsetRetrieval(fields: ["Upload-Offset": "400", "Upload-Complete": "?0"]), .offsetRetrieval
            ))
        cases.append(
            (
                "a HEAD answer without Upload-Complete",
                offsetRetrieval(fields: ["Upload-Offset": "400", "Upload-Limit": "min-size=0"]), .offsetRetrieval
            ))
        cases.append(
            (
                "a HEAD answer without Upload-Offset",
                offsetRetrieval(fields: ["Upload-Complete": "?0", "Upload-Limit": "min-size=0"]), .missingOffset
            ))

        exchange = creation(version: 6)
        for offset in [600, 700, 800, 900, 1000] {
            exchange.interims.append(
                response(104, ["Upload-Draft-Interop-Version": "6", "Upload-Offset": "\(offset)"]))
        }
        cases.append(("seven informational responses", exchange, .tooManyInformational))

        cases.append(
            (
                "a 400 to a creation at an interop version not served", refusedCreation(version: 9),
                .unservedVersionRefused
            ))

        exchange = offsetRetrieval(
            version: 9,
            fields: [
                "Upload-Offset": "400", "Upload-Complete": "?1", "Upload-Length": "1000", "Upload-Limit": "min-size=0",
            ])
        exchange.statedLength = 1000
        cases.append(("an interop 9 HEAD saying complete at 400 of a stated 1000", exchange, .completeBelowLength))

        exchange = append(status: 409, fields: ["Upload-Offset": "400"])
        exchange.request.fields.set("9", for: "Upload-Draft-Interop-Version")
        cases.append(("an interop 9 409 without Upload-Complete: ?0", exchange, .completionValue))
        return cases
    }()

    /// The versions the defects' server serves (every one they use): only a creation at another is "not served".
    static let served: Set<Int> = [3, 4, 5, 6, 7, 8]

    /// A creation at interop `version`, refused with `status` (and no upload field, as a server that does not know
    /// the version answers).
    static func refusedCreation(version: Int, status: Int = 400) -> ServerExchange {
        var exchange = creation(version: 6)
        exchange.request.fields.set("\(version)", for: "Upload-Draft-Interop-Version")
        exchange.interims = []
        exchange.response = response(status, ["Content-Type": "application/problem+json"])
        return exchange
    }

    @Test(arguments: defects.indices)
    func eachDefectIsFoundWithItsRuleAlone(index: Int) {
        let (name, exchange, rule) = Self.defects[index]
        let found = ServerConformance.check(exchange, served: Self.served)
        #expect(found.map(\.rule) == [rule], "\(name): \(found)")
    }

    /// A refusal of a creation at a version the server does not serve is a deviation only with the server's versions
    /// known, only for a 4xx a plain upload would not meet for reasons of its own, and only at a version it does
    /// not serve.
    @Test func aRefusedCreationIsJudgedAgainstTheVersionsServed() {
        let refused = Self.refusedCreation(version: 5)
        #expect(ServerConformance.check(refused, served: [6, 7, 8]).map(\.rule) == [.unservedVersionRefused])
        #expect(ServerConformance.check(refused, served: nil) == [], "the versions served unknown")
        #expect(ServerConformance.check(refused, served: [5, 6]) == [], "a version served: its 400 is its own")
        #expect(ServerConformance.check(Self.refusedCreation(version: 5, status: 413), served: [6]) == [])
        #expect(ServerConformance.check(Self.refusedCreation(version: 5, status: 401), served: [6]) == [])
        var plain = Self.refusedCreation(version: 5)
        plain.response = Self.response(201)
        #expect(ServerConformance.check(plain, served: [6]) == [], "served as a plain upload")
        let detail = ServerConformance.check(refused, served: [6, 7, 8]).first?.detail ?? ""
        #expect(
            detail.hasPrefix("a 400 to a creation at interop 5, which the server does not serve (it serves 6, 7, 8)"))
    }

    @Test func everyRuleHasADefectThatFindsIt() {
        let covered = Set(Self.defects.map(\.2))
        #expect(Set(Rule.allCases).subtracting(covered).isEmpty, "rules without a defect case")
    }

    @Test func theHistoryFindsAnOffsetLowerThanOneAcknowledgedAndOneBeyondTheBytesDelivered() {
        var history = UploadOffsetHistory()
        history.delivered(path: "/upload/7", through: 600)
        #expect(history.acknowledged(path: "/upload/7", offset: 500, by: "a 104") == [])
        let lower = history.acknowledged(path: "/upload/7", offset: 400, by: "HEAD")
        #expect(lower.map(\.rule) == [.offsetDecreased])
        #expect(lower.first?.detail == "HEAD reports offset 400 after the server acknowledged 500")
        #expect(history.acknowledged(path: "/upload/7", offset: 700, by: "HEAD").map(\.rule) == [.offsetBeyondData])
        #expect(history.acknowledged(path: "/upload/8", offset: 10, by: "HEAD") == [], "another upload")
    }

    @Test func anAcknowledgementNamesTheResourceOfEachKindOfRequest() throws {
        let creation = Self.creation(version: 6)
        let progress = try #require(
            ServerConformance.acknowledgement(
                request: creation.request, response: creation.interims[1], creationLocation: "https://h:1/upload/7?x"))
        #expect(progress.path == "/upload/7" && progress.offset == 500)
        let head = Self.offsetRetrieval()
        #expect(
            ServerConformance.acknowledgement(request: head.request, response: head.response!, creationLocation: nil)?
                .path == "/upload/7")
        #expect(
            ServerConformance.acknowledgement(
                request: creation.request, response: Self.response(409, ["Upload-Offset": "3"]), creationLocation: nil)
                == nil, "a 409 acknowledges nothing")
    }
}
