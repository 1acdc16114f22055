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
/// Names and values are kept as bytes, in one buffer with their index, and Strings are made only when asked for:
/// a parsed section costs one allocation, and a parsed head serializes byte for byte, even with obs-text in a
/// value (decoded as UTF-8 in Strings, invalid bytes replaced by U+FFFD).
public struct HTTPFields: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    /// Names and values, then, from `tableStart` on, one `Entry` per field saying where they are.
    var storage: [UInt8] = []
    var tableStart = 0

    public init() {}

    public init(_ fields: [HTTPField]) {
        for field in fields { append(field) }
    }

    /// Fields in literal order; a name may repeat.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { append(name: name, value: value) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { (storage.count - tableStart) / MemoryLayout<Entry>.size }

    /// The heap bytes the section holds: its one buffer's capacity and allocation header (none when empty).
    public var footprint: Int { storage.capacity == 0 ? 0 : storage.capacity + 32 }

    public subscript(position: Int) -> HTTPField {
        let entry = entry(at: position)
        return HTTPField(name: string(entry.name), value: string(entry.value))
    }

    /// The value of the first field named `name` (ignoring case). Setting a value replaces the first such field
    /// in place and removes the others (or appends one if there is none); setting nil removes them all.
    public subscript(name: String) -> String? {
        get { firstIndex(named: name).map { string(entry(at: $0).value) } }
        set {
            if let newValue { set(newValue, for: name) } else { remove(name) }
        }
    }

    /// The value of every field named `name`, in order, one per field line.
    public func values(for name: String) -> [String] {
        indices.filter { hasName(at: $0, name) }.map { string(entry(at: $0).value) }
    }

    /// The list elements of every field named `name` (RFC 9110 §5.6.1): values split on commas outside quoted
    /// strings, trimmed, empty elements dropped. Not for fields whose values contain commas, such as Set-Cookie.
    public func listValues(for name: String) -> [String] {
        var elements: [String] = []
        storage.withUnsafeBufferPointer { buffer in
            for index in indices where hasName(at: index, name) {
                let value = UnsafeBufferPointer(rebasing: buffer[entry(at: index).value])
                for range in ByteClass.listElements(value) {
                    elements.append(String(decoding: UnsafeBufferPointer(rebasing: value[range]), as: UTF8.self))
                }
            }
        }
        return elements
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        firstIndex(named: name) != nil
    }

    public mutating func append(_ field: HTTPField) {
        append(name: field.name, value: field.value)
    }

    public mutating func append(name: String, value: String) {
        append(nameBytes: name.utf8, valueBytes: value.utf8)
    }

    /// Gives `name` the single value `value`: the first such field keeps its place (and its name's case), later
    /// ones are removed; appended if there is none.
    public mutating func set(_ value: String, for name: String) {
        guard let first = firstIndex(named: name) else {
            append(name: name, value: value)
            return
        }
        self = rebuilt { index, fieldName, fieldValue, result in
            if index == first {
                result.append(nameBytes: fieldName, valueBytes: value.utf8)
            } else if !ByteClass.equalsIgnoringCase(fieldName, name.utf8) {
                result.append(nameBytes: fieldName, valueBytes: fieldValue)
            }
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        guard contains(name) else { return }
        self = rebuilt { _, fieldName, fieldValue, result in
            if !ByteClass.equalsIgnoringCase(fieldName, name.utf8) {
                result.append(nameBytes: fieldName, valueBytes: fieldValue)
            }
        }
    }

    public var description: String {
        map(\.description).joined(separator: "\r\n")
    }

    public static func == (lhs: HTTPFields, rhs: HTTPFields) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.indices.allSatisfy { index in
            let left = lhs.entry(at: index)
            let right = rhs.entry(at: index)
            return lhs.storage[left.name] == rhs.storage[right.name]
                && lhs.storage[left.value] == rhs.storage[right.value]
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for index in indices {
            let entry = entry(at: index)
            hasher.combine(storage[entry.name])
            hasher.combine(storage[entry.value])
        }
    }
}
