/// The fields of a head or trailer section: an ordered list that keeps the original names, case, order and
/// bytes, with case-insensitive lookup (RFC 9110 §5.2, §5.3).
///
/// ```swift
/// var fields: HTTPFields = ["Host": "example.com", "Upload-Complete": "?1"]
/// fields["upload-complete"]             // "?1"
/// fields.append(name: "Accept", value: "text/plain")
/// fields.listValues(for: "accept")      // ["text/plain"]
/// ```
///
/// Names and values are stored as the bytes received (one buffer per section), and Strings are made only when
/// asked for: parsing stays cheap, and a parsed head serializes byte for byte, even with obs-text in a value.
public struct HTTPFields: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    /// Where one field's name and value sit in `bytes`.
    struct Entry: Sendable {
        private let offsets: (UInt32, UInt32, UInt32, UInt32)

        /// Offsets are below 4 GiB: the bytes of one field section.
        init(nameStart: Int, nameEnd: Int, valueStart: Int, valueEnd: Int) {
            precondition(valueEnd <= UInt32.max, "a field section holds at most 4 GiB")
            offsets = (UInt32(nameStart), UInt32(nameEnd), UInt32(valueStart), UInt32(valueEnd))
        }

        var name: Range<Int> { Int(offsets.0)..<Int(offsets.1) }
        var value: Range<Int> { Int(offsets.2)..<Int(offsets.3) }
    }

    /// Names and values back to back; removed fields leave garbage until the next compaction.
    var bytes: [UInt8] = []
    var entries: [Entry] = []

    public init() {}

    public init(_ fields: [HTTPField]) {
        for field in fields { append(field) }
    }

    /// Fields in literal order; a name may repeat.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { append(name: name, value: value) }
    }

    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }

    public subscript(position: Int) -> HTTPField {
        HTTPField(name: string(entries[position].name), value: value(at: position))
    }

    /// The value of the first field named `name` (ignoring case). Setting a value replaces the first such field
    /// in place and removes the others (or appends one if there is none); setting nil removes them all.
    public subscript(name: String) -> String? {
        get { entries.indices.first { hasName(at: $0, name) }.map(value(at:)) }
        set {
            if let newValue { set(newValue, for: name) } else { remove(name) }
        }
    }

    /// The value of every field named `name`, in order, one per field line.
    public func values(for name: String) -> [String] {
        entries.indices.filter { hasName(at: $0, name) }.map(value(at:))
    }

    /// The list elements of every field named `name` (RFC 9110 §5.6.1): values split on commas outside quoted
    /// strings, trimmed, empty elements dropped. Not for fields whose values contain commas, such as Set-Cookie.
    public func listValues(for name: String) -> [String] {
        var elements: [String] = []
        bytes.withUnsafeBufferPointer { buffer in
            for entry in entries where hasName(entry, name) {
                let value = UnsafeBufferPointer(rebasing: buffer[entry.value])
                for range in ByteClass.listElements(value) {
                    elements.append(String(decoding: UnsafeBufferPointer(rebasing: value[range]), as: UTF8.self))
                }
            }
        }
        return elements
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        entries.contains { hasName($0, name) }
    }

    public mutating func append(_ field: HTTPField) {
        append(name: field.name, value: field.value)
    }

    public mutating func append(name: String, value: String) {
        append(nameBytes: name.utf8, valueBytes: value.utf8)
    }

    /// Gives `name` the single value `value`: the first such field keeps its place, later ones are removed.
    public mutating func set(_ value: String, for name: String) {
        guard let first = entries.indices.first(where: { hasName(at: $0, name) }) else {
            append(name: name, value: value)
            return
        }
        let originalName = string(entries[first].name)
        append(name: originalName, value: value)
        let replacement = entries.removeLast()
        entries[first] = replacement
        let bytes = bytes
        let rest = entries[(first + 1)...].filter { !Self.hasName($0, name, in: bytes) }
        entries.replaceSubrange((first + 1)..., with: rest)
        compactIfWasteful()
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        let bytes = bytes
        entries.removeAll { Self.hasName($0, name, in: bytes) }
        compactIfWasteful()
    }

    public var description: String {
        indices.map { self[$0].description }.joined(separator: "\r\n")
    }

    public static func == (lhs: HTTPFields, rhs: HTTPFields) -> Bool {
        lhs.count == rhs.count
            && zip(lhs.entries, rhs.entries).allSatisfy { left, right in
                lhs.bytes[left.name] == rhs.bytes[right.name] && lhs.bytes[left.value] == rhs.bytes[right.value]
            }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries.count)
        for entry in entries {
            hasher.combine(bytes[entry.name])
            hasher.combine(bytes[entry.value])
        }
    }

    private func value(at position: Int) -> String {
        string(entries[position].value)
    }

    private func string(_ range: Range<Int>) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    private func hasName(at position: Int, _ name: String) -> Bool {
        hasName(entries[position], name)
    }

    private func hasName(_ entry: Entry, _ name: String) -> Bool {
        Self.hasName(entry, name, in: bytes)
    }

    private static func hasName(_ entry: Entry, _ name: String, in bytes: [UInt8]) -> Bool {
        guard name.utf8.count == entry.name.count else { return false }
        var index = entry.name.lowerBound
        for byte in name.utf8 {
            guard ByteClass.lowercased(byte) == ByteClass.lowercased(bytes[index]) else { return false }
            index += 1
        }
        return true
    }

    /// Drops the bytes of removed fields once they outweigh the live ones.
    private mutating func compactIfWasteful() {
        let live = entries.reduce(0) { $0 + $1.name.count + $1.value.count }
        guard bytes.count > 2 * live + 256 else { return }
        let old = self
        self = HTTPFields()
        old.forEachField { name, value in append(nameBytes: name, valueBytes: value) }
    }
}
