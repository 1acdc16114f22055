import HTTPWire

/// The head actions: `rewrite-header` changes a forwarded head's field (`requestHead`, `responseHead` apply it),
/// `strip-interim` drops an interim head there.
extension ConnectionFlow {
    static func rewrite(_ fields: inout HTTPFields, name: String, value: String?) {
        if let value { fields.set(value, for: name) } else { fields.remove(name) }
    }
}
