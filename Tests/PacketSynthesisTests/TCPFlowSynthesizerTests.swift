import PacketSynthesis
import Testing

struct TCPFlowSynthesizerTests {
    private let client = IPv4Endpoint(127, 0, 0, 1, port: 50_000)
    private let server = IPv4Endpoint(127, 0, 0, 2, port: 443)

    private func flow(maximumSegment: Int = 65_495) -> TCPFlowSynthesizer {
        TCPFlowSynthesizer(
            client: client, server: server,
            configuration: TCPFlowSynthesizer.Configuration(maximumSegment: maximumSegment))
    }

    private func parsed(_ packets: [[UInt8]]) -> [ParsedPacket] {
        packets.map(ParsedPacket.init)
    }

    private func payload(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    }

    @Test func handshakeIsSynSynAckAck() throws {
        var flow = flow()
        let clientStart = flow.nextSequence(from: .client)
        let serverStart = flow.nextSequence(from: .server)
        let packets = parsed(flow.open())
        try #require(packets.count == 3)
        #expect(packets.map(\.flags) == [.syn, [.syn, .ack], .ack])
        #expect(packets.map(\.sequence) == [clientStart, serverStart, clientStart &+ 1])
        #expect(packets.map(\.acknowledgement) == [0, clientStart &+ 1, serverStart &+ 1])
        #expect(packets.map(\.sourcePort) == [50_000, 443, 50_000])
        #expect(packets.map(\.destinationAddress) == [0x7F00_0002, 0x7F00_0001, 0x7F00_0002])
        #expect(packets.map(\.maximumSegmentOption) == [65_495, 65_495, nil])
        #expect(packets.map(\.bytes.count) == [44, 44, 40])
        #expect(packets.map(\.identification) == [1, 1, 2])
        #expect(packets.allSatisfy { $0.isWellFormed && $0.timeToLive == 64 && $0.window == 65_535 })
        #expect(flow.open().isEmpty)
        #expect(flow.nextSequence(from: .client) == clientStart &+ 1)
        #expect(flow.nextSequence(from: .server) == serverStart &+ 1)
    }

    @Test func initialSequenceNumbersAreDeterministicAndDistinct() {
        var first = flow()
        var second = flow()
        #expect(first.open() == second.open())
        #expect(first.data(payload(10), from: .client) == second.data(payload(10), from: .client))
        let clientStart = TCPFlowSynthesizer.initialSequence(client: client, server: server, side: .client)
        let serverStart = TCPFlowSynthesizer.initialSequence(client: client, server: server, side: .server)
        #expect(clientStart != serverStart)
        var otherPort = client
        otherPort.port = 50_001
        #expect(TCPFlowSynthesizer.initialSequence(client: otherPort, server: server, side: .client) != clientStart)
        #expect(TCPFlowSynthesizer.initialSequence(client: server, server: client, side: .client) != clientStart)
    }

    @Test(arguments: [(0, [Int]()), (1, [1]), (1000, [1000]), (1001, [1000, 1]), (2500, [1000, 1000, 500])])
    func segmentationAtTheMaximum(count: Int, expected: [Int]) {
        var flow = flow(maximumSegment: 1000)
        _ = flow.open()
        let start = flow.nextSequence(from: .client)
        let packets = parsed(flow.data(payload(count), from: .client))
        #expect(packets.map(\.payload.count) == expected)
        #expect(packets.flatMap(\.payload) == payload(count))
        #expect(packets.map(\.sequence) == expected.indices.map { start &+ UInt32(expected[..<$0].reduce(0, +)) })
        #expect(packets.map(\.flags) == expected.indices.map { $0 == expected.count - 1 ? [.ack, .psh] : .ack })
        #expect(packets.allSatisfy { $0.isWellFormed && $0.acknowledgement == flow.nextSequence(from: .server) })
        #expect(flow.nextSequence(from: .client) == start &+ UInt32(count))
    }

    @Test(arguments: [65_495, 65_496])
    func largestDatagramFitsTheTotalLengthField(count: Int) {
        var flow = flow()
        let packets = parsed(flow.data(payload(count), from: .server))
        let data = Array(packets.dropFirst(3))
        #expect(data.map(\.payload.count) == (count == 65_495 ? [65_495] : [65_495, 1]))
        #expect(data.first?.totalLength == 65_535)
        #expect(data.allSatisfy { $0.isWellFormed })
    }

    @Test func acknowledgementsFollowWhatThePeerSent() {
        var flow = flow(maximumSegment: 4)
        _ = flow.open()
        let clientStart = flow.nextSequence(from: .client)
        let serverStart = flow.nextSequence(from: .server)
        let request = parsed(flow.data(payload(10), from: .client))
        let response = parsed(flow.data(payload(5), from: .server))
        let more = parsed(flow.data(payload(3), from: .client))
        #expect(request.map(\.acknowledgement) == [serverStart, serverStart, serverStart])
        #expect(response.map(\.sequence) == [serverStart, serverStart &+ 4])
        #expect(response.map(\.acknowledgement) == [clientStart &+ 10, clientStart &+ 10])
        #expect(more.map(\.sequence) == [clientStart &+ 10])
        #expect(more.map(\.acknowledgement) == [serverStart &+ 5])
        #expect(request.map(\.identification) == [3, 4, 5])
        #expect(response.map(\.identification) == [2, 3])
    }

    @Test func finConsumesOneSequenceNumberAndIsAcknowledged() throws {
        var flow = flow()
        _ = flow.open()
        _ = flow.data(payload(7), from: .client)
        let finAt = flow.nextSequence(from: .client)
        let serverAt = flow.nextSequence(from: .server)
        let fin = parsed(flow.finish(from: .client))
        try #require(fin.count == 2)
        #expect(fin.map(\.flags) == [[.fin, .ack], .ack])
        #expect(fin.map(\.sequence) == [finAt, serverAt])
        #expect(fin.map(\.acknowledgement) == [serverAt, finAt &+ 1])
        #expect(flow.nextSequence(from: .client) == finAt &+ 1)
        #expect(flow.finish(from: .client).isEmpty)
        #expect(flow.data(payload(3), from: .client).isEmpty)
        let reply = parsed(flow.data(payload(3), from: .server))
        #expect(reply.map(\.acknowledgement) == [finAt &+ 1])
        #expect(!flow.isClosed)
        let last = parsed(flow.finish(from: .server))
        #expect(last.map(\.sequence) == [serverAt &+ 3, finAt &+ 1])
        #expect(last.map(\.acknowledgement) == [finAt &+ 1, serverAt &+ 4])
        #expect(flow.isClosed)
        #expect(flow.reset(from: .client).isEmpty)
        #expect(fin.allSatisfy { $0.isWellFormed } && last.allSatisfy { $0.isWellFormed })
    }

    @Test func resetAfterDataCarriesTheNextSequenceAndEndsTheFlow() throws {
        var flow = flow(maximumSegment: 64)
        _ = flow.open()
        _ = flow.data(payload(100), from: .client)
        _ = flow.data(payload(20), from: .server)
        let clientAt = flow.nextSequence(from: .client)
        let rst = parsed(flow.reset(from: .client))
        try #require(rst.count == 1)
        #expect(rst[0].flags == [.rst, .ack])
        #expect(rst[0].sequence == clientAt)
        #expect(rst[0].acknowledgement == flow.nextSequence(from: .server))
        #expect(rst[0].isWellFormed && rst[0].payload.isEmpty)
        #expect(flow.isClosed)
        #expect(flow.data(payload(5), from: .server).isEmpty)
        #expect(flow.finish(from: .server).isEmpty)
        #expect(flow.reset(from: .server).isEmpty)
    }

    @Test func eventsBeforeOpenEmitTheHandshakeFirst() {
        var flow = flow()
        let packets = parsed(flow.data(payload(3), from: .client))
        #expect(packets.map(\.flags) == [.syn, [.syn, .ack], .ack, [.ack, .psh]])
        var reset = self.flow()
        #expect(parsed(reset.reset(from: .server)).map(\.flags) == [.syn, [.syn, .ack], .ack, [.rst, .ack]])
    }

    @Test func corruptedPacketFailsTheReferenceCheck() {
        var flow = flow()
        var packet = ParsedPacket(flow.data(payload(9), from: .client)[3])
        #expect(packet.isWellFormed)
        packet.bytes[45] ^= 0x01
        #expect(packet.ipChecksumIsValid && !packet.tcpChecksumIsValid)
        packet.bytes[45] ^= 0x01
        packet.bytes[8] = 63
        #expect(!packet.ipChecksumIsValid && packet.tcpChecksumIsValid)
    }

    @Test func endpointsPrintAsDottedQuads() {
        #expect(client.description == "127.0.0.1:50000")
        #expect(IPv4Endpoint(address: 0xC0A8_0A01, port: 8).octets == [192, 168, 10, 1])
        #expect(IPv4Endpoint(10, 0, 0, 1, port: 1) != IPv4Endpoint(10, 0, 0, 1, port: 2))
    }
}
