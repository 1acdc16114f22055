import Foundation
import Testing
import UploadJobs

struct JobLedgerTests {
    /// A job that is resumed, fails, is retried with a new destination, succeeds and is acknowledged.
    static func story() throws -> (JobStore, JobID) {
        var store = JobFixtures.store()
        let id = try JobFixtures.create(&store, asset: "IMG_0001", at: 100)
        try JobFixtures.step(&store, id, at: 110) { try $0.start($1) }
        try store.record(.bytesSent(ByteRange(offset: 0, length: 4_096)), job: id, at: 120)
        try store.record(.resumed(offset: 4_000), job: id, at: 130)
        try store.record(.bytesSent(ByteRange(offset: 4_000, length: 1_000)), job: id, at: 140)
        try JobFixtures.step(&store, id, at: 150) { try $0.fail($1, error: .badServerResponse, status: 503) }
        try JobFixtures.step(&store, id, at: 160) { try $0.retry($1, destination: JobFixtures.destination) }
        try JobFixtures.step(&store, id, at: 170) { try $0.start($1) }
        try store.record(.bytesSent(ByteRange(offset: 0, length: 5_000)), job: id, at: 180)
        try JobFixtures.step(&store, id, at: 190) {
            try $0.succeed($1, status: 201, headers: [HeaderField("X-Server-Resource-Id", "srv-77")])
        }
        try JobFixtures.step(&store, id, at: 200) { try $0.acknowledge($1) }
        return (store, id)
    }

    @Test func historyKeepsEveryFactAfterAcknowledgement() throws {
        let (store, id) = try Self.story()
        #expect(store.job(id) == nil)
        let history = try #require(store.ledger[id])
        #expect(history.assetID == "IMG_0001")
        #expect(history.type == .upload)
        #expect(
            history.stateChanges.map(\.state) == [.registered, .pending, .failed, .registered, .pending, .succeeded])
        #expect(history.stateChanges.map(\.time) == [100, 110, 150, 160, 170, 190])
        #expect(history.attempts == 2)
        #expect(history.retries == 1)
        #expect(history.resumeOffsets == [4_000])
        #expect(history.byteRanges.map(\.end) == [4_096, 5_000, 5_000])
        #expect(history.errors == [.badServerResponse])
        #expect(history.statuses == [503, 201])
        #expect(history.serverResourceID == "srv-77")
        #expect(history.acknowledgedAt == 200)
        #expect(history.state == .succeeded)
        #expect(history.entries.contains(LedgerEntry(time: 160, event: .retried(number: 1, newDestination: true))))
        #expect(store.ledger.histories(forAsset: "IMG_0001").map(\.localID) == [id])
        #expect(store.ledger.histories(forAsset: "other").isEmpty)
    }

    @Test func aRecordedResourceIDWinsOverNone() throws {
        var store = JobFixtures.store()
        let id = try JobFixtures.create(&store)
        try JobFixtures.step(&store, id) { try $0.start($1) }
        try JobFixtures.step(&store, id) { try $0.succeed($1, status: 200) }
        #expect(store.ledger[id]?.serverResourceID == nil)
        try store.record(.serverResourceID("given"), job: id, at: 9)
        #expect(store.ledger[id]?.serverResourceID == "given")
        #expect(store.ledger[id]?.acknowledgedAt == nil)
    }

    @Test func jsonRoundTripGivesTheSameLedger() throws {
        var (store, _) = try Self.story()
        _ = try JobFixtures.create(&store, asset: "IMG_0002", at: 300)
        let data = try JSONEncoder().encode(store.ledger)
        let decoded = try JSONDecoder().decode(JobLedger.self, from: data)
        #expect(decoded == store.ledger)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"localID\":\"job-1\""))
        #expect(text.contains("srv-77"))
        let storeData = try JSONEncoder().encode(store)
        #expect(try JSONDecoder().decode(JobStore.self, from: storeData) == store)
    }

    /// The JSON is plain: each entry one flat object named by `event`, no synthesized enum encoding (`_0`).
    @Test func jsonEntriesAreFlatObjectsWithPlainNames() throws {
        var (store, _) = try Self.story()
        _ = try JobFixtures.create(&store, asset: "IMG_0003", at: 400)
        let text = String(decoding: try JSONEncoder().encode(store.ledger), as: UTF8.self)
        #expect(!text.contains(#""_0""#))
        #expect(text.contains(#""event":"state""#))
        #expect(text.contains(#""state":"registered""#))
        let object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let entries = try #require(((object["jobs"] as? [[String: Any]])?.first?["entries"]) as? [[String: Any]])
        let names = Set(entries.compactMap { $0["event"] as? String })
        #expect(names.isSubset(of: Set(LedgerEntry.eventNames)))
    }

    @Test func anUnknownLedgerEventIsRefusedWithItsName() {
        let text =
            #"{"jobs":[{"localID":"job-1","assetID":"a","type":"upload","entries":[{"time":1,"event":"teleported"}]}]}"#
        #expect {
            try JSONDecoder().decode(JobLedger.self, from: Data(text.utf8))
        } throws: { error in
            "\(error)".contains("unknown ledger event \"teleported\"")
        }
    }

    @Test func jsonWithABadJobIDIsRefused() {
        let text = #"{"jobs":[{"localID":"job-x","assetID":"a","type":"upload","entries":[]}]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JobLedger.self, from: Data(text.utf8)) }
    }
}
