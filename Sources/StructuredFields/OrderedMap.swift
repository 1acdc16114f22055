/// Key–value pairs in insertion order with lookup by key: the storage of `Parameters` and `FieldDictionary`.
///
/// Setting an existing key replaces its value in place, keeping the key's first position, as RFC 8941
/// §4.2.2 and §4.2.3.2 require for duplicate keys.
struct OrderedMap<Value: Hashable & Sendable>: Hashable, Sendable {
    private(set) var keys: [String] = []
    private(set) var values: [Value] = []
    private var positions: [String: Int] = [:]

    init() {}

    init(_ pairs: some Sequence<(String, Value)>) {
        for (key, value) in pairs {
            self[key] = value
        }
    }

    var count: Int { keys.count }

    subscript(key: String) -> Value? {
        get { positions[key].map { values[$0] } }
        set {
            if let position = positions[key] {
                if let newValue {
                    values[position] = newValue
                } else {
                    remove(at: position)
                }
            } else if let newValue {
                positions[key] = keys.count
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    private mutating func remove(at position: Int) {
        positions[keys[position]] = nil
        keys.remove(at: position)
        values.remove(at: position)
        for index in position..<keys.count {
            positions[keys[index]] = index
        }
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}
