import HTTPWire
import ResumableUpload
import Testing
import UploadServer

/// The server's progress 104s under its progress policy, end to end: with the defaults a request never sees more
/// than five informational responses, the most Go's net/http accepts before Go 1.24.
struct ProgressPolicyTests {
    /// The upload of these tests: 16 MiB, sixteen of the default `progressInterval`.
    static let body = ServerFixture.content(16 << 20, seed: 16)
    /// The most informational responses per request Go's net/http accepts before Go 1.24.
    static let goLimit = 5

    static func version(_ number: Int) throws -> InteropVersion {
        try #require(InteropVersion(rawValue: number))
    }

    /// The `Upload-Offset`s of the progress 104s among `interims` (the 104 with `Location` has none).
    static func progressOffsets(_ interims: [ResponseHead]) -> [Int64] {
        interims.compactMap { head in
            head.status == 104 ? head.fields["Upload-Offset"].flatMap { Int64($0) } : nil
        }
    }

    /// With the defaults a 16 MiB creation gets the 104 with `Location` and at most three progress 104s, however
    /// fast it goes (over loopback usually none: the spacing counts from the request's start).
    @Test(arguments: [6, 8])
    func theDefaultsKeepA16MiBCreationWithinFiveInformationalResponses(version number: Int) throws {
        let version = try Self.version(number)
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        let exchange = try client.request(.post, "/upload", ServerFixture.creationFields(version), body: Self.body)
        #expect(exchange.status == (number <= 6 ? 201 : 200))
        #expect(exchange.interims.count <= Self.goLimit)
        #expect(exchange.interims.first?.fields["Location"] != nil)
        #expect(Self.progressOffsets(exchange.interims).count <= 3)
    }

    /// The limit alone, without the spacing: exactly three progress 104s, at least a MiB apart; with
    /// `Expect: 100-continue` the `100 Continue` makes five informational responses, still within Go's limit.
    @Test(arguments: [false, true])
    func theLimitAloneStopsAtThreeProgress104s(expectContinue: Bool) throws {
        let version = try Self.version(6)
        let fixture = try ServerFixture(UploadProtocolConfiguration(progressSpacing: .zero))
        let client = try fixture.client()
        defer { client.close() }
        let expect = expectContinue ? [("Expect", "100-continue")] : []
        try client.send(
            .post, "/upload",
            ServerFixture.creationFields(version) + expect + [("Content-Length", "\(Self.body.count)")])
        var early = [try client.readInterim()]
        if expectContinue { early.append(try client.readInterim()) }
        try client.send(bytes: Self.body)
        let exchange = try client.readResponse()
        #expect(exchange.status == 201)
        let interims = early + exchange.interims
        #expect(interims.map(\.status) == [104] + (expectContinue ? [100] : []) + [104, 104, 104])
        #expect(interims.count <= Self.goLimit)
        let offsets = Self.progressOffsets(interims)
        #expect(zip([0] + offsets, offsets).allSatisfy { $1 - $0 >= 1 << 20 }, "\(offsets)")
    }

    /// The spacing alone, on the server's real clock: with an hour between progress 104s (counted from the
    /// request's start) and no limit, a 16 MiB creation every 64 KiB gets none.
    @Test func theSpacingHoldsProgress104sOnTheServersClock() throws {
        let version = try Self.version(8)
        let rules = UploadProtocolConfiguration(
            progressInterval: 64 << 10, progressLimit: nil, progressSpacing: .seconds(3600))
        let fixture = try ServerFixture(rules)
        let client = try fixture.client()
        defer { client.close() }
        let exchange = try client.request(.post, "/upload", ServerFixture.creationFields(version), body: Self.body)
        #expect(exchange.status == 200)
        #expect(exchange.interims.count == 1)
        #expect(Self.progressOffsets(exchange.interims).isEmpty)
    }
}
