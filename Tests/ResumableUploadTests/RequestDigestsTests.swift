import HTTPWire
import ResumableUpload
import Testing

/// RFC 9530 fields as the server reads them, and what the state machine does with the digests it is given.
struct RequestDigestsTests {
    static let sha256OfABC: [UInt8] = [
        0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
        0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
    ]

    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(name: name, value: value) }
        return fields
    }

    @Test func aStatedDigestRoundTripsAndUnknownAlgorithmsAreIgnored() throws {
        let value = RequestDigests.field([.sha256: Self.sha256OfABC])
        #expect(value == "sha-256=:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:")
        let read = try RequestDigests(fields: Self.fields([("Content-Digest", "md5=:AAAA:, " + value)]))
        #expect(read.content == [.sha256: Self.sha256OfABC])
        #expect(read.representation.isEmpty)
        let unknownOnly = try RequestDigests(fields: Self.fields([("Repr-Digest", "unixsum=:AAAA:")]))
        #expect(unknownOnly.representation.isEmpty)
    }

    @Test(arguments: [
        ("Content-Digest", "sha-256=:AAAA:"),
        ("Content-Digest", "sha-256=12"),
        ("Repr-Digest", "sha-512=:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:"),
        ("Repr-Digest", "sha-256=:not base64"),
        ("Want-Repr-Digest", "sha-256=11"),
        ("Want-Content-Digest", "sha-256=:AAAA:"),
    ])
    func aMalformedFieldIsA400NamingIt(name: String, value: String) {
        #expect {
            try RequestDigests(fields: Self.fields([(name, value)]))
        } throws: { error in
            let error = error as? UploadProtocolError
            return error?.code == .malformedField && error?.field == name && error?.status == 400
        }
    }

    @Test func theMostPreferredComputableAlgorithmIsChosen() throws {
        let read = try RequestDigests(
            fields: Self.fields([
                ("Want-Repr-Digest", "md5=10, sha-256=3, sha-512=7"),
                ("Want-Content-Digest", "sha-512=0, sha-256=1"),
            ]))
        #expect(read.wantedRepresentation == .sha512)
        #expect(read.wantedContent == .sha256)
        let refused = try RequestDigests(fields: Self.fields([("Want-Repr-Digest", "sha-256=0, md5=4")]))
        #expect(refused.wantedRepresentation == nil)
        #expect(
            try RequestDigests(fields: Self.fields([("Want-Repr-Digest", "sha-512=4, sha-256=4")]))
                .wantedRepresentation == .sha512)
    }

    static func creation(
        _ digests: RequestDigests, complete: Bool = false, configuration: UploadProtocolConfiguration
    ) throws -> UploadResourceStateMachine {
        let request = CreationRequest(version: InteropVersion(rawValue: 10)!, complete: complete, digests: digests)
        return try UploadResourceStateMachine.create(
            id: "r1", location: "/upload/r1", request: request, configuration: configuration, now: .seconds(5)
        ).machine
    }

    /// Content with a `Content-Digest` counts all or nothing: no progress 104 while it streams, cut back when it
    /// does not match; the same content without one keeps its bytes and gets its 104s (the control).
    @Test func contentThatDoesNotMatchItsDigestIsCutBackAndGetsNoProgress() throws {
        let configuration = UploadProtocolConfiguration(progressInterval: 1, progressSpacing: .zero)
        var checked = try Self.creation(
            RequestDigests(content: [.sha256: Self.sha256OfABC]), configuration: configuration)
        #expect(checked.contentAlgorithms == [.sha256])
        #expect(try checked.bodyReceived(byteCount: 3, now: .seconds(5)) == [.write(count: 3)])
        let ended = try checked.bodyEnded(now: .seconds(5), content: [.sha256: Array(repeating: 0, count: 32)])
        #expect(ended.first == .rewind(to: 0))
        #expect(UploadResourceStateMachineTests.rejection(ended) == .contentDigestMismatch)
        #expect(UploadResourceStateMachineTests.sent(ended)?.head.status == 400)
        #expect(checked.offset == 0 && !checked.isReceiving && !checked.isComplete)

        var plain = try Self.creation(RequestDigests(), configuration: configuration)
        #expect(plain.contentAlgorithms.isEmpty)
        let received = try plain.bodyReceived(byteCount: 3, now: .seconds(5))
        #expect(received.contains(.persist(offset: 3)))
        #expect(try plain.bodyEnded(now: .seconds(5)).first == .persist(offset: 3))
        #expect(plain.offset == 3)
    }

    @Test func matchingContentIsKeptAndAnInterruptedCheckedBodyIsNot() throws {
        let configuration = UploadProtocolConfiguration(progressInterval: 0)
        var matching = try Self.creation(
            RequestDigests(content: [.sha256: Self.sha256OfABC]), configuration: configuration)
        _ = try matching.bodyReceived(byteCount: 3, now: .seconds(5))
        let ended = try matching.bodyEnded(now: .seconds(5), content: [.sha256: Self.sha256OfABC])
        #expect(ended.first == .persist(offset: 3))
        #expect(UploadResourceStateMachineTests.rejection(ended) == nil)

        var interrupted = try Self.creation(
            RequestDigests(content: [.sha256: Self.sha256OfABC]), configuration: configuration)
        _ = try interrupted.bodyReceived(byteCount: 2, now: .seconds(5))
        #expect(try interrupted.bodyInterrupted() == [.rewind(to: 0)])
        #expect(interrupted.offset == 0)
    }

    @Test func anUploadThatDoesNotMatchItsReprDigestFailsAndIsDiscarded() throws {
        let configuration = UploadProtocolConfiguration(progressInterval: 0)
        let stated = RequestDigests(representation: [.sha256: Self.sha256OfABC], wantedRepresentation: .sha512)
        var failing = try Self.creation(stated, complete: true, configuration: configuration)
        #expect(failing.representationAlgorithms == [.sha256, .sha512])
        _ = try failing.bodyReceived(byteCount: 3, now: .seconds(5))
        let wrong: Digests = [.sha256: Array(repeating: 1, count: 32), .sha512: Array(repeating: 2, count: 64)]
        let failed = try failing.bodyEnded(now: .seconds(5), representation: wrong)
        #expect(UploadResourceStateMachineTests.rejection(failed) == .representationDigestMismatch)
        #expect(failed.last == .discard)
        #expect(failing.isCancelled && !failing.isComplete)

        var passing = try Self.creation(stated, complete: true, configuration: configuration)
        _ = try passing.bodyReceived(byteCount: 3, now: .seconds(5))
        let right: Digests = [.sha256: Self.sha256OfABC, .sha512: Array(repeating: 2, count: 64)]
        let passed = try passing.bodyEnded(now: .seconds(5), representation: right)
        #expect(passed.contains(.finalize(length: 3)))
        let response = UploadResourceStateMachineTests.sent(passed)
        #expect(response?.head.fields["Repr-Digest"] == RequestDigests.field([.sha512: Array(repeating: 2, count: 64)]))
    }
}
