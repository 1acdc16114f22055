/// A Dictionary (RFC 8941 §3.2): ordered members, each a key and an Item or Inner List, e.g.
/// `max-size=1000, min-size=0, a, b=(1 2)`.
///
/// A key without a value (`a`) is the Boolean true. Parsing a repeated key keeps its first position and
/// its last value (§4.2.2); assigning does the same, and assigning nil removes the member. Typed reads by
/// key come from `KeyedAccessors`: `try dictionary.integer("max-size")`.
public struct FieldDictionary: Hashable, Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral,
    CustomStringConvertible, KeyedAccessors
{
    private var storage: OrderedMap<ItemOrInnerList>

    /// An empty Dictionary.
    public init() {
        storage = OrderedMap()
    }

    /// The members in order; a repeated key keeps its first position and its last value.
    public init(_ members: some Sequence<(String, ItemOrInnerList)>) {
        storage = OrderedMap(members)
    }

    public init(dictionaryLiteral elements: (String, ItemOrInnerList)...) {
        self.init(elements)
    }

    /// The member under `key`, or nil.
    public subscript(key: String) -> ItemOrInnerList? {
        get { storage[key] }
        set { storage[key] = newValue }
    }

    /// The keys in order.
    public var keys: [String] { storage.keys }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }

    public subscript(position: Int) -> (key: String, value: ItemOrInnerList) {
        (storage.keys[position], storage.values[position])
    }

    /// The Inner List under `key`; nil when absent, a `wrongType` error when it is an Item.
    public func innerList(_ key: String) throws(StructuredFieldError) -> InnerList? {
        guard let member = self[key] else { return nil }
        guard let list = member.innerList else {
            throw .wrongType(expected: .innerList, actual: member.kind, key: key)
        }
        return list
    }

    /// The serialized form, or an explanation when a member cannot be serialized.
    public var description: String { FieldWriter.render(self) }
}
