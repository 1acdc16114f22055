/// Application-Layer Protocol Negotiation (RFC 7301): the wire list and the server's choice.
enum ALPN {
    /// Encodes protocol names as a ProtocolNameList (RFC 7301 §3.1): each name prefixed by its length,
    /// which must be 1 to 255 bytes.
    static func encode(_ protocols: [String]) throws -> [UInt8] {
        var wire: [UInt8] = []
        for name in protocols {
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else {
                throw TLSError(.configuration, "ALPN protocol name '\(name)' must be 1 to 255 bytes")
            }
            wire.append(UInt8(bytes.count))
            wire.append(contentsOf: bytes)
        }
        return wire
    }

    /// The range, inside the client's wire list, of the first server-preferred name the client offered;
    /// nil when there is no overlap or the client's list is malformed.
    static func select(preferred: [[UInt8]], offered: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var names: [Range<Int>] = []
        var index = 0
        while index < offered.count {
            let length = Int(offered[index])
            let end = index + 1 + length
            guard length > 0, end <= offered.count else { return nil }
            names.append((index + 1)..<end)
            index = end
        }
        for wanted in preferred {
            if let match = names.first(where: { offered[$0].elementsEqual(wanted) }) {
                return match
            }
        }
        return nil
    }
}
