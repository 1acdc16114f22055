/// One HTTP header field as a name/value pair; lists of them keep their order and repeated names.
public struct HeaderField: Hashable, Sendable, Codable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// The same field with its name lower-cased, as the system stores response fields.
    public var lowercased: HeaderField {
        HeaderField(name.lowercased(), value)
    }
}

extension [HeaderField] {
    /// The value of the first field named `name` (compared without regard to ASCII case), if any.
    public func value(named name: String) -> String? {
        let wanted = name.lowercased()
        return first { $0.name.lowercased() == wanted }?.value
    }
}
