/// The connection options of a head's `Connection` fields that decide persistence (RFC 9112 §9.3, §9.6).
struct ConnectionOptions {
    var close = false
    var keepAlive = false

    init() {}

    init(_ fields: HTTPFields) {
        fields.forEachField { name, value in
            if ByteClass.equalsIgnoringCase(name, "connection") { add(value) }
        }
    }

    /// Records the options of one `Connection` field value (a list of tokens, case-insensitive).
    mutating func add(_ value: UnsafeBufferPointer<UInt8>) {
        ByteClass.forEachElement(value) { range in
            let option = UnsafeBufferPointer(rebasing: value[range])
            if ByteClass.equalsIgnoringCase(option, "close") {
                close = true
            } else if ByteClass.equalsIgnoringCase(option, "keep-alive") {
                keepAlive = true
            }
        }
    }

    /// Whether the connection persists after a message of `version` with these options.
    func persists(version: HTTPVersion) -> Bool {
        if close { return false }
        return version >= .http11 || keepAlive
    }
}
