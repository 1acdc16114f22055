import HTTPWire
import SquallNet
import StructuredFields
import TLSKit
import Testing

@testable import Harness

/// Each verdict must fail when what it judges is wrong: these doctor a good observation one fact at a time.
struct SmokeVerdictsTests {
    static let size = 4096
    static let digestBytes: [UInt8] = {
        let digest = SHA256Digest()
        digest.update([UInt8](repeating: 7, count: size))
        return digest.finalize()
    }()
    static let digest = SHA256Digest.hexString(digestBytes)

    /// An observation in which everything went right.
    static func good() -> SmokeObservation {
        var configuration = SmokeCheck.Configuration()
        configuration.bodySize = size
        var observation = SmokeObservation(configuration: configuration)
        observation.caCertificatePath = "/tmp/ca.pem"
        let session = TLSSessionInfo(
            protocolVersion: "TLSv1.3", cipher: "TLS_AES_256_GCM_SHA384", alpn: "http/1.1", serverName: "localhost",
            peerSubject: nil)
        let digestField = try! StructuredFieldSerializer.serialize(Item(.byteSequence(SmokeVerdictsTests.digestBytes)))
        observation.client = SmokeClient.Outcome(
            session: session,
            interim: [
                ResponseHead(
                    status: 104, fields: ["Location": "/upload/1", "Upload-Draft-Interop-Version": "6"])
            ],
            final: ResponseHead(
                status: 201,
                fields: [
                    "Location": "/upload/1", "Upload-Offset": "\(size)", "Upload-Complete": "?1",
                    "Repr-Digest": "sha-256=\(digestField)",
                ]),
            sentBytes: size, sentSHA256: digest)
        var report = RelayReport()
        report.toUpstream.bytesDelivered = Int64(size + 200)
        report.toUpstream.bytesReceived = Int64(size + 200)
        report.toDownstream.bytesDelivered = 300
        report.toDownstream.bytesReceived = 300
        observation.relayed = [TerminatingRelay.Connection(session: session, report: report, failure: nil)]
        observation.received = [
            SmokeUploadEndpoint.Received(location: "/upload/1", interopVersion: 6, byteCount: size, sha256: digest)
        ]
        observation.keyLogLines = ["CLIENT_TRAFFIC_SECRET_0 aa bb", "CLIENT_TRAFFIC_SECRET_0 aa bb"]
        return observation
    }

    func failing(_ observation: SmokeObservation) -> [String] {
        SmokeVerdicts.evaluate(observation).filter { !$0.passed }.map(\.name)
    }

    @Test func goodObservationPasses() {
        #expect(failing(Self.good()) == [])
    }

    @Test func anErrorFailsTheExchange() {
        var observation = Self.good()
        observation.failure = "connectionRefused"
        #expect(failing(observation) == ["exchange"])
        observation = Self.good()
        observation.endpointFailures = ["client closed before the request ended"]
        #expect(failing(observation) == ["exchange"])
    }

    @Test func tls12OrMissingSNIFailsTheHandshake() {
        var observation = Self.good()
        observation.client?.session?.protocolVersion = "TLSv1.2"
        #expect(failing(observation) == ["tls"])
        observation = Self.good()
        observation.relayed[0].session?.serverName = nil
        #expect(failing(observation) == ["tls"])
    }

    @Test func missingOrWrongInterimFails() {
        var observation = Self.good()
        observation.client?.interim = []
        #expect(failing(observation).contains("104"))
        observation = Self.good()
        observation.client?.interim[0].fields.set("5", for: "Upload-Draft-Interop-Version")
        #expect(failing(observation) == ["104"])
    }

    @Test func wrongOffsetCompletionOrLocationFailsTheFinalResponse() {
        for (field, value) in [("Upload-Offset", "4095"), ("Upload-Complete", "?0"), ("Location", "/upload/2")] {
            var observation = Self.good()
            observation.client?.final?.fields.set(value, for: field)
            #expect(failing(observation) == ["201"], "\(field): \(value)")
        }
        var observation = Self.good()
        observation.client?.final?.fields.set("\"4096\"", for: "Upload-Offset")
        #expect(failing(observation) == ["201"])
    }

    @Test func digestMismatchFailsIntegrity() {
        var observation = Self.good()
        observation.received[0].sha256 = SHA256Digest.hex(of: [1, 2, 3])
        #expect(failing(observation) == ["sha-256"])
        observation = Self.good()
        observation.client?.final?.fields.set("sha-256=:AAAA:", for: "Repr-Digest")
        #expect(failing(observation) == ["sha-256"])
    }

    @Test func uncleanOrShortRelayFails() {
        var observation = Self.good()
        observation.relayed[0].report?.upstream = .reset
        #expect(failing(observation) == ["relay"])
        observation = Self.good()
        observation.relayed[0].report?.toUpstream.bytesDelivered = 10
        #expect(failing(observation) == ["relay"])
    }

    @Test func keyLogMustHaveBothLegs() {
        var observation = Self.good()
        observation.keyLogLines = ["CLIENT_TRAFFIC_SECRET_0 aa bb"]
        #expect(failing(observation) == ["keylog"])
    }
}
