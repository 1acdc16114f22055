import SquallCore

/// Writes faults back in the scenario vocabulary that `FaultRule(_:path:)` reads, so that
/// `decode(encode(rule)) == rule` for every rule a scenario file or the control API can describe.
///
/// Defaults are left out (`match` when it matches everything, `trigger` when `on-match`, `direction` when it is
/// the action's default, `times` when unlimited, `probability` when 1, `optional` when false, and each action's
/// defaulted keys). Durations are written with the largest unit that keeps them exact (`"250ms"`, `"2s"`, `"1m"`);
/// sizes as a string with the largest binary unit that keeps them exact (`"64KiB"`), else as whole bytes;
/// percentages as `"40%"` or `"12.5%"`, with the decimals they were read with.
///
/// Encoding fails (`EncodingError.invalidValue`) only for a duration that is negative or finer than a microsecond,
/// which the vocabulary cannot write; no decoded rule has one.
extension FaultRule: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(name, forKey: AnyKey("name"))
        if match != FaultMatch() { try container.encode(match, forKey: AnyKey("match")) }
        if trigger != .onMatch { try container.encode(trigger, forKey: AnyKey("trigger")) }
        try container.encode(action.name, forKey: AnyKey("action"))
        try action.encodeKeys(into: &container)
        if direction != action.defaultDirection {
            try container.encode(direction.rawValue, forKey: AnyKey("direction"))
        }
        if let times { try container.encode(times, forKey: AnyKey("times")) }
        if probability != 1 { try container.encode(probability, forKey: AnyKey("probability")) }
        if optional { try container.encode(true, forKey: AnyKey("optional")) }
    }
}

extension FaultAction {
    /// Writes the action's own keys beside the rule's (see `decode(named:from:)`), leaving defaults out.
    func encodeKeys(into container: inout KeyedEncodingContainer<AnyKey>) throws {
        var writer = KeyWriter(container: container)
        try family.encode(self, &writer)
        container = writer.container
    }
}

extension FaultMatch: Encodable {
    /// Writes the criteria that are set, with the keys `FaultMatch.read(_:path:)` reads.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        if let method { try container.encode(method.rawValue, forKey: AnyKey("method")) }
        if let path { try container.encode(path.pattern, forKey: AnyKey("path")) }
        if let header { try container.encode(header, forKey: AnyKey("header")) }
        if let interop { try container.encode(interop, forKey: AnyKey("interop")) }
        if let nthConnection { try container.encode(nthConnection, forKey: AnyKey("nth-connection")) }
        if let nthRequest { try container.encode(nthRequest, forKey: AnyKey("nth-request")) }
    }
}

extension HeaderMatch: Encodable {
    /// Writes `{"name": …, "value": …}`, leaving out the default value `*`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(name, forKey: AnyKey("name"))
        if value.pattern != "*" { try container.encode(value.pattern, forKey: AnyKey("value")) }
    }
}

extension FaultTrigger: Encodable {
    /// Writes `"on-match"` or the object `FaultTrigger.read(_:path:)` reads (one key, and for `at-offset` its
    /// announcement keys unless they are the default).
    public func encode(to encoder: any Encoder) throws {
        if case .onMatch = self {
            var single = encoder.singleValueContainer()
            try single.encode(name)
            return
        }
        var writer = KeyWriter(container: encoder.container(keyedBy: AnyKey.self))
        switch self {
        case .onMatch:
            return
        case .after(let delay):
            try writer.duration(name, delay)
        case .atOffset(.bytes(let bytes), let announcement):
            try writer.size(name, bytes)
            try announcement.encode(into: &writer)
        case .atOffset(.fraction(let numerator, let denominator), let announcement):
            try writer.string(name, UploadPosition.percentText(numerator: numerator, denominator: denominator))
            try announcement.encode(into: &writer)
        case .afterResponseBytes(let bytes):
            try writer.size(name, bytes)
        case .window(let from, let until):
            var window = writer.container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(name))
            try window.encode(try DurationText.exactText(from), forKey: AnyKey("from"))
            try window.encode(try DurationText.exactText(until), forKey: AnyKey("until"))
        }
    }
}

extension UploadPosition {
    /// `"40%"` for 40/100, `"12.5%"` for 125/1000: as many decimals as the denominator has zeros beyond 100.
    public static func percentText(numerator: Int64, denominator: Int64) -> String {
        var scale: Int64 = 1
        var decimals = 0
        while denominator / scale > 100 {
            scale *= 10
            decimals += 1
        }
        let whole = String(numerator / scale)
        guard decimals > 0 else { return whole + "%" }
        let fraction = String(numerator % scale)
        return whole + "." + String(repeating: "0", count: decimals - fraction.count) + fraction + "%"
    }
}

extension DurationText {
    /// `DurationText.format(duration)`, or `EncodingError.invalidValue` for a duration the grammar cannot write.
    static func exactText(_ duration: Duration) throws -> String {
        guard let text = format(duration) else {
            let context = EncodingError.Context(codingPath: [], debugDescription: "\(duration) has no exact text")
            throw EncodingError.invalidValue(duration, context)
        }
        return text
    }
}

/// A coding key for any JSON object key.
struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        self.stringValue = string
        self.intValue = nil
    }

    init?(stringValue: String) {
        self.init(stringValue)
    }

    init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// Writes typed values under string keys, in the vocabulary's units.
struct KeyWriter {
    var container: KeyedEncodingContainer<AnyKey>

    mutating func string(_ key: String, _ value: String) throws {
        try container.encode(value, forKey: AnyKey(key))
    }

    mutating func integer(_ key: String, _ value: Int64) throws {
        try container.encode(value, forKey: AnyKey(key))
    }

    mutating func bool(_ key: String, _ value: Bool) throws {
        try container.encode(value, forKey: AnyKey(key))
    }

    mutating func duration(_ key: String, _ value: Duration?) throws {
        guard let value else { return }
        try container.encode(try DurationText.exactText(value), forKey: AnyKey(key))
    }

    /// `"64KiB"`, `"8MiB"` when a binary unit divides the size exactly, else whole bytes.
    mutating func size(_ key: String, _ bytes: Int64) throws {
        if let text = ByteSize.binaryText(bytes) {
            try container.encode(text, forKey: AnyKey(key))
        } else {
            try container.encode(bytes, forKey: AnyKey(key))
        }
    }

    mutating func response(_ response: FaultResponse) throws {
        try container.encode(response.status, forKey: AnyKey("status"))
        if !response.fields.isEmpty {
            var headers = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("headers"))
            for field in response.fields { try headers.encode(field.value, forKey: AnyKey(field.name)) }
        }
        if !response.body.isEmpty { try string("body", response.body) }
    }
}
