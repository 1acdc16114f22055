import Foundation
import HTTPWire
import ResumableUpload
import Synchronization
import TLSKit
import TestSupport
import Testing
import UploadClient
import UploadServer

/// Transfers against the in-process reference server over loopback, HTTP and HTTPS.
struct UploadTransferTests {
    static let uploadPath = "/upload"

    @Test(arguments: InteropVersion.all)
    func aCompleteUploadArrivesIntactOverHTTP(version: InteropVersion) throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let (path, bytes) = try fixture.file(200_000)
        let transfer = try fixture.transfer(path, to: server.url + Self.uploadPath, TransferFixture.configuration(version))
        let outcome = transfer.run()
        #expect(outcome.result == .succeeded, "\(outcome)")
        #expect(outcome.resumable)
        #expect((200...299).contains(outcome.status ?? 0))
        let record = try #require(server.uploads().first)
        #expect(server.uploads().count == 1)
        #expect(record.complete)
        #expect(record.sha256 == TransferFixture.sha256(bytes))
        #expect(outcome.headerFields["x-server-resource-id"] == record.id)
        #expect(outcome.location?.hasSuffix("/upload/" + record.id) == true)
        #expect(fixture.events.methods == ["POST"])
        #expect(fixture.events.bytesSent == 200_000)
        #expect(fixture.events.count { if case .interimReceived(let location, _) = $0 { location != nil } else { false } } == 1)
        #expect(fixture.events.all.contains(.finalising))
        #expect(fixture.events.all.first == .preflight(.resumable(UploadLimits(minSize: 0))))
    }
}
