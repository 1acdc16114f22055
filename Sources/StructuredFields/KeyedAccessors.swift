/// Typed reads by key from `Parameters` and `FieldDictionary`.
///
/// Each function returns nil when the key is absent and throws a `wrongType` `StructuredFieldError`
/// carrying the key and both type names when it is present with another type, e.g. `max-size="big"`.
public protocol KeyedAccessors {
    /// The type of a member.
    associatedtype Member: BareItemAccessors
    /// The member under `key`, or nil.
    subscript(key: String) -> Member? { get }
}

extension KeyedAccessors {
    /// The Integer under `key`; nil when absent.
    public func integer(_ key: String) throws(StructuredFieldError) -> Int64? {
        try read(key, .integer) { $0.integer }
    }

    /// The Decimal under `key`; nil when absent.
    public func decimal(_ key: String) throws(StructuredFieldError) -> StructuredDecimal? {
        try read(key, .decimal) { $0.decimal }
    }

    /// The String under `key`; nil when absent.
    public func string(_ key: String) throws(StructuredFieldError) -> String? {
        try read(key, .string) { $0.string }
    }

    /// The Token under `key`; nil when absent.
    public func token(_ key: String) throws(StructuredFieldError) -> String? {
        try read(key, .token) { $0.token }
    }

    /// The Byte Sequence under `key`; nil when absent.
    public func byteSequence(_ key: String) throws(StructuredFieldError) -> [UInt8]? {
        try read(key, .byteSequence) { $0.byteSequence }
    }

    /// The Boolean under `key`; nil when absent. A bare key (`a` in `a, b=2`) is `true`.
    public func boolean(_ key: String) throws(StructuredFieldError) -> Bool? {
        try read(key, .boolean) { $0.boolean }
    }

    private func read<Value>(
        _ key: String,
        _ expected: ValueKind,
        _ extract: (Member) -> Value?
    ) throws(StructuredFieldError) -> Value? {
        guard let member = self[key] else { return nil }
        guard let value = extract(member) else {
            throw .wrongType(expected: expected, actual: member.kind, key: key)
        }
        return value
    }
}
