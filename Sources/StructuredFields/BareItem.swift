/// A Bare Item (RFC 8941 §3.3): the value of an Item or a Parameter, without parameters.
public enum BareItem: Hashable, Sendable, CustomStringConvertible {
    /// An Integer (§3.3.1): at most 15 decimal digits, −999,999,999,999,999 … 999,999,999,999,999.
    case integer(Int64)
    /// A Decimal (§3.3.2): at most 12 integer digits and 3 fractional digits.
    case decimal(StructuredDecimal)
    /// A String (§3.3.3): printable ASCII (%x20-7E) only; serialized in quotes with `\"` and `\\` escapes.
    case string(String)
    /// A Token (§3.3.4): starts with ALPHA or `*`, then tchar, `:` or `/`; serialized bare, e.g. `foo123/456`.
    case token(String)
    /// A Byte Sequence (§3.3.5): arbitrary bytes, serialized as `:base64:`.
    case byteSequence([UInt8])
    /// A Boolean (§3.3.6): serialized `?1` or `?0`.
    case boolean(Bool)

    public var description: String { FieldWriter.render(self) }
}

/// The type of a Structured Field value, named as RFC 8941 names it; used in `wrongType` errors.
public enum ValueKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case integer = "Integer"
    case decimal = "Decimal"
    case string = "String"
    case token = "Token"
    case byteSequence = "Byte Sequence"
    case boolean = "Boolean"
    case innerList = "Inner List"

    public var description: String { rawValue }
}

extension BareItem {
    /// The type of this value.
    public var kind: ValueKind {
        switch self {
        case .integer: .integer
        case .decimal: .decimal
        case .string: .string
        case .token: .token
        case .byteSequence: .byteSequence
        case .boolean: .boolean
        }
    }
}
