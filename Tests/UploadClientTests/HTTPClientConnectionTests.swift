import Foundation
import Glibc
import HTTPExchange
import HTTPWire
import SquallNet
import TLSKit
import TestSupport
import Testing
import UploadClient

/// The HTTP/1.1 client connection against scripted servers: interim responses, keep-alive, early answers,
/// timeouts, TLS.
struct HTTPClientConnectionTests {
    static func open(_ server: ScriptedServer, tls: TLSContext? = nil) throws -> HTTPClientConnection {
        try HTTPClientConnection.open(to: HTTPURL(server.url).endpoint, tls: tls, timeout: .seconds(5))
    }

    static func file(_ fixture: TransferFixture, _ count: Int) throws -> (Int32, [UInt8]) {
        let (path, bytes) = try fixture.file(count)
        let descriptor = Glibc.open(path, O_RDONLY)
        #expect(descriptor >= 0)
        return (descriptor, bytes)
    }

    @Test func everyInterimResponseIsCollectedBeforeTheFinalOne() throws {
        let fixture = try TransferFixture()
        let (descriptor, bytes) = try Self.file(fixture, 100_000)
        defer { close(descriptor) }
        let scripted = try ScriptedServer(steps: [
            ScriptedStep(
                interims: [
                    ScriptedStep.interim104(version: 8, location: "/upload/a"),
                    ScriptedStep.interim104(version: 8, offset: 40_000, afterBytes: 40_000),
                    ScriptedStep.interim104(version: 8, offset: 80_000, afterBytes: 80_000),
                ],
                respond: 201, fields: ["X-Id": "7"])
        ])
        let connection = try Self.open(scripted)
        var seen: [ResponseHead] = []
        var sent = 0
        let response = try connection.exchange(
            RequestHead(method: .post, target: "/upload", fields: ["Content-Length": "100000"]),
            body: RequestBody(fileDescriptor: descriptor, offset: 0, length: 100_000, chunkSize: 8192),
            readTimeout: .seconds(10),
            onInterim: {
                seen.append($0)
                return true
            },
            onBodySent: {
                sent += $0
                return true
            })
        #expect(response.head.status == 201 && response.head.fields["X-Id"] == "7")
        #expect(response.interims.map(\.status) == [104, 104, 104])
        #expect(response.interims == seen)
        #expect(response.interims.compactMap { $0.fields["Upload-Offset"] } == ["40000", "80000"])
        #expect(sent == 100_000 && response.bodyBytesSent == 100_000)
        #expect(scripted.requests.first?.body == bytes)
        #expect(try scripted.requests.first?.head.fields["Host"] == HTTPURL(scripted.url).endpoint.authority)
        #expect(connection.isReusable)
    }

    @Test func aKeptAliveConnectionCarriesTheNextRequest() throws {
        let scripted = try ScriptedServer(steps: [
            ScriptedStep(respond: 200), ScriptedStep(respond: 204, fields: ["Connection": "close"]),
        ])
        let connection = try Self.open(scripted)
        _ = try connection.exchange(RequestHead(method: .options, target: "/upload"), readTimeout: .seconds(5))
        #expect(connection.isReusable)
        let second = try connection.exchange(RequestHead(method: .head, target: "/upload/a"), readTimeout: .seconds(5))
        #expect(second.head.status == 204)
        #expect(!connection.isReusable)
        #expect(scripted.connectionCount == 1 && connection.requestCount == 2)
    }

    @Test func anEarlyFinalResponseStopsTheBodyAndTheConnectionIsNotReused() throws {
        let fixture = try TransferFixture()
        let size = 16 << 20
        let (descriptor, _) = try Self.file(fixture, size)
        defer { close(descriptor) }
        let scripted = try ScriptedServer(steps: [ScriptedStep(bodyLimit: 0, respond: 413)])
        let connection = try Self.open(scripted)
        let response = try connection.exchange(
            RequestHead(method: .post, target: "/upload", fields: ["Content-Length": "\(size)"]),
            body: RequestBody(fileDescriptor: descriptor, offset: 0, length: Int64(size)), readTimeout: .seconds(10))
        #expect(response.head.status == 413)
        #expect(response.bodyBytesSent < Int64(size))
        #expect(!connection.isReusable)
    }

    @Test func aConnectionThatCannotBeOpenedCannotConnectToHost() throws {
        let listener = try TCPListener(address: SocketAddress(host: "127.0.0.1", port: 0))
        let port = listener.address.port
        listener.close()
        #expect {
            _ = try HTTPClientConnection.open(
                to: HTTPEndpoint(secure: false, host: "127.0.0.1", port: port), tls: nil, timeout: .seconds(5))
        } throws: { ($0 as? TransferError)?.code == .cannotConnectToHost }
    }

    @Test func aSilentServerTimesOutAndAnAbortedExchangeIsCancelled() throws {
        let scripted = try ScriptedServer(steps: [
            ScriptedStep(ending: .stall),
            ScriptedStep(interims: [ScriptedStep.interim104(version: 8)], respond: 200),
        ])
        let first = try Self.open(scripted)
        #expect {
            _ = try first.exchange(RequestHead(method: .get, target: "/"), readTimeout: .milliseconds(100))
        } throws: { ($0 as? TransferError)?.code == .timedOut }
        first.close()
        let second = try Self.open(scripted)
        #expect {
            _ = try second.exchange(RequestHead(method: .get, target: "/"), readTimeout: .seconds(5)) { _ in false }
        } throws: { ($0 as? TransferError)?.code == .cancelled }
    }

    @Test func aTLSConnectionTrustsTheGivenCA() throws {
        ProcessSetup.ignoreBrokenPipe()
        let folder = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: folder)
        let scripted = try ScriptedServer(
            steps: [ScriptedStep(respond: 200, fields: ["X-Secure": "yes"])],
            tls: TLSFixtures.serverContext(authority: authority))
        #expect(scripted.url.hasPrefix("https://"))
        let connection = try Self.open(scripted, tls: TLSFixtures.clientContext(authority: authority))
        let response = try connection.exchange(RequestHead(method: .get, target: "/"), readTimeout: .seconds(5))
        #expect(response.head.fields["X-Secure"] == "yes")
    }
}
