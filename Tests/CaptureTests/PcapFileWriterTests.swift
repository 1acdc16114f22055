import Capture
import PacketSynthesis
import TestSupport
import Testing

struct PcapFileWriterTests {
    private let client = IPv4Endpoint(10, 0, 0, 1, port: 51_000)
    private let server = IPv4Endpoint(10, 0, 0, 2, port: 80)

    /// Handshake, a request, its response: five packets.
    private func exchange() -> [[UInt8]] {
        var flow = TCPFlowSynthesizer(client: client, server: server)
        return flow.open() + flow.data(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8), from: .client)
            + flow.data(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), from: .server)
    }

    private func write(_ packets: [[UInt8]], to writer: PcapFileWriter, at time: PacketTimestamp) throws {
        for packet in packets {
            try packet.withUnsafeBytes { try writer.write(packet: $0, at: time) }
        }
    }

    @Test func recordsAreRawIPv4WithExactMicrosecondTimestamps() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let writer = try PcapFileWriter(path: folder.path + "/raw.pcap")
        try write(exchange(), to: writer, at: PacketTimestamp(microsecondsSinceEpoch: 1_700_000_000_000_001))
        try writer.close()
        let rows = try Tshark.fields(writer.path, filter: "frame", ["frame.time_epoch", "frame.protocols", "ip.src"])
        #expect(rows.count == 5)
        #expect(rows.first == ["1700000000.000001000", "raw:ip:tcp", "10.0.0.1"])
        #expect(rows.last?[1] == "raw:ip:tcp:http:data")
        let summary = try ExternalTool.capinfos.run(["-E", writer.path])
        #expect(summary.contains("Raw IP"))
    }

    @Test func aFlushedButUnclosedFileIsReadable() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let writer = try PcapFileWriter(path: folder.path + "/open.pcap")
        var packets = exchange()
        try writer.writeBatch { write in
            for packet in packets { packet.withUnsafeBytes(write) }
        }
        #expect(try Tshark.lines(["-r", writer.path]).count == 5)
        #expect(try Tshark.problems(writer.path) == [])
        packets = Array(packets.prefix(1))
        try write(packets, to: writer, at: .now())
        #expect(try Tshark.lines(["-r", writer.path]).count == 5, "unflushed records are still in stdio's buffer")
        try writer.flush()
        #expect(try Tshark.lines(["-r", writer.path]).count == 6)
        try writer.close()
    }

    @Test func aCorruptedChecksumIsReported() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let writer = try PcapFileWriter(path: folder.path + "/corrupt.pcap")
        var packets = exchange()
        packets[3][packets[3].count - 1] ^= 0x20  // request payload: TCP checksum now wrong
        packets[4][8] = 1  // response TTL: IPv4 header checksum now wrong
        try write(packets, to: writer, at: .now())
        try writer.close()
        let problems = try Tshark.fields(
            writer.path, filter: "tcp.checksum.status==0 || ip.checksum.status==0", ["frame.number"])
        #expect(problems.isEmpty, "checksum checks are off unless asked for")
        let reported = try Tshark.problems(writer.path)
        #expect(reported.count == 2)
        #expect(reported.first?.trimmingCharacters(in: .whitespaces).hasPrefix("4 ") == true)
    }

    @Test func closeIsIdempotentAndLaterWritesFail() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let writer = try PcapFileWriter(path: folder.path + "/closed.pcap")
        try writer.close()
        try writer.close()
        #expect(throws: CaptureError(.closed, "capture file '\(writer.path)' is already closed")) {
            try write(exchange(), to: writer, at: .now())
        }
        #expect(throws: CaptureError.self) { try writer.flush() }
        #expect(try Tshark.lines(["-r", writer.path]).isEmpty)
    }

    @Test func unwritablePathNamesTheFileAndLibpcapsReason() {
        let path = "/nonexistent-squall-folder/x.pcap"
        do {
            _ = try PcapFileWriter(path: path)
            Issue.record("opened \(path)")
        } catch {
            #expect(error.code == .open)
            #expect(error.detail.contains("'\(path)'"))
            #expect(error.detail.contains("No such file or directory"))
        }
    }

    @Test func timestampsSplitIntoSecondsAndMicrosecondsFromTheEpochOn() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let writer = try PcapFileWriter(path: folder.path + "/old.pcap")
        let packet = Array(exchange().prefix(1))
        try write(packet, to: writer, at: PacketTimestamp(microsecondsSinceEpoch: 2_500_000))
        try write(packet, to: writer, at: PacketTimestamp(microsecondsSinceEpoch: 999_999))
        try write(packet, to: writer, at: PacketTimestamp(microsecondsSinceEpoch: -1))
        try writer.close()
        let times = try Tshark.fields(writer.path, filter: "frame", ["frame.time_epoch"])
        #expect(times == [["2.500000000"], ["0.999999000"], ["0.000000000"]])
    }
}
