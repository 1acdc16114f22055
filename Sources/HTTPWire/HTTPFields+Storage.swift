/// The storage of `HTTPFields`: names and values, then a table of entries, in one byte buffer.
extension HTTPFields {
    /// Where one field's name and value sit in the storage; offsets below 4 GiB.
    struct Entry: Sendable {
        private let nameStart: UInt32
        private let nameEnd: UInt32
        private let valueStart: UInt32
        private let valueEnd: UInt32

        init(nameStart: Int, nameEnd: Int, valueStart: Int, valueEnd: Int) {
            precondition(nameStart >= 0 && valueEnd <= UInt32.max, "a field section holds at most 4 GiB")
            self.nameStart = UInt32(truncatingIfNeeded: nameStart)
            self.nameEnd = UInt32(truncatingIfNeeded: nameEnd)
            self.valueStart = UInt32(truncatingIfNeeded: valueStart)
            self.valueEnd = UInt32(truncatingIfNeeded: valueEnd)
        }

        var name: Range<Int> { Int(nameStart)..<Int(nameEnd) }
        var value: Range<Int> { Int(valueStart)..<Int(valueEnd) }
    }

    /// The fields of a parsed section: its bytes, and entries that point into them. One allocation.
    init(section: UnsafeBufferPointer<UInt8>, entries: [Entry]) {
        storage.reserveCapacity(section.count + entries.count * MemoryLayout<Entry>.size)
        storage.append(contentsOf: section)
        entries.withUnsafeBytes { storage.append(contentsOf: $0) }
        tableStart = section.count
    }

    func entry(at position: Int) -> Entry {
        precondition(indices.contains(position), "field index out of range")
        return storage.withUnsafeBytes {
            $0.loadUnaligned(fromByteOffset: tableStart + position * MemoryLayout<Entry>.size, as: Entry.self)
        }
    }

    /// Appends a field: its bytes go before the table, its entry at the end.
    mutating func append(nameBytes: some Collection<UInt8>, valueBytes: some Collection<UInt8>) {
        let nameStart = tableStart
        storage.insert(contentsOf: nameBytes, at: tableStart)
        tableStart += nameBytes.count
        storage.insert(contentsOf: valueBytes, at: tableStart)
        tableStart += valueBytes.count
        let entry = Entry(
            nameStart: nameStart, nameEnd: nameStart + nameBytes.count, valueStart: tableStart - valueBytes.count,
            valueEnd: tableStart)
        withUnsafeBytes(of: entry) { storage.append(contentsOf: $0) }
    }

    /// Calls `body` with the name and value bytes of each field, in order.
    func forEachField<E: Error>(
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws(E) -> Void
    ) throws(E) {
        try storage.withUnsafeBufferPointer { (buffer) throws(E) in
            for index in indices {
                let entry = entry(at: index)
                try body(
                    UnsafeBufferPointer(rebasing: buffer[entry.name]),
                    UnsafeBufferPointer(rebasing: buffer[entry.value]))
            }
        }
    }

    /// Fields made by `body` from each field's position, name and value, into a new, compact storage.
    func rebuilt(
        _ body: (Int, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, inout HTTPFields) -> Void
    ) -> HTTPFields {
        var result = HTTPFields()
        var index = 0
        forEachField { name, value in
            body(index, name, value, &result)
            index += 1
        }
        return result
    }

    /// Writes each field as `name: value` CRLF (RFC 9112 §5), the bytes as stored.
    func write(to buffer: inout [UInt8]) {
        forEachField { name, value in
            buffer.append(contentsOf: name)
            buffer.append(ByteClass.colon)
            buffer.append(ByteClass.space)
            buffer.append(contentsOf: value)
            buffer.append(ByteClass.carriageReturn)
            buffer.append(ByteClass.lineFeed)
        }
    }

    func string(_ range: Range<Int>) -> String {
        storage.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// The position of the first field named `name`, ignoring case.
    func firstIndex(named name: String) -> Int? {
        indices.first { hasName(at: $0, name) }
    }

    func hasName(at position: Int, _ name: String) -> Bool {
        ByteClass.equalsIgnoringCase(storage[entry(at: position).name], name.utf8)
    }
}
