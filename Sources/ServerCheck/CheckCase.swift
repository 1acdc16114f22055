import ResumableUpload
import Scenario

/// One case of the check: a stable name, what it checks in one line, when it cannot run, and its steps.
///
/// The steps send requests through a `CheckSession` (every answer judged by `ServerConformance`) and throw a
/// `CheckFailure` at the first expectation the server does not meet; they return what the server did, in short.
struct CheckCase: Sendable {
    let name: String
    let checks: String
    /// Why the case cannot run at a version against the server a profile (nil: none given) describes; nil when it
    /// can.
    let skip: @Sendable (InteropVersion, ServerProfile?) -> String?
    let steps: @Sendable (CheckSession) throws(CheckFailure) -> String
    /// Whether the case expects what a server serving `final` does not do (a request without the version field
    /// served as a plain upload): skipped at every version when the check includes `final`.
    let unversionedContradicts: Bool

    init(
        _ name: String, checks: String,
        skip: @escaping @Sendable (InteropVersion, ServerProfile?) -> String? = { _, _ in nil },
        unversionedContradicts: Bool = false,
        steps: @escaping @Sendable (CheckSession) throws(CheckFailure) -> String
    ) {
        self.name = name
        self.checks = checks
        self.skip = skip
        self.unversionedContradicts = unversionedContradicts
        self.steps = steps
    }

    /// Skips the case at `final` and against a server whose profile lists `final`: a request without the version
    /// field is then the resumable protocol itself.
    static let unlessUnversioned: @Sendable (InteropVersion, ServerProfile?) -> String? = { version, profile in
        guard version.isFinal || profile?.interop.contains(InteropVersion.finalRawValue) == true else { return nil }
        return "the server serves the unversioned protocol (final): a request without the field is resumable"
    }

    /// Skips the case before interop `first`, saying what the version lacks.
    static func from(_ first: Int, _ lacking: String) -> @Sendable (InteropVersion, ServerProfile?) -> String? {
        { version, _ in version.rawValue < first ? "\(lacking) (interop \(first) on)" : nil }
    }
}
