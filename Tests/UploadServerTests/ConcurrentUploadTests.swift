import Dispatch
import ResumableUpload
import SquallNet
import Synchronization
import TestSupport
import Testing
import UploadServer
import UploadStore

/// Fifty uploads at once against one in-process server, each on its own thread and connection: interop 3 … 8 in
/// turn, distinct content, every third creation cut mid-body and resumed with a PATCH from the HEAD offset. All
/// fifty creations are open (104 received) before any body byte is sent, so the bodies really interleave.
struct ConcurrentUploadTests {
    static let count = 50
    /// How long the whole run may take before the test gives up on it (it takes well under a second).
    static let patience: Duration = .seconds(20)

    /// One upload's plan: its interop version, its content and, for an interrupted one, where the body stops.
    struct Plan: Sendable {
        let index: Int
        let version: InteropVersion
        let content: [UInt8]
        /// Bytes of the creation body sent before the connection closes; nil when the whole body is sent.
        let cut: Int?

        init(_ index: Int) {
            self.index = index
            // Shifted every six uploads so the interrupted third (index % 3 == 0) also covers every version.
            version = InteropVersion.all[(index + index / 6) % InteropVersion.all.count]
            content = BytePattern(seed: UInt64(1000 + index)).bytes(30_000 + 997 * index)
            cut = index % 3 == 0 ? content.count / 2 - index : nil
        }
    }

    /// What one upload saw: the id from its 104, the final status, and for a resumed one the HEAD's answer.
    struct Outcome: Sendable {
        var id = ""
        var finalStatus = 0
        var resourceId: String?
        var headStatus: Int?
        var headOffset: Int64?
        var headCompletion: String?
    }

    @Test func fiftyConcurrentUploadsAllCompleteWithTheirOwnContent() throws {
        let fixture = try ServerFixture(
            UploadProtocolConfiguration(progressInterval: 16 * 1024, progressLimit: nil, progressSpacing: .zero))
        let plans = (0..<Self.count).map(Plan.init)
        let outcomes = try run(plans, against: fixture.server)

        let ids = outcomes.map(\.id)
        #expect(Set(ids).count == Self.count, "ids are not distinct")
        #expect(ids.allSatisfy { $0.count >= 32 })
        let records = fixture.server.uploads()
        #expect(records.count == Self.count)
        for (plan, outcome) in zip(plans, outcomes) {
            check(outcome, of: plan, in: records)
        }
        #expect(plans.filter { $0.cut != nil }.count == 17)
        #expect(Set(plans.filter { $0.cut != nil }.map(\.version.rawValue)) == Set(InteropVersion.implemented))
        #expect(Set(plans.filter { $0.cut == nil }.map(\.version.rawValue)) == Set(InteropVersion.implemented))

        let after = try fixture.client()
        defer { after.close() }
        let late = try after.request(
            .post, "/upload", ServerFixture.creationFields(InteropVersion(rawValue: 8)!), body: [1, 2, 3])
        #expect(late.status == 200)
        #expect(fixture.server.uploads().count == Self.count + 1)
    }

    /// The final status, the HEAD of a resumed upload, and the stored record: complete, whole, right digest.
    private func check(_ outcome: Outcome, of plan: Plan, in records: [UploadRecord]) {
        let version = plan.version
        #expect(outcome.finalStatus == (version.rawValue <= 6 ? 201 : 200), "upload \(plan.index), \(version)")
        if let cut = plan.cut {
            #expect(outcome.headStatus.map { version.headSuccessStatuses.contains($0) } == true)
            #expect(outcome.headOffset.map { (0...Int64(cut)).contains($0) } == true, "upload \(plan.index)")
            #expect(outcome.headCompletion == version.completionValue(complete: false))
        } else if version.finalResponseFlagsCompletion {
            #expect(outcome.resourceId == outcome.id)
        }
        let record = records.first { $0.id == outcome.id }
        #expect(record?.complete == true, "upload \(plan.index) (\(version)) not complete")
        #expect(record?.durableOffset == Int64(plan.content.count))
        #expect(record?.interopVersion == version.rawValue)
        #expect(record?.sha256 == ServerFixture.sha256(plan.content), "upload \(plan.index) has the wrong content")
    }

    /// Runs every plan on its own thread: all open their creation and read the 104, then all send their bodies
    /// at once. Throws when a thread failed or did not finish in time.
    private func run(_ plans: [Plan], against server: UploadServer) throws -> [Outcome] {
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let results = Mutex<[Int: Result<Outcome, any Error>]>([:])
        let threads = plans.map { plan in
            ConnectionThread(name: "upload-\(plan.index)", stackSize: 1 << 20) {
                var released = false
                let result = Result {
                    try Self.upload(plan, to: server) {
                        released = true
                        ready.signal()
                        _ = go.wait(timeout: .now() + .seconds(10))
                    }
                }
                if !released { ready.signal() }
                results.withLock { $0[plan.index] = result }
            }
        }
        let deadline = ContinuousClock.now + Self.patience
        for _ in plans { _ = ready.wait(timeout: .now() + .seconds(10)) }
        for _ in plans { go.signal() }
        for thread in threads where !thread.join(timeout: max(deadline - .now, .zero)) {
            throw TestFailure("an upload thread did not finish within \(Self.patience)")
        }
        return try plans.map { plan in try #require(results.withLock { $0[plan.index] }).get() }
    }

    /// One upload: creation (complete, whole length declared), then the body; an interrupted one closes after
    /// `cut` bytes and resumes on a new connection with HEAD and PATCH. `started` runs once the 104 arrived.
    private static func upload(_ plan: Plan, to server: UploadServer, started: () -> Void) throws -> Outcome {
        let version = plan.version
        var outcome = Outcome()
        let client = try RawHTTPClient(server)
        defer { client.close() }
        try client.send(
            .post, "/upload", ServerFixture.creationFields(version) + [("Content-Length", "\(plan.content.count)")])
        let announced = try client.readInterim()
        guard announced.status == 104, let location = announced.fields["Location"] else {
            throw TestFailure("upload \(plan.index): no 104 with Location but \(announced.status)")
        }
        outcome.id = ServerFixture.id(of: location)
        started()
        guard let cut = plan.cut else {
            try client.send(bytes: plan.content)
            let final = try client.readResponse()
            outcome.finalStatus = final.status
            outcome.resourceId = final["x-server-resource-id"]
            return outcome
        }
        try client.send(bytes: Array(plan.content[..<cut]))
        client.close()
        return try resume(plan, path: "/upload/" + outcome.id, on: server, outcome)
    }

    /// HEAD for the offset, then PATCH the rest from there, completing the upload.
    private static func resume(_ plan: Plan, path: String, on server: UploadServer, _ outcome: Outcome) throws
        -> Outcome
    {
        var outcome = outcome
        let client = try RawHTTPClient(server)
        defer { client.close() }
        let head = try client.request(.head, path, ServerFixture.versionField(plan.version))
        outcome.headStatus = head.status
        outcome.headCompletion = head[plan.version.completionFieldName]
        guard let offset = head["Upload-Offset"].flatMap({ Int64($0) }), (0...plan.content.count).contains(Int(offset))
        else {
            throw TestFailure(
                "upload \(plan.index): HEAD gave \(head.status), offset \(head["Upload-Offset"] ?? "none")")
        }
        outcome.headOffset = offset
        let patch = try client.request(
            .patch, path, ServerFixture.appendFields(plan.version, offset: offset),
            body: Array(plan.content[Int(offset)...]))
        outcome.finalStatus = patch.status
        return outcome
    }
}
