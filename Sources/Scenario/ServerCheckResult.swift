import ResumableUpload

/// One case of `squall check-server` at one interop version and what came of it: the values its reports
/// (`ServerCheckReport` in ScenarioReports) are made of.
///
/// A case has a stable `name` (`append-wrong-offset`), says what it `checks` in one line, and ends passed (with
/// what the server did), failed (with what was `expected` and what the server did instead) or skipped (with the
/// reason: what the profile says the server lacks, or what the interop version does not define).
public struct ServerCheckResult: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable {
        case passed
        case failed
        case skipped
    }

    /// The case's stable name, e.g. `create-partial`.
    public var name: String
    /// The interop version the case ran at (3 … 10, or `InteropVersion.finalRawValue` for `final`).
    public var version: Int
    /// The version as reports spell it: `6`, or `final`.
    public var versionWord: String { Self.word(version) }

    /// `version` as reports spell it: `6`, or `final` for the unversioned protocol.
    public static func word(_ version: Int) -> String {
        InteropVersion.word(version)
    }
    /// What the case checks, in one line.
    public var checks: String
    public var outcome: Outcome
    /// Passed: what the server did; failed: what it did instead of `expected`; skipped: why the case did not run.
    public var detail: String
    /// Failed: what the case expected at the step that failed.
    public var expected: String?
    public var duration: Duration

    public init(
        name: String, version: Int, checks: String, outcome: Outcome, detail: String, expected: String? = nil,
        duration: Duration = .zero
    ) {
        self.name = name
        self.version = version
        self.checks = checks
        self.outcome = outcome
        self.detail = detail
        self.expected = expected
        self.duration = duration
    }

    /// Whether every result passed or was skipped (the command's exit status 0).
    public static func allPassed(_ results: [ServerCheckResult]) -> Bool {
        !results.contains { $0.outcome == .failed }
    }
}
