extension TCPFlowSynthesizer {
    /// The handshake's packets as arrays (an allocation per packet: for tests and small captures).
    public mutating func open() -> [[UInt8]] {
        var packets: [[UInt8]] = []
        open { packets.append(Array($0)) }
        return packets
    }

    /// The packets of `bytes` sent by `side`, as arrays.
    public mutating func data(_ bytes: [UInt8], from side: Side) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        bytes.withUnsafeBytes { raw in data(raw, from: side) { packets.append(Array($0)) } }
        return packets
    }

    /// The packets of `side`'s FIN and its acknowledgement, as arrays.
    public mutating func finish(from side: Side) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        finish(from: side) { packets.append(Array($0)) }
        return packets
    }

    /// The packet of `side`'s reset, as an array.
    public mutating func reset(from side: Side) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        reset(from: side) { packets.append(Array($0)) }
        return packets
    }
}
