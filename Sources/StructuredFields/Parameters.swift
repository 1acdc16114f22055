/// Parameters (RFC 8941 §3.1.2): ordered key–value pairs after an Item or Inner List, e.g. `;a=1;b`.
///
/// Keys are lowercase keys (lcalpha or `*`, then lcalpha, DIGIT, `_`, `-`, `.`, `*`); the serializer checks
/// them. Setting an existing key replaces the value in its first position; setting nil removes it. A key
/// without a value (`;b`) is Boolean true.
public struct Parameters: Hashable, Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral,
    CustomStringConvertible, KeyedAccessors
{
    private var storage: OrderedMap<BareItem>

    /// No parameters.
    public init() {
        storage = OrderedMap()
    }

    /// The pairs in order; a repeated key keeps its first position and its last value.
    public init(_ pairs: some Sequence<(String, BareItem)>) {
        storage = OrderedMap(pairs)
    }

    public init(dictionaryLiteral elements: (String, BareItem)...) {
        self.init(elements)
    }

    /// The value under `key`, or nil.
    public subscript(key: String) -> BareItem? {
        get { storage[key] }
        set { storage[key] = newValue }
    }

    /// The keys in order.
    public var keys: [String] { storage.keys }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }

    public subscript(position: Int) -> (key: String, value: BareItem) {
        (storage.keys[position], storage.values[position])
    }

    /// The serialized form, e.g. `;a=1;b`, or an explanation when a key or value cannot be serialized.
    public var description: String { FieldWriter.render(self) }
}
