import ProxyFlow

/// A value for each side of a connection, without a dictionary's hashing on the hot path.
struct BothSides<Value> {
    var client: Value
    var upstream: Value

    init(client: Value, upstream: Value) {
        self.client = client
        self.upstream = upstream
    }

    init(_ value: Value) {
        self.init(client: value, upstream: value)
    }

    subscript(side: FlowSide) -> Value {
        get { side == .client ? client : upstream }
        set {
            if side == .client { client = newValue } else { upstream = newValue }
        }
    }
}
