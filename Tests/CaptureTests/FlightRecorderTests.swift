import Capture
import Foundation
import PacketSynthesis
import TestSupport
import Testing

/// A decrypted capture as a flight recorder: nothing on disk until it closes, then every connection's packets in
/// time order (within the limits), or nothing when told not to keep them.
struct FlightRecorderTests {
    private let client = IPv4Endpoint(127, 0, 0, 1, port: 42_001)
    private let other = IPv4Endpoint(127, 0, 0, 1, port: 42_002)
    private let server = IPv4Endpoint(127, 0, 0, 1, port: 8080)

    private static func body(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31 &+ seed) % 251) }
    }

    private static func fileSize(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    /// The pcap file's header alone: 24 bytes.
    private static let emptyPcap = 24

    @Test func writesNothingUntilItClosesThenBothConnectionsWhole() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let capture = try DecryptedCapture(path: folder.path + "/recorded.pcap", recorder: FlightRecorderLimits())
        let first = capture.connection(client: client, server: server)
        let second = capture.connection(client: other, server: server)
        let sent = Self.body(200_000, seed: 1)
        sent.withUnsafeBytes { first.data($0, from: .client) }
        Self.body(3000, seed: 2).withUnsafeBytes { second.data($0, from: .server) }
        first.finish(from: .client)
        second.reset(from: .client)
        #expect(capture.isFlightRecorder)
        // At most the header (stdio may still hold it): no packet reached the file.
        #expect(try Self.fileSize(capture.path) <= Self.emptyPcap)
        capture.close()
        #expect(capture.firstError == nil)
        #expect(capture.recorderDroppedBytes == 0)
        #expect(try Tshark.problems(capture.path) == [])
        #expect(try Tshark.follow(capture.path, stream: 0).client == sent)
        #expect(try Tshark.follow(capture.path, stream: 1).server == Self.body(3000, seed: 2))
        #expect(try Tshark.fields(capture.path, filter: "tcp.flags.reset==1", ["tcp.stream"]) == [["1"]])
    }

    @Test func aCaptureNotKeptIsNeverWritten() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let capture = try DecryptedCapture(path: folder.path + "/dropped.pcap", recorder: FlightRecorderLimits())
        let connection = capture.connection(client: client, server: server)
        Self.body(100_000, seed: 3).withUnsafeBytes { connection.data($0, from: .client) }
        capture.keep(false)
        capture.close()
        #expect(try Self.fileSize(capture.path) == Self.emptyPcap)
    }

    @Test func pastItsLimitAConnectionKeepsItsHandshakeAndItsNewestPackets() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let limits = FlightRecorderLimits(perConnection: 64 * 1024, total: 1 << 20)
        let capture = try DecryptedCapture(path: folder.path + "/bounded.pcap", recorder: limits)
        let connection = capture.connection(client: client, server: server)
        let chunks = (0..<40).map { Self.body(8000, seed: $0) }
        for chunk in chunks { chunk.withUnsafeBytes { connection.data($0, from: .client) } }
        connection.finish(from: .client)
        capture.close()
        #expect(capture.recorderDroppedBytes > 0)
        // The handshake is there (the SYN), and so are the last chunk and the FIN; the first chunk is not.
        #expect(
            try Tshark.fields(capture.path, filter: "tcp.flags.syn==1 && tcp.flags.ack==0", ["tcp.stream"]) == [["0"]])
        #expect(try Tshark.fields(capture.path, filter: "tcp.flags.fin==1", ["tcp.stream"]).count >= 1)
        let followed = try Tshark.follow(capture.path, stream: 0).client
        #expect(followed.count < 64 * 1024)
        #expect(Array(followed.suffix(8000)) == chunks[39])
        #expect(!followed.starts(with: chunks[0]))
        // The data pushed out is a gap in the sequence numbers, not a seam: the client's FIN comes after all
        // 320,000 bytes it sent (relative sequence 1 + 320,000), and tshark sees the segments not captured.
        #expect(
            try Tshark.fields(capture.path, filter: "tcp.flags.fin==1 && tcp.srcport==42001", ["tcp.seq"]) == [
                ["320001"]
            ])
        #expect(try !Tshark.fields(capture.path, filter: "tcp.analysis.lost_segment", ["frame.number"]).isEmpty)
    }

    @Test func theTotalLimitBoundsEveryConnectionTogether() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let limits = FlightRecorderLimits(perConnection: 1 << 20, total: 100 * 1024)
        let capture = try DecryptedCapture(path: folder.path + "/total.pcap", recorder: limits)
        let connections = (0..<4).map { index in
            capture.connection(client: IPv4Endpoint(127, 0, 0, 1, port: UInt16(43_000 + index)), server: server)
        }
        for round in 0..<10 {
            for connection in connections {
                Self.body(10_000, seed: round).withUnsafeBytes { connection.data($0, from: .client) }
            }
        }
        capture.close()
        #expect(capture.recorderDroppedBytes > 0)
        #expect(try Self.fileSize(capture.path) < 100 * 1024 + 4 * 1024)
        #expect(try Tshark.problems(capture.path).allSatisfy { !$0.contains("Malformed") })
    }
}
