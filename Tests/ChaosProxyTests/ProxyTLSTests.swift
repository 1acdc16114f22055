import ChaosProxy
import FaultEngine
import Foundation
import HTTPWire
import ProxyTranscript
import SquallNet
import TLSKit
import TestSupport
import Testing

/// Both TLS legs: leaves per SNI (expected or not), a verified upstream, a refused upstream, the key log.
@Suite struct ProxyTLSTests {
    static func tlsEvents(_ transcript: Transcript) -> [TranscriptEvent.Kind] {
        transcript.events.map(\.kind).filter { kind in
            switch kind {
            case .tlsEstablished, .tlsFailed: true
            default: false
            }
        }
    }

    @Test(arguments: ["unexpected.example", "localhost", "127.0.0.1"])
    func anySNITheClientAsksForGetsAMatchingLeaf(serverName: String) throws {
        let fixture = try ProxyFixture(tls: true)
        // The client verifies the chain and the name: the handshake succeeds only with a leaf for that name.
        let stream = try fixture.connect(serverName: serverName)
        let head = RequestHead(method: .get, target: "/_squall/uploads", fields: ["Host": serverName])
        #expect(WireExchange.send(head, over: stream).final?.status == 200)
        stream.close()
        // RFC 6066 §3: an IP literal is never sent as a server name.
        let expected: String? = serverName.first?.isNumber == true ? nil : serverName
        guard case .tlsEstablished(.client, let session) = Self.tlsEvents(fixture.proxy.transcript).first else {
            Issue.record("no client TLS event")
            return
        }
        #expect(session.serverName == expected)
    }

    @Test func anSNIThatIsNoHostNameFailsTheHandshakeAndIsRecorded() throws {
        let fixture = try ProxyFixture(tls: true)
        #expect(throws: (any Error).self) { _ = try fixture.connect(serverName: "bad_name!") }
        ProxyFaultTests.waitForCloses(fixture.proxy)
        guard case .tlsFailed(.client, let reason) = Self.tlsEvents(fixture.proxy.transcript).first else {
            Issue.record("no tls_failed event")
            return
        }
        #expect(reason.contains("bad_name!"))
    }

    @Test func aVerifiedTLSUpstreamAndTheKeyLogCoverBothLegs() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let keyLog = try KeyLog(path: folder.file("keys.log"))
        let fixture = try ProxyFixture(tls: true, upstreamTLS: true) { $0.keyLog = keyLog }
        let stream = try fixture.connect(serverName: "localhost")
        let body = ProxyForwardingTests.body(50_000)
        let outcome = WireExchange.send(ProxyForwardingTests.creation(length: body.count), body: body, over: stream)
        stream.close()
        #expect(outcome.final?.status == 201)
        #expect(fixture.server.uploads().first?.sha256 == MessageDigest.hex(of: body))
        let legs = Self.tlsEvents(fixture.proxy.transcript).compactMap { kind -> TLSLeg? in
            if case .tlsEstablished(let leg, _) = kind { return leg }
            return nil
        }
        #expect(legs == [.client, .upstream])
        keyLog.close()
        let lines = try String(contentsOfFile: folder.file("keys.log"), encoding: .utf8).split(separator: "\n")
        let randoms = Set(lines.compactMap { $0.split(separator: " ").dropFirst().first })
        // One client random per handshake: the client leg and the upstream leg.
        #expect(randoms.count == 2)
    }

    @Test func anUpstreamCertificateFromTheWrongCAIsRefusedWithA502() throws {
        let other = try TLSFixtures.TemporaryDirectory()
        let wrongCA = try CertificateAuthority.loadOrCreate(directory: other.path)
        let fixture = try ProxyFixture(upstreamTLS: true) { $0.upstreamTrust = .caFile(wrongCA.certificatePath) }
        let stream = try fixture.connect()
        let head = RequestHead(method: .get, target: "/_squall/uploads", fields: ["Host": "127.0.0.1"])
        let outcome = WireExchange.send(head, over: stream)
        stream.close()
        #expect(outcome.final?.status == 502)
        guard case .tlsFailed(.upstream, _) = Self.tlsEvents(fixture.proxy.transcript).first else {
            Issue.record("no upstream tls_failed event")
            return
        }
    }
}
