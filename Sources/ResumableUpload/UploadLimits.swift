import StructuredFields

/// The limits a server announces in `Upload-Limit` (an sf-Dictionary, draft -04, interop 6), all optional.
///
/// Keys: `max-size` (whole upload), `min-size` (threshold for resumability), `max-append-size` and
/// `min-append-size` (per creation or append request content), and the remaining lifetime in seconds, `expires` in
/// interop 6 and `max-age` from interop 7 (-06). "No limits" is written `min-size=0`, never an empty field (-05).
public struct UploadLimits: Sendable, Hashable {
    public static let fieldName = "Upload-Limit"

    public var maxSize: Int64?
    public var minSize: Int64?
    public var maxAppendSize: Int64?
    public var minAppendSize: Int64?
    /// Remaining lifetime in seconds from when the response is generated.
    public var maxAge: Int64?

    public init(
        maxSize: Int64? = nil, minSize: Int64? = nil, maxAppendSize: Int64? = nil, minAppendSize: Int64? = nil,
        maxAge: Int64? = nil
    ) {
        self.maxSize = maxSize
        self.minSize = minSize
        self.maxAppendSize = maxAppendSize
        self.minAppendSize = minAppendSize
        self.maxAge = maxAge
    }

    /// The `Upload-Limit` value for `version`, e.g. `max-size=1000, min-size=0, max-age=3600`; `min-size=0` when
    /// nothing is limited; nil before interop 6, which has no such field.
    public func field(for version: InteropVersion) -> String? {
        guard let ageKey = version.limitsAgeKey else { return nil }
        var members: [(String, Int64)] = []
        if let maxSize { members.append(("max-size", maxSize)) }
        members.append(("min-size", minSize ?? 0))
        if let maxAppendSize { members.append(("max-append-size", maxAppendSize)) }
        if let minAppendSize { members.append(("min-append-size", minAppendSize)) }
        if let maxAge { members.append((ageKey, maxAge)) }
        return members.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")
    }

    /// Parses an `Upload-Limit` value sent with `version`: unknown keys are ignored; a known key with another type
    /// or a negative value fails (the draft lets a recipient treat that as malformed, -10).
    public init(field: String, version: InteropVersion) throws(UploadProtocolError) {
        let dictionary: FieldDictionary
        do {
            dictionary = try StructuredFieldParser.parseDictionary(field)
        } catch {
            throw .malformed(Self.fieldName, error.description)
        }
        var maxAge: Int64? = nil
        if let ageKey = version.limitsAgeKey { maxAge = try Self.size(dictionary, ageKey) }
        self.init(
            maxSize: try Self.size(dictionary, "max-size"),
            minSize: try Self.size(dictionary, "min-size"),
            maxAppendSize: try Self.size(dictionary, "max-append-size"),
            minAppendSize: try Self.size(dictionary, "min-append-size"),
            maxAge: maxAge
        )
    }

    /// These limits with `maxAge` counted down to the whole seconds left at `now`, never below 0.
    public func remaining(expiresAt: Duration?, now: Duration) -> UploadLimits {
        var limits = self
        if let expiresAt { limits.maxAge = max(0, (expiresAt - now).components.seconds) }
        return limits
    }

    private static func size(_ dictionary: FieldDictionary, _ key: String) throws(UploadProtocolError) -> Int64? {
        let value: Int64?
        do {
            value = try dictionary.integer(key)
        } catch {
            throw .malformed(fieldName, error.description)
        }
        if let value, value < 0 { throw .malformed(fieldName, "\(key) must not be negative") }
        return value
    }
}
