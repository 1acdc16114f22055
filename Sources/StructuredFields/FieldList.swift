/// A List (RFC 8941 §3.1): ordered Items and Inner Lists, e.g. `sugar, tea, rum` or `("foo" "bar"), ()`.
///
/// An empty List serializes to the empty string; §3.1 says such a field is then not sent at all.
public struct FieldList: Hashable, Sendable, RandomAccessCollection, ExpressibleByArrayLiteral,
    CustomStringConvertible
{
    /// The members, in order.
    public var members: [ItemOrInnerList]

    /// A List of `members` (none by default).
    public init(_ members: [ItemOrInnerList] = []) {
        self.members = members
    }

    public init(arrayLiteral elements: ItemOrInnerList...) {
        self.init(elements)
    }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> ItemOrInnerList { members[position] }

    /// The serialized form, or an explanation when a member cannot be serialized.
    public var description: String { FieldWriter.render(self) }
}
