import Foundation
import HTTP2Wire
import HTTPExchange
import HTTPWire
import ResumableUpload
import SquallNet
import Synchronization
import TLSKit
import TestSupport
import Testing
import UploadClient
import UploadServer

/// The reference client over HTTP/2 (`TransferConfiguration.http`): uploads multiplexed as streams of one connection
/// shared through `HTTP2Connections`, ALPN choosing h2 or falling back, and streams a `GOAWAY` refused told apart
/// from streams it cut.
struct HTTP2TransferTests {
    private static let version = InteropVersion(rawValue: 8)!

    /// Runs a transfer of each file at once, sharing `connections`, and returns their outcomes in order.
    private static func upload(
        _ paths: [String], to url: String, _ configuration: TransferConfiguration, connections: HTTP2Connections,
        fixture: TransferFixture
    ) throws -> [TransferOutcome] {
        let events = fixture.events
        let transfers = try paths.map { path in
            try UploadTransfer(
                file: path, to: url, configuration: configuration, connections: connections,
                sleeper: { _ in }, observer: { events.record($0) })
        }
        let outcomes = Mutex<[Int: TransferOutcome]>([:])
        let threads = transfers.enumerated().map { index, transfer in
            ConnectionThread(name: "test-upload") {
                let outcome = transfer.run()
                outcomes.withLock { $0[index] = outcome }
            }
        }
        for thread in threads { thread.join() }
        connections.close()
        return outcomes.withLock { all in (0..<paths.count).map { all[$0]! } }
    }

    private static func files(_ fixture: TransferFixture, count: Int) throws -> [(String, [UInt8])] {
        try (0..<count).map { try fixture.file((1 << 20) + $0 * 4096, seed: UInt64($0 + 1), name: "file-\($0)") }
    }

    @Test(arguments: [HTTPChoice.http2, .http1])
    func uploadsGoSideBySideOnOneConnectionOnlyOverHTTP2(_ choice: HTTPChoice) throws {
        let fixture = try TransferFixture()
        let server = try fixture.server { $0.http2 = true }
        defer { server.stop() }
        let files = try Self.files(fixture, count: 3)
        var configuration = TransferFixture.configuration(Self.version)
        configuration.http = choice
        let outcomes = try Self.upload(
            files.map(\.0), to: server.url + "/upload", configuration, connections: HTTP2Connections(),
            fixture: fixture)
        for outcome in outcomes { #expect(outcome.result == .succeeded, "\(outcome)") }
        let uploads = server.uploads()
        #expect(uploads.count == 3 && uploads.allSatisfy(\.complete))
        #expect(Set(uploads.compactMap(\.length)) == Set(files.map { Int64($0.1.count) }))
        // Over HTTP/2 the preflight and the three creations are streams of one connection; over HTTP/1.1 (the
        // negative control of the count) each transfer opens its own.
        if choice == .http2 {
            #expect(server.connectionsAccepted == 1)
        } else {
            #expect(server.connectionsAccepted >= 3)
        }
    }

    @Test func automaticSpeaksH2WhenTheServerChoosesItInALPN() throws {
        let fixture = try TransferFixture()
        let authority = try TLSFixtures.makeCertificateAuthority(in: fixture.folder)
        let server = try fixture.server {
            $0.http2 = true
            $0.certificateAuthorityDirectory = authority.directory
        }
        defer { server.stop() }
        let files = try Self.files(fixture, count: 2)
        var configuration = TransferFixture.configuration(Self.version, ca: authority.certificatePath)
        configuration.http = .automatic
        let outcomes = try Self.upload(
            files.map(\.0), to: server.url + "/upload", configuration, connections: HTTP2Connections(),
            fixture: fixture)
        for outcome in outcomes { #expect(outcome.result == .succeeded, "\(outcome)") }
        #expect(server.connectionsAccepted == 1)
    }

    @Test func automaticFallsBackToHTTP1AndH2AloneFailsSayingWhy() throws {
        let fixture = try TransferFixture()
        let authority = try TLSFixtures.makeCertificateAuthority(in: fixture.folder)
        let server = try fixture.server { $0.certificateAuthorityDirectory = authority.directory }
        defer { server.stop() }
        let (path, _) = try fixture.file(300_000)
        var configuration = TransferFixture.configuration(Self.version, ca: authority.certificatePath)
        configuration.http = .automatic
        let fallback = try Self.upload(
            [path], to: server.url + "/upload", configuration, connections: HTTP2Connections(), fixture: fixture)
        #expect(fallback[0].result == .succeeded)
        configuration.http = .http2
        let refused = try Self.upload(
            [path], to: server.url + "/upload", configuration, connections: HTTP2Connections(), fixture: fixture)
        guard case .failed(let error) = refused[0].result else {
            Issue.record("h2 alone against an HTTP/1.1 server: \(refused[0])")
            return
        }
        #expect(error.code == .secureConnectionFailed)
        #expect(error.detail.contains("did not choose h2 in ALPN"), "\(error.detail)")
    }

    // MARK: GOAWAY

    /// An HTTP/2 server that answers the first stream as `answer` says, then says `GOAWAY` naming no stream.
    private final class GoawayServer: Sendable {
        let listener: TCPListener
        let thread: ConnectionThread

        init(interimFirst: Bool) throws {
            let listener = try TCPListener("127.0.0.1:0")
            self.listener = listener
            thread = ConnectionThread(name: "test-goaway") {
                guard let socket = try? listener.accept() else { return }
                let stream = PlainStream(socket: socket)
                defer { stream.close() }
                guard let session = try? HTTP2Session(role: .server) else { return }
                var buffer = [UInt8](repeating: 0, count: 16 * 1024)
                let deadline = ContinuousClock.now + .seconds(10)
                do {
                    while ContinuousClock.now < deadline {
                        try stream.writeAll(try session.takeOutput(), deadline: deadline)
                        let count = try buffer.withUnsafeMutableBytes {
                            try stream.readSome(into: $0, deadline: deadline)
                        }
                        if count == 0 { return }
                        for event in try session.receive(Array(buffer[..<count])) {
                            guard case .headers(let id, _, _) = event else { continue }
                            if interimFirst {
                                let interim = ResponseHead(status: 104, fields: ["Location": "/upload/1"])
                                try session.submitResponse(HTTP2Heads.fields(of: interim), on: id, endStream: false)
                            }
                            session.goAway(lastStream: 0, code: .noError)
                            try stream.writeAll(try session.takeOutput(), deadline: deadline)
                            // Wait for the client to go.
                            _ = try? buffer.withUnsafeMutableBytes { try stream.readSome(into: $0, deadline: deadline) }
                            return
                        }
                    }
                } catch {}
            }
        }
    }

    @Test(arguments: [false, true])
    func aStreamAboveTheGoawaysLastIsRefusedUnlessTheServerAnsweredIt(_ interimFirst: Bool) throws {
        let server = try GoawayServer(interimFirst: interimFirst)
        defer { server.thread.join() }
        let socket = try TCPConnector.connect(to: server.listener.address, timeout: .seconds(5))
        try socket.setNonBlocking(true)
        let connection = try HTTP2ClientConnection(
            stream: PlainStream(socket: socket), scheme: "http", idleTimeout: .seconds(5))
        defer { connection.close() }
        let head = RequestHead(method: .post, target: "/upload", fields: ["Host": "127.0.0.1"])
        var interims = 0
        #expect {
            _ = try connection.exchange(
                head, body: RequestBody(bytes: [UInt8](repeating: 7, count: 1000)), progressTimeout: .seconds(5),
                onInterim: { _ in
                    interims += 1
                    return true
                })
        } throws: { error in
            // Unanswered, it was not processed: safe to send again. Answered with a 104, it was, whatever the GOAWAY
            // says: cut, to resume.
            (error as? HTTPExchangeError)?.code == (interimFirst ? .closed : .refused)
        }
        #expect(interims == (interimFirst ? 1 : 0))
        #expect(!connection.acceptsStreams)
    }
}
