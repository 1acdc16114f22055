/// An Item (RFC 8941 §3.3): a Bare Item with Parameters, e.g. `5; foo=bar`.
///
/// Read typed values without pattern matching through `BareItemAccessors`: `item.integer`,
/// `try item.asInteger()`.
public struct Item: Hashable, Sendable, CustomStringConvertible {
    /// The value.
    public var bareItem: BareItem
    /// The parameters, in order.
    public var parameters: Parameters

    /// An Item holding `bareItem` with `parameters` (none by default).
    public init(_ bareItem: BareItem, parameters: Parameters = Parameters()) {
        self.bareItem = bareItem
        self.parameters = parameters
    }

    public var description: String { FieldWriter.render(self) }
}

/// An Inner List (RFC 8941 §3.1.1): Items in parentheses separated by spaces, with Parameters of its own,
/// e.g. `("foo" "bar");lvl=5`.
public struct InnerList: Hashable, Sendable, CustomStringConvertible {
    /// The items, in order; may be empty (`()`).
    public var items: [Item]
    /// The parameters of the Inner List as a whole.
    public var parameters: Parameters

    /// An Inner List of `items` with `parameters` (none by default).
    public init(_ items: [Item], parameters: Parameters = Parameters()) {
        self.items = items
        self.parameters = parameters
    }

    public var description: String { FieldWriter.render(self) }
}

/// A member of a List or a value of a Dictionary (RFC 8941 §3.1, §3.2): an Item or an Inner List.
public enum ItemOrInnerList: Hashable, Sendable, CustomStringConvertible {
    case item(Item)
    case innerList(InnerList)

    /// The Item, or nil for an Inner List.
    public var item: Item? {
        if case .item(let item) = self { item } else { nil }
    }

    /// The Inner List, or nil for an Item.
    public var innerList: InnerList? {
        if case .innerList(let list) = self { list } else { nil }
    }

    /// The parameters of the Item or of the Inner List.
    public var parameters: Parameters {
        switch self {
        case .item(let item): item.parameters
        case .innerList(let list): list.parameters
        }
    }

    /// The Inner List, or a `wrongType` error when this is an Item.
    public func asInnerList() throws(StructuredFieldError) -> InnerList {
        guard let innerList else { throw .wrongType(expected: .innerList, actual: kind) }
        return innerList
    }

    public var description: String { FieldWriter.render(self) }
}
