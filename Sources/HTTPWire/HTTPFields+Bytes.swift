/// Byte-level access for the parser, the serializer and framing: no Strings involved.
extension HTTPFields {
    /// Fields whose names and values sit in `bytes` where `entries` say (a parsed section, copied once).
    init(bytes: [UInt8], entries: [Entry]) {
        self.bytes = bytes
        self.entries = entries
    }

    mutating func append(nameBytes: some Collection<UInt8>, valueBytes: some Collection<UInt8>) {
        let nameStart = bytes.count
        bytes.append(contentsOf: nameBytes)
        let valueStart = bytes.count
        bytes.append(contentsOf: valueBytes)
        entries.append(Entry(nameStart: nameStart, nameEnd: valueStart, valueStart: valueStart, valueEnd: bytes.count))
    }

    /// Calls `body` with the name and value bytes of each field, in order.
    func forEachField<E: Error>(
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws(E) -> Void
    ) throws(E) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(E) in
            for entry in entries {
                try body(
                    UnsafeBufferPointer(rebasing: buffer[entry.name]),
                    UnsafeBufferPointer(rebasing: buffer[entry.value]))
            }
        }
    }

    /// Writes each field as `name: value` CRLF (RFC 9112 §5), the bytes as stored.
    func write(to buffer: inout [UInt8]) {
        for entry in entries {
            buffer.append(contentsOf: bytes[entry.name])
            buffer.append(ByteClass.colon)
            buffer.append(ByteClass.space)
            buffer.append(contentsOf: bytes[entry.value])
            buffer.append(ByteClass.carriageReturn)
            buffer.append(ByteClass.lineFeed)
        }
    }
}
