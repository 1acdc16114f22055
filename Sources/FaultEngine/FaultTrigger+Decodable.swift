extension FaultTrigger: Decodable {
    /// Reads `"on-match"` or an object with exactly one of `after`, `at-offset`, `after-response-bytes`,
    /// `window` (see `FaultTrigger`).
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            guard text == "on-match" else {
                throw FaultError(
                    .unknownTrigger, path: FieldReader.render(decoder.codingPath), "unknown trigger \"\(text)\"")
            }
            self = .onMatch
            return
        }
        let reader = try FieldReader(
            decoder, expected: "\"on-match\" or a trigger object such as {\"at-offset\": \"40%\"}")
        try reader.rejectUnknownKeys(
            allowed: ["after", "at-offset", "after-response-bytes", "window"], context: "a trigger")
        guard reader.keys.count == 1, let key = reader.keys.first else {
            throw FaultError(
                .unknownTrigger, path: FieldReader.render(decoder.codingPath), "a trigger has exactly one key")
        }
        self = try Self.decode(key, from: reader)
    }

    private static func decode(_ key: String, from reader: FieldReader) throws -> FaultTrigger {
        switch key {
        case "after":
            return .after(try reader.duration(key)!)
        case "at-offset":
            if let bytes = try? reader.decode(Int64.self, key, expected: "") {
                return .atOffset(.bytes(bytes))
            }
            let text = try reader.string(key)!
            return .atOffset(try UploadPosition.parse(text, path: reader.path(key)))
        case "after-response-bytes":
            return .afterResponseBytes(try reader.size(key)!)
        default:
            let window = try reader.decode(Window.self, key, expected: "an object {from, until}")!
            return .window(from: window.from, until: window.until)
        }
    }

    private struct Window: Decodable {
        let from: Duration
        let until: Duration

        init(from decoder: any Decoder) throws {
            let reader = try FieldReader(decoder, expected: "an object {from, until}")
            try reader.rejectUnknownKeys(allowed: ["from", "until"], context: "a window")
            from = try reader.duration("from") ?? .zero
            until = try reader.require(try reader.duration("until"), "until", expected: "a duration such as \"5s\"")
        }
    }
}
