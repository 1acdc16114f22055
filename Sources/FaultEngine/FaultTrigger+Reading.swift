import SquallCore

extension FaultTrigger {
    static let triggerKeys = ["after", "after-response-bytes", "at-offset", "window"]

    /// The trigger `value` holds (see `read(_:path:)`).
    public init(_ value: JSONValue, path: String = "") throws(FaultError) {
        self = try FaultError.reading { try Self.read(value, path: path) }
    }

    /// Reads `"on-match"` or an object with exactly one of `after`, `at-offset`, `after-response-bytes`,
    /// `window` (see `FaultTrigger`) at `path`; `at-offset` may have `announcement` keys beside it.
    static func read(_ value: JSONValue, path: String) throws -> FaultTrigger {
        if case .string(let text) = value {
            guard text == "on-match" else {
                throw FaultError(.unknownTrigger, path: path, "unknown trigger \"\(text)\"")
            }
            return .onMatch
        }
        let reader = try JSONFieldReader(
            value, path: path, expected: "\"on-match\" or a trigger object such as {\"at-offset\": \"40%\"}")
        try reader.rejectUnknownKeys(triggerKeys + Announcement.keys, context: "a trigger")
        let keys = reader.keys.filter { !Announcement.keys.contains($0) }
        guard keys.count == 1, let key = keys.first else {
            throw FaultError(.unknownTrigger, path: path, "a trigger has exactly one key")
        }
        if key != "at-offset", let extra = Announcement.keys.first(where: reader.has) {
            throw FaultError(
                .notApplicable, path: reader.path(extra), "\(extra) goes with at-offset only, not with \(key)")
        }
        return try read(key, from: reader)
    }

    private static func read(_ key: String, from reader: JSONFieldReader) throws -> FaultTrigger {
        let value = reader.members[key]!
        let path = reader.path(key)
        switch key {
        case "after":
            return .after(try value.duration(at: path))
        case "at-offset":
            let announcement = try Announcement.read(reader)
            if case .integer(let bytes) = value { return .atOffset(.bytes(bytes), announcement: announcement) }
            let text = try value.string(at: path)
            return .atOffset(try UploadPosition.parse(text, path: path), announcement: announcement)
        case "after-response-bytes":
            return .afterResponseBytes(try value.size(at: path))
        default:
            let window = try JSONFieldReader(value, path: path, expected: "an object {from, until}")
            try window.rejectUnknownKeys(["from", "until"], context: "a window")
            let from = try window.duration("from") ?? .zero
            let until = try window.require(try window.duration("until"), "until", expected: "a duration such as \"5s\"")
            return .window(from: from, until: until)
        }
    }
}
