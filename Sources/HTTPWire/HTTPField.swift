/// One field line: a name and a value, exactly as received or to be sent (RFC 9110 §5).
///
/// The name keeps its original case; compare names with `hasName(_:)`, which ignores ASCII case. The value has no
/// leading or trailing whitespace. A received value is decoded as UTF-8; bytes that are not UTF-8 (obs-text) are
/// replaced with U+FFFD.
public struct HTTPField: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Whether this field's name is `name`, ignoring ASCII case.
    public func hasName(_ name: String) -> Bool {
        ByteClass.equalsIgnoringCase(self.name.utf8, name.utf8)
    }

    public var description: String {
        "\(name): \(value)"
    }
}
