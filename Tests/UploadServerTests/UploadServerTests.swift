import Foundation
import HTTPWire
import ResumableUpload
import TestSupport
import Testing
import UploadServer

struct UploadServerTests {
    @Test(arguments: InteropVersion.all, ServerFixture.Transport.allCases)
    func creationWithFullBodyAnnouncesThenCompletes(version: InteropVersion, transport: ServerFixture.Transport) throws
    {
        let fixture = try ServerFixture(
            UploadProtocolConfiguration(progressInterval: 64 * 1024, progressLimit: nil, progressSpacing: .zero),
            transport: transport)
        let data = ServerFixture.content(200_000, seed: UInt64(version.rawValue))
        let client = try fixture.client()
        defer { client.close() }

        let exchange = try client.request(.post, "/upload", ServerFixture.creationFields(version), body: data)

        let interim = try #require(exchange.interims.first)
        #expect(interim.status == 104)
        #expect(interim.fields[InteropVersion.fieldName] == "\(version.rawValue)")
        let location = try #require(interim.fields["Location"])
        #expect(location.hasPrefix(fixture.server.url + "/upload/"))
        let id = ServerFixture.id(of: location)
        let progress = exchange.interims.dropFirst()
        #expect(progress.allSatisfy { $0.status == 104 && $0.fields["Location"] == nil })
        let offsets = progress.compactMap { $0.fields["Upload-Offset"].flatMap { Int($0) } }
        #expect(offsets.count == progress.count)
        #expect(offsets == offsets.sorted() && offsets.allSatisfy { (65_536...200_000).contains($0) })
        #expect(version.sendsProgress ? (1...3).contains(offsets.count) : offsets.isEmpty)
        #expect(exchange.status == (version.rawValue <= 6 ? 201 : 200))
        #expect(exchange["Upload-Offset"] == (version.rawValue <= 6 ? "200000" : nil))
        #expect(exchange["x-server-resource-id"] == id)
        #expect(exchange[InteropVersion.fieldName] == "\(version.rawValue)")
        let record = try #require(fixture.record(id))
        #expect(record.complete)
        #expect(record.durableOffset == 200_000)
        #expect(record.sha256 == ServerFixture.sha256(data))
    }

    @Test(arguments: InteropVersion.all, ServerFixture.Transport.allCases)
    func interruptedCreationResumesWithPatch(version: InteropVersion, transport: ServerFixture.Transport) throws {
        let fixture = try ServerFixture(transport: transport)
        let data = ServerFixture.content(100_000, seed: 7)
        let first = try fixture.client()
        try first.send(.post, "/upload", ServerFixture.creationFields(version) + [("Content-Length", "100000")])
        let location = try #require(try first.readInterim().fields["Location"])
        try first.send(bytes: Array(data[..<40_000]))
        first.close()
        #expect(fixture.server.waitUntilIdle(timeout: .seconds(10)))

        let client = try fixture.client()
        defer { client.close() }
        let path = "/upload/" + ServerFixture.id(of: location)
        let head = try client.request(.head, path, ServerFixture.versionField(version))
        #expect(version.headSuccessStatuses.contains(head.status))
        #expect(head["Upload-Offset"] == "40000")
        #expect(head[version.completionFieldName] == version.completionValue(complete: false))

        let patch = try client.request(
            .patch, path, ServerFixture.appendFields(version, offset: 40_000), body: Array(data[40_000...]))
        #expect(patch.status == (version.rawValue <= 6 ? 201 : 200))
        #expect(patch.interims.allSatisfy { $0.fields["Location"] == nil })
        let record = try #require(fixture.record(ServerFixture.id(of: location)))
        #expect(record.complete)
        #expect(record.sha256 == ServerFixture.sha256(data))
    }

    /// A server opened on the store an earlier one left resumes its uploads: HEAD reports the durable offset, a
    /// PATCH from there completes, completed and plain uploads stay as they were.
    @Test(arguments: InteropVersion.all)
    func uploadsSurviveARestartOnTheSameStore(version: InteropVersion) throws {
        let store = try TLSFixtures.TemporaryDirectory()
        let rules = UploadProtocolConfiguration(limits: UploadLimits(maxAppendSize: 4096))
        let data = ServerFixture.content(12_000, seed: 2)
        var path = ""
        var completePath = ""
        do {
            let fixture = try ServerFixture(rules) { $0.storeDirectory = store.path }
            let client = try fixture.client()
            defer { client.close() }
            let created = try client.request(
                .post, "/upload", ServerFixture.creationFields(version, complete: false), body: Array(data[..<4096]))
            path = "/upload/" + ServerFixture.id(of: created.interims.first?.fields["Location"])
            var append = ServerFixture.appendFields(version, offset: 4096)
            append[2] = (version.completionFieldName, version.completionValue(complete: false))
            let patched = try client.request(.patch, path, append, body: Array(data[4096..<8000]))
            #expect(patched.status == (version.rawValue <= 6 ? 201 : 204))
            let complete = try client.request(.post, "/upload", ServerFixture.creationFields(version), body: [7])
            completePath = "/upload/" + (complete["x-server-resource-id"] ?? "")
        }

        let fixture = try ServerFixture(rules) { $0.storeDirectory = store.path }
        let client = try fixture.client()
        defer { client.close() }
        let head = try client.request(.head, path, ServerFixture.versionField(version))
        #expect(head["Upload-Offset"] == "8000")
        #expect(head[version.completionFieldName] == version.completionValue(complete: false))
        let done = try client.request(.head, completePath, ServerFixture.versionField(version))
        #expect(done[version.completionFieldName] == version.completionValue(complete: true))
        #expect(done["Upload-Offset"] == "1")

        let patch = try client.request(
            .patch, path, ServerFixture.appendFields(version, offset: 8000), body: Array(data[8000...]))
        #expect(patch.status == (version.rawValue <= 6 ? 201 : 200))
        #expect(fixture.record(ServerFixture.id(of: path))?.sha256 == ServerFixture.sha256(data))
    }

    @Test(arguments: InteropVersion.all, ServerFixture.Transport.allCases)
    func appendAtTheWrongOffsetGets409WithTheRightOffset(version: InteropVersion, transport: ServerFixture.Transport)
        throws
    {
        let fixture = try ServerFixture(transport: transport)
        let client = try fixture.client()
        let created = try client.request(
            .post, "/upload", ServerFixture.creationFields(version, complete: false),
            body: ServerFixture.content(1000))
        #expect(created.status == 201)
        let path = "/upload/" + ServerFixture.id(of: created.interims.first?.fields["Location"])

        let patch = try client.request(
            .patch, path, ServerFixture.appendFields(version, offset: 500), body: ServerFixture.content(10))
        #expect(patch.status == 409)
        #expect(patch["Upload-Offset"] == "1000")
        #expect(client.serverClosed())
        client.close()

        let again = try fixture.client()
        defer { again.close() }
        let head = try again.request(.head, path, ServerFixture.versionField(version))
        #expect(head["Upload-Offset"] == "1000")
    }

    @Test(arguments: InteropVersion.all, ServerFixture.Transport.allCases)
    func deleteCancelsAndHeadThenGets404(version: InteropVersion, transport: ServerFixture.Transport) throws {
        let fixture = try ServerFixture(transport: transport)
        let client = try fixture.client()
        defer { client.close() }
        let created = try client.request(
            .post, "/upload", ServerFixture.creationFields(version, complete: false), body: ServerFixture.content(10))
        let id = ServerFixture.id(of: created.interims.first?.fields["Location"])

        let delete = try client.request(.delete, "/upload/" + id, ServerFixture.versionField(version))
        #expect(delete.status == 204)
        let head = try client.request(.head, "/upload/" + id, ServerFixture.versionField(version))
        #expect(head.status == 404)
        #expect(fixture.record(id)?.cancelled == true)
        let unknown = try client.request(
            .head, "/upload/" + String(repeating: "a", count: 32), ServerFixture.versionField(version))
        #expect(unknown.status == 404)
    }

    @Test(arguments: [[], [(InteropVersion.fieldName, "11")], [(InteropVersion.fieldName, "abc")]])
    func unknownVersionIsAPlainUpload(fields: [(String, String)]) throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        let data = ServerFixture.content(50_000, seed: 3)
        let exchange = try client.request(.post, "/upload", fields + [("Upload-Complete", "?1")], body: data)
        #expect(exchange.interims.isEmpty)
        #expect(exchange.status == 201)
        let id = try #require(exchange["x-server-resource-id"])
        let record = try #require(fixture.record(id))
        #expect(record.interopVersion == nil)
        #expect(record.sha256 == ServerFixture.sha256(data))
        let other = try client.request(.get, "/elsewhere", fields)
        #expect(other.status == 404)
    }

    @Test(arguments: InteropVersion.all, ServerFixture.Transport.allCases)
    func optionsAnnouncesTheLimits(version: InteropVersion, transport: ServerFixture.Transport) throws {
        let limits = UploadLimits(maxSize: 5_000_000)
        let fixture = try ServerFixture(UploadProtocolConfiguration(limits: limits), transport: transport)
        let client = try fixture.client()
        defer { client.close() }
        let options = try client.request(.options, "/upload", ServerFixture.versionField(version))
        #expect(options.status == 200)
        #expect(options[UploadLimits.fieldName] == "max-size=5000000, min-size=0")
        #expect(options[InteropVersion.fieldName] == "\(version.rawValue)")

        let off = try ServerFixture(UploadProtocolConfiguration(resumable: false), transport: transport)
        let offClient = try off.client()
        defer { offClient.close() }
        #expect(try offClient.request(.options, "/upload", ServerFixture.versionField(version)).status == 501)
        let plain = try offClient.request(.post, "/upload", ServerFixture.creationFields(version), body: [1, 2, 3])
        #expect(plain.interims.isEmpty)
        #expect(plain.status == 201)
    }

    @Test func anUploadPastMaxSizeGets413() throws {
        let version = InteropVersion(rawValue: 8)!
        let fixture = try ServerFixture(UploadProtocolConfiguration(limits: UploadLimits(maxSize: 1000)))
        let client = try fixture.client()
        defer { client.close() }
        let exchange = try client.request(
            .post, "/upload", ServerFixture.creationFields(version), body: ServerFixture.content(1001))
        #expect(exchange.status == 413)
        #expect(exchange.interims.isEmpty)
        #expect(fixture.server.uploads().isEmpty)
    }

    /// A chunked body is checked against `max-append-size` on the bytes actually read: the bytes before the limit
    /// stay, the request gets 413 and its connection closes.
    @Test func aChunkedBodyPastMaxAppendSizeKeepsTheBytesBeforeTheLimit() throws {
        let version = InteropVersion(rawValue: 8)!
        let fixture = try ServerFixture(UploadProtocolConfiguration(limits: UploadLimits(maxAppendSize: 1000)))
        let client = try fixture.client()
        defer { client.close() }
        try client.send(.post, "/upload", ServerFixture.creationFields(version) + [("Transfer-Encoding", "chunked")])
        try client.send(bytes: HTTP1Serializer.chunk(ServerFixture.content(5000)) + HTTP1Serializer.lastChunk())
        let exchange = try client.readResponse()
        #expect(exchange.interims.first?.status == 104)
        #expect(exchange.status == 413)
        #expect(exchange[UploadLimits.fieldName] == "min-size=0, max-append-size=1000")
        let record = try #require(fixture.record(ServerFixture.id(of: exchange.interims.first?.fields["Location"])))
        #expect(record.durableOffset == 1000)
        #expect(!record.complete)
        #expect(client.serverClosed())
    }

    @Test func anIdempotentRetryReplaysTheFinalResponse() throws {
        let version = InteropVersion(rawValue: 8)!
        let fixture = try ServerFixture()
        let fields = ServerFixture.creationFields(version) + [("Idempotency-Key", "\"retry-1\"")]
        let data = ServerFixture.content(3000)
        let client = try fixture.client()
        defer { client.close() }
        let first = try client.request(.post, "/upload", fields, body: data)
        #expect(first.status == 200)

        let retry = try fixture.client()
        defer { retry.close() }
        let second = try retry.request(.post, "/upload", fields, body: data)
        #expect(second.interims.isEmpty)
        #expect(second.status == 200)
        #expect(second["x-server-resource-id"] == first["x-server-resource-id"])
        #expect(fixture.server.uploads().count == 1)

        let partialFields = ServerFixture.creationFields(version, complete: false) + [("Idempotency-Key", "\"p\"")]
        let partial = try fixture.client().request(.post, "/upload", partialFields, body: [1])
        let conflict = try fixture.client().request(.post, "/upload", partialFields, body: [1])
        #expect(conflict.status == 409)
        #expect(conflict.interims.isEmpty)
        #expect(conflict["Location"] == partial.interims.first?.fields["Location"])
        #expect(fixture.server.uploads().count == 2)
    }

    @Test func theAdminListingShowsUploadsAndDuplicates() throws {
        let version = InteropVersion(rawValue: 6)!
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        let data = ServerFixture.content(2048)
        let ids = try (0..<2).map { _ in
            try client.request(.post, "/upload", ServerFixture.creationFields(version), body: data)[
                "x-server-resource-id"]
        }
        let open = try client.request(
            .post, "/upload", ServerFixture.creationFields(version, complete: false), body: [9])

        let listing = try client.request(.get, "/_squall/uploads")
        #expect(listing.status == 200)
        #expect(listing["Content-Type"] == "application/json")
        #expect(String(decoding: listing.body, as: UTF8.self).contains("\"principal\":null"))
        let entries = try JSONDecoder().decode([UploadAdminListing].self, from: Data(listing.body))
        #expect(entries.count == 3)
        let first = try #require(entries.first { $0.id == ids[0] })
        #expect(first.duplicates == [ids[1]].compactMap { $0 })
        #expect(first.sha256 == ServerFixture.sha256(data))
        #expect(first.offset == 2048)
        #expect(first.principal == nil)
        let partial = try #require(
            entries.first { $0.id == ServerFixture.id(of: open.interims.first?.fields["Location"]) })
        #expect(!partial.complete)
        #expect(partial.duplicates.isEmpty)
        #expect(partial.offset == 1)
    }
}
