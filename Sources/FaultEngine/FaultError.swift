/// Why a fault definition was rejected: a stable `code` to compare on, the JSON path or attribute it concerns,
/// and a human `detail`. Invalid definitions are always errors, never silently ignored.
public struct FaultError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake the definition holds.
    public enum Code: String, Sendable, Hashable {
        /// Not JSON (RFC 8259): the text has a bad token, bytes after the value, nesting too deep, …
        case syntax
        /// An object holds the same key twice (faults are decoded strictly, so neither copy is guessed at).
        case duplicateKey
        /// A key the schema does not define (or one that does not apply to the rule's action).
        case unknownKey
        /// A required key is absent.
        case missingKey
        /// A value of the wrong JSON type.
        case wrongType
        /// An `action` name the vocabulary does not have.
        case unknownAction
        /// A trigger that is not one of the vocabulary's.
        case unknownTrigger
        /// A duration string that did not parse (`250ms`, `2s`, `1m`).
        case invalidDuration
        /// A size that did not parse or is negative (`512KiB`, `8MiB`, `1GB`, or whole bytes).
        case invalidSize
        /// A value out of its range: probability outside 0…1, bandwidth 0, status outside 100…599, …
        case invalidValue
        /// A combination that cannot work: a percentage on a rule that cannot know the upload length, a
        /// trigger or direction that does not apply to the action, …
        case notApplicable
        /// A Toxiproxy toxic type Squall does not map.
        case unknownToxic
        /// A Toxiproxy attribute the toxic does not have.
        case unknownAttribute
    }

    public var code: Code
    /// Where the mistake is: a coding path such as `match.nth-request`, or a Toxiproxy attribute name.
    public var path: String
    public var detail: String

    public init(_ code: Code, path: String, _ detail: String) {
        self.code = code
        self.path = path
        self.detail = detail
    }

    public var description: String {
        path.isEmpty ? detail : "\(path): \(detail)"
    }
}
