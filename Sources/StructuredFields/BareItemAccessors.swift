/// Typed reads of a value that may hold a Bare Item: `BareItem`, `Item` and `ItemOrInnerList`.
///
/// Each property returns nil when the value has another type; each `as…()` function throws a `wrongType`
/// `StructuredFieldError` naming the expected and actual types instead.
public protocol BareItemAccessors {
    /// The Bare Item held, or nil for an Inner List.
    var heldBareItem: BareItem? { get }
    /// The type of the value held.
    var kind: ValueKind { get }
}

extension BareItem: BareItemAccessors {
    public var heldBareItem: BareItem? { self }
}

extension Item: BareItemAccessors {
    public var heldBareItem: BareItem? { bareItem }
    public var kind: ValueKind { bareItem.kind }
}

extension ItemOrInnerList: BareItemAccessors {
    public var heldBareItem: BareItem? { item?.bareItem }
    public var kind: ValueKind { item?.bareItem.kind ?? .innerList }
}

extension BareItemAccessors {
    /// The Integer, or nil for another type.
    public var integer: Int64? {
        if case .integer(let value)? = heldBareItem { value } else { nil }
    }

    /// The Decimal, or nil for another type (an Integer is not converted).
    public var decimal: StructuredDecimal? {
        if case .decimal(let value)? = heldBareItem { value } else { nil }
    }

    /// The String, or nil for another type (a Token is not a String).
    public var string: String? {
        if case .string(let value)? = heldBareItem { value } else { nil }
    }

    /// The Token, or nil for another type.
    public var token: String? {
        if case .token(let value)? = heldBareItem { value } else { nil }
    }

    /// The Byte Sequence, or nil for another type.
    public var byteSequence: [UInt8]? {
        if case .byteSequence(let value)? = heldBareItem { value } else { nil }
    }

    /// The Boolean, or nil for another type.
    public var boolean: Bool? {
        if case .boolean(let value)? = heldBareItem { value } else { nil }
    }

    /// The Integer, or a `wrongType` error.
    public func asInteger() throws(StructuredFieldError) -> Int64 { try require(integer, .integer) }

    /// The Decimal, or a `wrongType` error.
    public func asDecimal() throws(StructuredFieldError) -> StructuredDecimal { try require(decimal, .decimal) }

    /// The String, or a `wrongType` error.
    public func asString() throws(StructuredFieldError) -> String { try require(string, .string) }

    /// The Token, or a `wrongType` error.
    public func asToken() throws(StructuredFieldError) -> String { try require(token, .token) }

    /// The Byte Sequence, or a `wrongType` error.
    public func asByteSequence() throws(StructuredFieldError) -> [UInt8] {
        try require(byteSequence, .byteSequence)
    }

    /// The Boolean, or a `wrongType` error.
    public func asBoolean() throws(StructuredFieldError) -> Bool { try require(boolean, .boolean) }

    private func require<Value>(_ value: Value?, _ expected: ValueKind) throws(StructuredFieldError) -> Value {
        guard let value else { throw .wrongType(expected: expected, actual: kind) }
        return value
    }
}
