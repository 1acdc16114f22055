import Dispatch
import Foundation
import HTTPWire
import ResumableUpload
import SquallNet
import Synchronization
import TLSKit
import TestSupport
import Testing
import UploadClient
import UploadServer

/// Transfers against the in-process reference server over loopback, HTTP and HTTPS.
struct UploadTransferTests {
    static let uploadPath = "/upload"

    @Test(arguments: InteropVersion.all, [false, true])
    func aCompleteUploadArrivesIntact(version: InteropVersion, secure: Bool) throws {
        let fixture = try TransferFixture()
        let server = try fixture.server { if secure { $0.certificateAuthorityDirectory = fixture.folder.file("ca") } }
        defer { server.stop() }
        let ca = secure ? fixture.folder.file("ca/" + CertificateAuthority.certificateFileName) : nil
        #expect(server.url.hasPrefix(secure ? "https://" : "http://"))
        let (path, bytes) = try fixture.file(200_000)
        let configuration = TransferFixture.configuration(version, ca: ca)
        let outcome = try fixture.transfer(path, to: server.url + Self.uploadPath, configuration).run()
        #expect(outcome.result == .succeeded, "\(outcome)")
        #expect(outcome.resumable)
        #expect((200...299).contains(outcome.status ?? 0))
        let record = try #require(server.uploads().first)
        #expect(server.uploads().count == 1)
        #expect(record.complete && record.interopVersion == version.rawValue)
        #expect(record.sha256 == TransferFixture.sha256(bytes))
        #expect(outcome.headerFields["x-server-resource-id"] == record.id)
        #expect(outcome.location?.hasSuffix("/upload/" + record.id) == true)
        #expect(fixture.events.methods == ["POST"])
        #expect(fixture.events.bytesSent == 200_000)
        let announcements = fixture.events.count {
            if case .interimReceived(let location, _) = $0 { location != nil } else { false }
        }
        #expect(announcements == 1)
        #expect(fixture.events.all.contains(.finalising))
        #expect(fixture.events.all.first == .preflight(.resumable(UploadLimits(minSize: 0))))
    }

    @Test func anHTTPSServerNotTrustedFailsTheHandshake() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server { $0.certificateAuthorityDirectory = fixture.folder.file("ca") }
        defer { server.stop() }
        let other = try TLSFixtures.makeCertificateAuthority(in: fixture.folder, named: "other")
        let (path, _) = try fixture.file(1000)
        let configuration = TransferFixture.configuration(nil, ca: other.certificatePath)
        let outcome = try fixture.transfer(path, to: server.url + Self.uploadPath, configuration).run()
        #expect(outcome.error?.code == .secureConnectionFailed)
        #expect(server.uploads().isEmpty)
    }

    @Test func aPlainUploadWithoutAnInteropVersionSkipsThePreflight() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let (path, bytes) = try fixture.file(100_000)
        let outcome = try fixture.transfer(path, to: server.url + Self.uploadPath, TransferFixture.configuration(nil))
            .run()
        #expect(outcome.result == .succeeded)
        #expect(!outcome.resumable && outcome.status == 201 && outcome.location == nil)
        let record = try #require(server.uploads().first)
        #expect(record.interopVersion == nil && record.sha256 == TransferFixture.sha256(bytes))
        #expect(outcome.headerFields["x-server-resource-id"] == record.id)
        #expect(!fixture.events.all.contains { if case .preflight = $0 { true } else { false } })
        #expect(fixture.events.methods == ["POST"])
    }

    @Test func aServerWithResumabilityOffAnswers501AndGetsAPlainUpload() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server(UploadProtocolConfiguration(resumable: false))
        defer { server.stop() }
        let (path, bytes) = try fixture.file(100_000)
        let version = InteropVersion(rawValue: 8)!
        let outcome = try fixture.transfer(
            path, to: server.url + Self.uploadPath, TransferFixture.configuration(version)
        )
        .run()
        #expect(outcome.result == .succeeded)
        #expect(!outcome.resumable)
        #expect(fixture.events.all.first == .preflight(.notResumable))
        let record = try #require(server.uploads().first)
        #expect(record.interopVersion == nil && record.sha256 == TransferFixture.sha256(bytes))
    }

    @Test(arguments: [InteropVersion(rawValue: 3)!, InteropVersion(rawValue: 6)!, InteropVersion(rawValue: 8)!])
    func theAppendSizeSplitsTheUploadIntoACreationAndAppends(version: InteropVersion) throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let (path, bytes) = try fixture.file(110_000)
        let configuration = TransferFixture.configuration(version, appendSize: 50_000)
        let outcome = try fixture.transfer(path, to: server.url + Self.uploadPath, configuration).run()
        #expect(outcome.result == .succeeded, "\(outcome)")
        let requests = fixture.events.requests
        #expect(requests.map(\.0) == ["POST", "PATCH", "PATCH"])
        #expect(requests.map(\.1) == [0, 50_000, 100_000])
        #expect(requests.map(\.2) == [50_000, 50_000, 10_000])
        #expect(server.uploads().count == 1)
        #expect(server.uploads().first?.sha256 == TransferFixture.sha256(bytes))
    }

    @Test func theServersAppendLimitsFromThePreflightBoundEachRequest() throws {
        let fixture = try TransferFixture()
        let limits = UploadLimits(minSize: 0, maxAppendSize: 40_000, minAppendSize: 30_000)
        let server = try fixture.server(UploadProtocolConfiguration(limits: limits))
        defer { server.stop() }
        let (path, bytes) = try fixture.file(100_000)
        let version = InteropVersion(rawValue: 8)!
        // The caller's 10 000 is below min-append-size: raised to 30 000. With no append size, max-append-size rules.
        for (appendSize, expected) in [(Int64(10_000), Int64(30_000)), (nil, 40_000)] {
            let events = EventRecorder()
            let transfer = try UploadTransfer(
                file: path, to: server.url + Self.uploadPath,
                configuration: TransferFixture.configuration(version, appendSize: appendSize),
                observer: { events.record($0) })
            #expect(transfer.run().result == .succeeded)
            #expect(events.requests.first?.2 == expected)
            #expect(events.requests.dropLast().allSatisfy { $0.2 == expected })
            #expect(events.all.first == .preflight(.resumable(limits)))
        }
        #expect(server.uploads().allSatisfy { $0.sha256 == TransferFixture.sha256(bytes) })
    }

    @Test func anInterruptedUploadResumesWithHeadThenPatchFromTheServersOffset() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let upstream = try SocketAddress(parsing: String(server.url.dropFirst("http://".count)))
        let relay = try CuttingRelay(upstream: upstream, cutAfter: 600_000)
        defer { relay.stop() }
        let (path, bytes) = try fixture.file(1_500_000)
        let version = InteropVersion(rawValue: 8)!
        let outcome = try fixture.transfer(
            path, to: "http://\(relay.address)\(Self.uploadPath)", TransferFixture.configuration(version)
        ).run()
        #expect(outcome.result == .succeeded, "\(outcome)")
        #expect(outcome.resumeAttempts == 1)
        #expect(fixture.delays.all == [.seconds(1)])
        #expect(fixture.events.methods == ["POST", "HEAD", "PATCH"])
        #expect(fixture.events.all.contains(.resumeAttempt(1)))
        let patch = try #require(fixture.events.requests.last)
        #expect(patch.1 > 0 && patch.1 + patch.2 == 1_500_000)
        // The relay dropped what it held when it cut: the server has less than was sent.
        #expect(fixture.events.all.contains { if case .backtrack(_, patch.1) = $0 { true } else { false } })
        #expect(server.uploads().count == 1)
        #expect(server.uploads().first?.sha256 == TransferFixture.sha256(bytes))
    }

    @Test(arguments: [false, true])
    func aCreationWithoutAValidTokenNeedsAuthentication(expired: Bool) throws {
        let fixture = try TransferFixture()
        let server = try fixture.server { $0.authentication = AuthenticationConfiguration() }
        defer { server.stop() }
        var fields: HTTPFields = [:]
        if expired {
            fields.append(name: "Authorization", value: "Bearer " + server.issueToken(for: "alice")!)
            try server.expireTokens()
        }
        let (path, _) = try fixture.file(50_000)
        let configuration = TransferFixture.configuration(InteropVersion(rawValue: 8)!, fields: fields)
        let outcome = try fixture.transfer(path, to: server.url + Self.uploadPath, configuration).run()
        #expect(outcome.error?.code == .userAuthenticationRequired)
        #expect(outcome.status == 401)
        #expect(outcome.headerFields["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(server.uploads().isEmpty)
    }

    @Test func aValidTokenReachesEveryRequest() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server { $0.authentication = AuthenticationConfiguration() }
        defer { server.stop() }
        let fields: HTTPFields = ["Authorization": "Bearer " + server.issueToken(for: "alice")!]
        let (path, bytes) = try fixture.file(60_000)
        let configuration = TransferFixture.configuration(
            InteropVersion(rawValue: 8)!, appendSize: 25_000, fields: fields)
        let outcome = try fixture.transfer(path, to: server.url + Self.uploadPath, configuration).run()
        #expect(outcome.result == .succeeded)
        #expect(fixture.events.methods == ["POST", "PATCH", "PATCH"])
        #expect(server.uploads().first?.principal == "alice")
        #expect(server.uploads().first?.sha256 == TransferFixture.sha256(bytes))
    }

    @Test(arguments: [InteropVersion(rawValue: 3)!, InteropVersion(rawValue: 8)!])
    func anUploadAboveMaxSizeGets413AndABadServerResponse(version: InteropVersion) throws {
        let fixture = try TransferFixture()
        let server = try fixture.server(UploadProtocolConfiguration(limits: UploadLimits(maxSize: 10_000)))
        defer { server.stop() }
        let (path, _) = try fixture.file(300_000)
        let outcome = try fixture.transfer(
            path, to: server.url + Self.uploadPath, TransferFixture.configuration(version)
        )
        .run()
        #expect(outcome.error?.code == .badServerResponse)
        #expect(outcome.status == 413)
    }

    @Test func aCancelledTransferAsksTheServerForTheUploadsState() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let (path, _) = try fixture.file(8 << 20)
        let events = EventRecorder()
        let outcome = try Self.cancelAtFirst104(of: path, to: server, events: events)
        #expect(outcome.result == .cancelled)
        let state = try #require(outcome.serverState)
        #expect(!state.complete)
        #expect(state.offset <= events.bytesSent)
        #expect(events.methods == ["POST", "HEAD"])
        let record = try #require(server.uploads().first)
        #expect(!record.complete)
    }

    /// Uploads `path` with interop 8 and cancels the transfer from another thread as soon as the 104 announcing
    /// the upload arrives (the observer holds the transfer there until the cancel is in); with `afterProgress`, at
    /// the first progress 104 instead, so that the server holds bytes whatever the machine's load.
    static func cancelAtFirst104(
        of path: String, to server: UploadServer, events: EventRecorder = EventRecorder(), afterProgress: Bool = false
    ) throws -> TransferOutcome {
        let announced = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        // Only the first matching 104 waits for the cancel (later progress 104s may still be read after it).
        let triggered = Atomic<Bool>(false)
        let transfer = try UploadTransfer(
            file: path, to: server.url + uploadPath,
            configuration: TransferFixture.configuration(InteropVersion(rawValue: 8)!),
            observer: { event in
                events.record(event)
                if afterProgress {
                    guard case .interimReceived(nil, let offset?) = event, offset > 0 else { return }
                } else {
                    guard case .interimReceived(.some, _) = event else { return }
                }
                guard !triggered.exchange(true, ordering: .acquiringAndReleasing) else { return }
                announced.signal()
                _ = cancelled.wait(timeout: .now() + 20)
            })
        let canceller = Thread {
            _ = announced.wait(timeout: .now() + 20)
            transfer.cancel()
            cancelled.signal()
        }
        canceller.start()
        return transfer.run()
    }

    // MARK: resume location

    /// Starts an upload of `path` and cancels it at its first progress 104: the server keeps an incomplete upload
    /// holding bytes, whose Location is returned (as a killed client would have journaled it).
    static func abandonedUpload(of path: String, to server: UploadServer) throws -> String {
        let outcome = try cancelAtFirst104(of: path, to: server, afterProgress: true)
        #expect(outcome.result == .cancelled)
        #expect(outcome.serverState?.complete == false)
        return try #require(outcome.location)
    }

    @Test func aNewTransferWithTheResumeLocationCompletesAnAbandonedUpload() throws {
        let fixture = try TransferFixture()
        // Progress 104s early and without spacing: the abandoned upload is cancelled at the first, holding bytes.
        var uploadProtocol = UploadProtocolConfiguration()
        uploadProtocol.progressInterval = 256 << 10
        uploadProtocol.progressSpacing = .zero
        let server = try fixture.server(uploadProtocol)
        defer { server.stop() }
        let (path, bytes) = try fixture.file(8 << 20)
        let location = try Self.abandonedUpload(of: path, to: server)
        var configuration = TransferFixture.configuration(InteropVersion(rawValue: 8)!)
        configuration.resumeLocation = location
        let outcome = try fixture.transfer(path, to: server.url + Self.uploadPath, configuration).run()
        #expect(outcome.result == .succeeded, "\(outcome)")
        #expect(outcome.location == location && !outcome.completionConfirmedByOffsetRetrieval)
        #expect(fixture.events.all.first == .reconciling(location: location))
        #expect(fixture.events.methods == ["HEAD", "PATCH"])
        let patch = try #require(fixture.events.requests.last)
        #expect(patch.1 > 0 && patch.1 + patch.2 == 8 << 20 && fixture.events.bytesSent == patch.2)
        #expect(!fixture.events.all.contains { if case .preflight = $0 { true } else { false } })
        let records = server.uploads()
        #expect(records.count == 1)
        #expect(records.first?.complete == true && records.first?.sha256 == TransferFixture.sha256(bytes))
    }

    @Test func aResumeLocationTheServerReportsCompleteSucceedsWithHeadAlone() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let (path, bytes) = try fixture.file(100_000)
        let version = InteropVersion(rawValue: 8)!
        let first = try UploadTransfer(
            file: path, to: server.url + Self.uploadPath, configuration: TransferFixture.configuration(version)
        ).run()
        let location = try #require(first.location)
        var configuration = TransferFixture.configuration(version)
        configuration.resumeLocation = location
        let outcome = try fixture.transfer(path, to: server.url + Self.uploadPath, configuration).run()
        #expect(outcome.result == .succeeded && outcome.completionConfirmedByOffsetRetrieval)
        #expect(fixture.events.methods == ["HEAD"] && fixture.events.bytesSent == 0)
        #expect(server.uploads().count == 1)
        #expect(server.uploads().first?.sha256 == TransferFixture.sha256(bytes))
    }

    @Test func aResumeLocationTheServerDoesNotKnowStartsOverWithACreation() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let (path, bytes) = try fixture.file(300_000)
        var configuration = TransferFixture.configuration(InteropVersion(rawValue: 8)!)
        configuration.resumeLocation = server.url + Self.uploadPath + "/no-such-upload"
        let outcome = try fixture.transfer(path, to: server.url + Self.uploadPath, configuration).run()
        #expect(outcome.result == .succeeded, "\(outcome)")
        #expect(fixture.events.methods == ["HEAD", "POST"])
        #expect(fixture.events.all.contains(.finalResponse(method: "HEAD", status: 404)))
        #expect(fixture.events.all.contains(.restartedFromZero))
        #expect(fixture.events.bytesSent == 300_000)
        let record = try #require(server.uploads().first)
        #expect(server.uploads().count == 1)
        #expect(record.complete && record.sha256 == TransferFixture.sha256(bytes))
        #expect(outcome.location?.hasSuffix("/upload/" + record.id) == true)
    }
}
