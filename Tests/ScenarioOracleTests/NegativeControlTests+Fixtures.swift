import Foundation
import HTTPWire
import ProxyTranscript
import Scenario
import Testing
import UploadJobs

@testable import ScenarioOracle

/// The ledgers and transfers the controls are made of.
extension NegativeControlTests {
    /// One job whose upload the server announced at `location`, succeeded and acknowledged.
    static func resumedAt(_ location: String) throws -> JobLedger {
        var store = JobStore()
        let id = try store.performChanges(at: 1) {
            _ = try $0.createJob(assetID: "/assets/photo-1", destination: Fixture.destination)
        }[0].jobID
        try store.performChanges(at: 2) { block in
            try block.start(id)
            try block.record(.uploadResource(location: location), job: id)
            try block.record(.bytesSent(ByteRange(offset: 0, length: 1000)), job: id)
            try block.succeed(id, status: 201, headers: [])
        }
        try store.performChanges(at: 3) { try $0.acknowledge(id) }
        return store.ledger
    }

    /// One job that sent its whole asset and succeeded, never acknowledged.
    static func unacknowledged() throws -> JobLedger {
        var store = JobStore()
        let id = try store.performChanges(at: 1) {
            _ = try $0.createJob(assetID: "/assets/photo-1", destination: Fixture.destination)
        }[0].jobID
        try store.performChanges(at: 2) { block in
            try block.start(id)
            try block.record(.bytesSent(ByteRange(offset: 0, length: 1000)), job: id)
            try block.succeed(id, status: 201, headers: [])
        }
        return store.ledger
    }

    /// A job acknowledged twice: a ledger no store makes, read back from JSON with its acknowledgement doubled.
    static func acknowledgedTwice() throws -> JobLedger {
        let once = try Fixture.ledger([[Fixture.clean()]])
        var document = try #require(
            try JSONSerialization.jsonObject(with: try JSONEncoder().encode(once)) as? [String: Any])
        var jobs = try #require(document["jobs"] as? [[String: Any]])
        var entries = try #require(jobs[0]["entries"] as? [[String: Any]])
        entries.append(try #require(entries.last))
        jobs[0]["entries"] = entries
        document["jobs"] = jobs
        return try JSONDecoder().decode(JobLedger.self, from: try JSONSerialization.data(withJSONObject: document))
    }

    /// A creation announced at `/uploads/7` whose progress 104 acknowledged `acknowledged` bytes before a cut, then
    /// a HEAD reporting `reported`.
    static func progressThenHead(acknowledged: Int64, reported: Int64) -> Transcript {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.add(
            1,
            .requestHead(exchange: 1, RequestHead(method: .post, target: "/upload", fields: ["Upload-Length": "1000"])))
        builder.add(1, .interimResponse(exchange: 1, ResponseHead(status: 104, fields: ["Location": "/uploads/7"])))
        builder.add(1, .requestBody(exchange: 1, offset: 0, length: 700, uploadOffset: 0))
        builder.add(
            1, .interimResponse(exchange: 1, ResponseHead(status: 104, fields: ["Upload-Offset": "\(acknowledged)"])))
        builder.fault(1, rule: "cut", action: "reset", offset: 700)
        builder.exchange(2, 1, .head, "/uploads/7", status: 204, responseFields: ["Upload-Offset": "\(reported)"])
        return builder.transcript
    }

    static func upload(_ id: String, sha: String) -> ServerUpload {
        ServerUpload(id: id, complete: true, cancelled: false, length: 1000, offset: 1000, sha256: sha)
    }

    /// A creation announced at `/uploads/7` by a 104 and cut at 400, a HEAD reporting `reported`, then one PATCH
    /// from `resumeAt` with the rest, answered 201.
    static func cutAndResumed(reported: Int64, resumeAt: Int64) -> Transcript {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.add(
            1,
            .requestHead(exchange: 1, RequestHead(method: .post, target: "/upload", fields: ["Upload-Length": "1000"])))
        builder.add(1, .interimResponse(exchange: 1, ResponseHead(status: 104, fields: ["Location": "/uploads/7"])))
        builder.add(1, .requestBody(exchange: 1, offset: 0, length: 400, uploadOffset: 0))
        builder.fault(1, rule: "cut", action: "reset", offset: 400)
        builder.exchange(2, 1, .head, "/uploads/7", status: 204, responseFields: ["Upload-Offset": "\(reported)"])
        builder.exchange(
            2, 2, .patch, "/uploads/7", fields: ["Upload-Offset": "\(resumeAt)"], body: 1000 - resumeAt,
            uploadOffset: resumeAt, status: 201)
        return builder.transcript
    }

    /// `count` token requests, each on its own connection, then the upload.
    static func tokens(_ count: Int) -> Transcript {
        var builder = OracleFixtures.TranscriptBuilder()
        for number in 0..<count {
            builder.exchange(1 + number, 1, .post, "/_squall/token?principal=squall", status: 200)
        }
        builder.exchange(count + 1, 1, .post, "/upload", body: 1000, status: 201)
        return builder.transcript
    }
}
