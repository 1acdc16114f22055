import ResumableUpload
import TestSupport
import Testing
import UploadServer

/// Completed uploads stay answerable for the retention, then go; incomplete ones go once past `max-age`.
struct RetentionTests {
    @Test func completedUploadsStayForTheRetentionThenGo() throws {
        let version = InteropVersion(rawValue: 8)!
        let kept = try ServerFixture()
        let short = try ServerFixture { $0.completedRetention = 0 }
        for fixture in [kept, short] {
            let client = try fixture.client()
            defer { client.close() }
            let done = try client.request(.post, "/upload", ServerFixture.creationFields(version), body: [1, 2, 3])
            let open = try client.request(
                .post, "/upload", ServerFixture.creationFields(version, complete: false), body: [4])
            let openID = ServerFixture.id(of: open.interims.first?.fields["Location"])
            let doneID = try #require(done["x-server-resource-id"])

            let removed = try fixture.server.removeExpiredUploads()

            let head = try client.request(.head, "/upload/" + doneID, ServerFixture.versionField(version))
            if fixture === short {
                #expect(removed == [doneID])
                #expect(head.status == 404)
                #expect(fixture.record(doneID) == nil)
            } else {
                #expect(removed.isEmpty)
                #expect(head[version.completionFieldName] == "?1")
            }
            #expect(fixture.record(openID)?.durableOffset == 1)
        }
    }

    @Test func incompleteUploadsGoOncePastMaxAge() throws {
        let version = InteropVersion(rawValue: 8)!
        let rules = UploadProtocolConfiguration(limits: UploadLimits(maxAge: 0))
        let fixture = try ServerFixture(rules)
        let client = try fixture.client()
        defer { client.close() }
        let open = try client.request(
            .post, "/upload", ServerFixture.creationFields(version, complete: false), body: [4])
        let id = ServerFixture.id(of: open.interims.first?.fields["Location"])
        #expect(fixture.record(id) != nil)

        #expect(try fixture.server.removeExpiredUploads() == [id])
        #expect(fixture.record(id) == nil)
        let head = try client.request(.head, "/upload/" + id, ServerFixture.versionField(version))
        #expect(head.status == 404)
    }

    /// A retention shorter than a minute is swept as often as it lasts (a soak's `--retention 1s` keeps a second of
    /// uploads on disk, not a minute of them); a minute is the most between sweeps, a second the least.
    @Test func aShortRetentionIsSweptAsOftenAsItLasts() {
        #expect(UploadServer.sweepInterval(retention: 1) == 1)
        #expect(UploadServer.sweepInterval(retention: 20) == 20)
        #expect(UploadServer.sweepInterval(retention: 86_400) == 60)
        #expect(UploadServer.sweepInterval(retention: 0) == 1)
    }
}
