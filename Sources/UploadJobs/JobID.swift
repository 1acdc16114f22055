/// A job's local identifier (PhotoKit: the placeholder's `localIdentifier`), written `job-N`.
///
/// The store hands them out in creation order starting at `job-1` and never reuses one, not even after the job
/// is acknowledged, so the ledger can keep every job's history under its id. Ids order by creation.
public struct JobID: Hashable, Comparable, Sendable, Codable, CodingKeyRepresentable, CustomStringConvertible {
    /// The creation number: 1 for the store's first job.
    public let number: Int

    public init(_ number: Int) {
        self.number = number
    }

    /// Parses `job-N` (N a positive decimal number); nil for anything else.
    public init?(parsing text: String) {
        guard text.hasPrefix("job-"), let number = Int(text.dropFirst(4)), number > 0,
            text.dropFirst(4).allSatisfy(\.isASCII)
        else { return nil }
        self.number = number
    }

    public var description: String {
        "job-\(number)"
    }

    public static func < (lhs: JobID, rhs: JobID) -> Bool {
        lhs.number < rhs.number
    }

    /// Decodes the `job-N` string form.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = JobID(parsing: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a job id (job-N)"))
        }
        self = id
    }

    /// Encodes the `job-N` string form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// The `job-N` form as a dictionary key.
    public var codingKey: any CodingKey {
        JobIDKey(stringValue: description)
    }

    public init?<Key: CodingKey>(codingKey: Key) {
        self.init(parsing: codingKey.stringValue)
    }
}

/// The coding key of a `JobID` used as a dictionary key.
private struct JobIDKey: CodingKey {
    let stringValue: String

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    var intValue: Int? { nil }

    init?(intValue: Int) {
        nil
    }
}
