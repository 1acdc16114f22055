import HTTPWire
import ResumableUpload
import TLSKit
import Testing

/// RFC 9530 digests at the reference server, over the wire: `Content-Digest` checked per request (content that does
/// not match is not appended), `Repr-Digest` checked at completion (an upload that does not match fails), and
/// `Want-Repr-Digest` / `Want-Content-Digest` answered. Each rejection has its passing twin as control.
@Suite struct DigestTests {
    static let version = InteropVersion(rawValue: 10)!

    static func field(_ bytes: [UInt8], _ algorithm: DigestAlgorithm = .sha256) -> String {
        let hash: MessageDigest.Algorithm = algorithm == .sha256 ? .sha256 : .sha512
        return RequestDigests.field([algorithm: MessageDigest.digest(of: bytes, hash)])
    }

    static func create(
        _ client: RawHTTPClient, _ body: [UInt8], complete: Bool, _ extra: [(String, String)] = []
    ) throws -> Exchange {
        try client.request(
            .post, "/upload", ServerFixture.creationFields(version, complete: complete) + extra, body: body)
    }

    static func offset(_ client: RawHTTPClient, _ location: String) throws -> Exchange {
        try client.request(.head, location, ServerFixture.versionField(version))
    }

    @Test(arguments: DigestAlgorithm.allCases)
    func aCreationWhoseContentDoesNotMatchItsContentDigestAppendsNothing(algorithm: DigestAlgorithm) throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        let body = ServerFixture.content(5000)
        let good = try Self.create(client, body, complete: true, [("Content-Digest", Self.field(body, algorithm))])
        #expect(good.status / 100 == 2)
        #expect(fixture.record(ServerFixture.id(of: good["Location"]))?.sha256 == ServerFixture.sha256(body))

        let bad = try Self.create(
            client, body, complete: true, [("Content-Digest", Self.field(body + [0], algorithm))])
        #expect(bad.status == 400)
        #expect(String(decoding: bad.body, as: UTF8.self).contains("Content-Digest"))
        let location = try #require(bad.interims.first?.fields["Location"])
        let head = try Self.offset(client, location)
        #expect(head["Upload-Offset"] == "0")
        #expect(head["Upload-Complete"] == "?0")
    }

    @Test func anAppendThatDoesNotMatchIsNotAppendedAndTheRightOneIsThen() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        let first = ServerFixture.content(3000, seed: 1)
        let rest = ServerFixture.content(2000, seed: 2)
        let created = try Self.create(client, first, complete: false)
        let location = try #require(created["Location"])
        let append = ServerFixture.appendFields(Self.version, offset: 3000)
        let wrong = try client.request(
            .patch, location, append + [("Content-Digest", Self.field(first))], body: rest)
        #expect(wrong.status == 400)
        #expect(try Self.offset(client, location)["Upload-Offset"] == "3000")
        let right = try client.request(
            .patch, location, append + [("Content-Digest", Self.field(rest))], body: rest)
        #expect(right.status / 100 == 2)
        #expect(fixture.record(ServerFixture.id(of: location))?.sha256 == ServerFixture.sha256(first + rest))
    }

    /// A checked body that never ends could not be checked: none of it stays, and no progress 104 promised any of it.
    @Test func anInterruptedCheckedBodyLeavesTheOffsetWhereItStarted() throws {
        let fixture = try ServerFixture(UploadProtocolConfiguration(progressInterval: 1000, progressSpacing: .zero))
        let body = ServerFixture.content(10_000)
        let cut = try fixture.client()
        try cut.send(
            .post, "/upload",
            ServerFixture.creationFields(Self.version, complete: true) + [
                ("Content-Length", "\(body.count)"), ("Content-Digest", Self.field(body)),
            ])
        let announced = try cut.readInterim()
        let location = try #require(announced.fields["Location"])
        try cut.send(bytes: Array(body.prefix(6000)))
        cut.close()
        let client = try fixture.client()
        defer { client.close() }
        let head = try Self.offset(client, location)
        #expect(head["Upload-Offset"] == "0")

        // The control: the same cut without a digest keeps its bytes.
        let plain = try fixture.client()
        try plain.send(
            .post, "/upload",
            ServerFixture.creationFields(Self.version, complete: true) + [("Content-Length", "\(body.count)")])
        let plainLocation = try #require(try plain.readInterim().fields["Location"])
        try plain.send(bytes: Array(body.prefix(6000)))
        _ = try plain.readInterim()  // a progress 104: the bytes are stored
        plain.close()
        #expect(try Self.offset(client, plainLocation)["Upload-Offset"] == "6000")
    }

    @Test func anUploadThatDoesNotMatchItsReprDigestFailsAndAMatchingOneAnswersWithItsDigest() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        let body = ServerFixture.content(4000)
        let stated = [("Repr-Digest", Self.field(body + [1]))]
        let created = try Self.create(client, Array(body.prefix(1000)), complete: false, stated)
        let location = try #require(created["Location"])
        let failed = try client.request(
            .patch, location, ServerFixture.appendFields(Self.version, offset: 1000), body: Array(body.dropFirst(1000)))
        #expect(failed.status == 400)
        #expect(String(decoding: failed.body, as: UTF8.self).contains("Repr-Digest"))
        #expect(try Self.offset(client, location).status == 404)

        let passing = try Self.create(
            client, body, complete: true,
            [("Repr-Digest", Self.field(body)), ("Want-Repr-Digest", "sha-512=9, sha-256=1")])
        #expect(passing.status / 100 == 2)
        #expect(passing["Repr-Digest"] == Self.field(body, .sha512))
    }

    @Test func aResponseCarriesTheContentDigestItWasAskedFor() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        let created = try Self.create(client, [1, 2, 3], complete: false)
        let location = try #require(created["Location"])
        let mismatch = try client.request(
            .patch, location,
            ServerFixture.appendFields(Self.version, offset: 0) + [("Want-Content-Digest", "sha-256=5")], body: [4])
        #expect(mismatch.status == 409)
        #expect(!mismatch.body.isEmpty)
        #expect(mismatch["Content-Digest"] == Self.field(mismatch.body))
        let other = try fixture.client()
        defer { other.close() }
        let unasked = try other.request(
            .patch, location, ServerFixture.appendFields(Self.version, offset: 0), body: [4])
        #expect(unasked["Content-Digest"] == nil)
    }

    @Test func aMalformedDigestIsA400NamingTheField() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        let answer = try Self.create(client, [1, 2, 3], complete: true, [("Content-Digest", "sha-256=:AAAA:")])
        #expect(answer.status == 400)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("Content-Digest"))
    }
}
