/// One end of a synthesized TCP connection: an IPv4 address and a port.
///
/// The address is a number, most significant octet first: `127.0.0.1` is `0x7F00_0001`.
public struct IPv4Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// The address, most significant octet first.
    public var address: UInt32
    public var port: UInt16

    /// An endpoint from an address number and a port.
    public init(address: UInt32, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// An endpoint from the four octets of a dotted-quad address (`IPv4Endpoint(127, 0, 0, 1, port: 80)`).
    public init(_ first: UInt8, _ second: UInt8, _ third: UInt8, _ fourth: UInt8, port: UInt16) {
        let octets = [first, second, third, fourth]
        self.init(address: octets.reduce(0) { $0 << 8 | UInt32($1) }, port: port)
    }

    /// The four octets of the address, most significant first.
    public var octets: [UInt8] {
        [
            UInt8(truncatingIfNeeded: address >> 24), UInt8(truncatingIfNeeded: address >> 16),
            UInt8(truncatingIfNeeded: address >> 8), UInt8(truncatingIfNeeded: address),
        ]
    }

    /// `a.b.c.d:port`.
    public var description: String {
        octets.map { String($0) }.joined(separator: ".") + ":\(port)"
    }
}
