import Foundation
import ResumableUpload
import Scenario
import ScenarioReports
import SquallNet
import Synchronization
import TLSKit
import UploadClient

/// `squall check-server`: checks a live resumable-upload server against draft-ietf-httpbis-resumable-upload, case
/// by case and interop version by interop version (the digest's §8.3 conformance cases and robustness cases).
///
/// ```
/// for each interop version: for each case of CheckCatalog ──▶ skipped (what the version or the profile lacks)
///                                                         └─▶ run with a CaseDeadline: requests on connections of
///                                                             their own, every answer judged by ServerConformance
///                                                             ──▶ ServerCheckResult (passed, failed, skipped)
/// ```
///
/// Cases run one after another, each within `caseTimeout` (a hanging server fails the case, never hangs the check),
/// so the whole check takes at most the number of cases times `caseTimeout`.
public enum ServerCheck {
    /// Every case: its name and what it checks, in the order the reports list them.
    public static var cases: [(name: String, checks: String)] {
        CheckCatalog.cases.map { ($0.name, $0.checks) }
    }

    /// The interop versions at which case `name` runs against a server whose profile states everything a case may
    /// need (a max-size, completed uploads kept): the versions that define what it checks.
    public static func versions(of name: String) -> [Int] {
        guard let check = CheckCatalog.cases.first(where: { $0.name == name }) else { return [] }
        var profile = ServerProfile()
        profile.maxSize = 1 << 20
        profile.retention = .seconds(86_400)
        return (InteropVersion.all + [.final]).filter { check.skip($0, profile) == nil }.map(\.rawValue)
    }

    /// The case list as `--list` prints it: name, the versions it runs at (`6-10,final`), what it checks, in
    /// columns.
    public static func listing() -> [String] {
        let rows = cases.map { check in
            let versions = versions(of: check.name)
            let drafts = versions.filter { $0 != InteropVersion.finalRawValue }
            var range = drafts.first.map { "\($0)-\(drafts.last!)" } ?? "-"
            if versions.contains(InteropVersion.finalRawValue) { range += ",final" }
            return (check.name, range, check.checks)
        }
        let nameWidth = rows.map(\.0.count).max() ?? 0
        let rangeWidth = rows.map(\.1.count).max() ?? 0
        return rows.map { name, range, checks in
            name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
                + range.padding(toLength: rangeWidth, withPad: " ", startingAt: 0) + "  " + checks
        }
    }

    /// Runs every case at every version of `configuration`; `onResult` sees each result as it is made. A `stop`
    /// ends the check early: the case under way is cut short (its connections shut down, as when its time runs
    /// out) and left out of the results, no other case starts, and the cases that finished are returned.
    public static func run(
        _ configuration: ServerCheckConfiguration, stop: ProcessStop? = nil,
        onResult: (ServerCheckResult) -> Void = { _ in }
    ) throws(ServerCheckError) -> [ServerCheckResult] {
        let url: HTTPURL
        do {
            url = try HTTPURL(configuration.url)
        } catch {
            throw ServerCheckError(.invalidURL, "\(configuration.url) is not an http or https URL")
        }
        let tls = try tlsContext(configuration, secure: url.endpoint.secure)
        var token = configuration.token
        if token == nil, let recipe = configuration.profile?.auth {
            do {
                token = try TokenSources.source(recipe, trustedCAFile: configuration.trustedCAFile, stop: stop)
                    .token(refresh: true)
            } catch {
                throw ServerCheckError(.token, "no token from the profile's auth: \(error)")
            }
        }
        let current = CurrentCase()
        let registration = stop?.whenRequested { current.deadline.withLock { $0 }?.cutShort() }
        defer { if let registration { stop?.withdraw(registration) } }
        var results: [ServerCheckResult] = []
        for version in configuration.checkedVersions {
            for check in CheckCatalog.cases {
                let result = run(check, version: version, configuration: configuration) { deadline in
                    current.deadline.withLock { $0 = deadline }
                    if stop?.isRequested == true { deadline.cutShort() }
                    return CheckSession(
                        version: version, creationURL: url, profile: configuration.profile, token: token, tls: tls,
                        deadline: deadline)
                }
                current.deadline.withLock { $0 = nil }
                guard stop?.isRequested != true else { return results }
                results.append(result)
                onResult(result)
            }
        }
        return results
    }

    /// How many cases `configuration` runs in all (skipped ones included).
    public static func caseCount(_ configuration: ServerCheckConfiguration) -> Int {
        configuration.checkedVersions.count * CheckCatalog.cases.count
    }

    /// Writes the `--json` and `--junit` reports of `results` (checked at `server`) where asked.
    public static func writeReports(
        _ results: [ServerCheckResult], server: String, elapsed: Duration, json: String?, junit: String?
    ) throws {
        if let json {
            try ServerCheckReport.json(results, server: server, elapsed: elapsed).write(
                toFile: json, atomically: true, encoding: .utf8)
        }
        if let junit {
            try ServerCheckReport.junit(results, elapsed: elapsed).write(
                toFile: junit, atomically: true, encoding: .utf8)
        }
    }

    private static func run(
        _ check: CheckCase, version: InteropVersion, configuration: ServerCheckConfiguration,
        session: (CaseDeadline) -> CheckSession
    ) -> ServerCheckResult {
        var result = ServerCheckResult(
            name: check.name, version: version.rawValue, checks: check.checks, outcome: .skipped, detail: "")
        let finalChecked = configuration.checkedVersions.contains(.final)
        if let reason = versionSkip(version, configuration.profile) ?? check.skip(version, configuration.profile)
            ?? (check.unversionedContradicts && finalChecked ? CheckCase.unlessUnversioned(.final, nil) : nil)
        {
            result.detail = reason
            return result
        }
        let started = ContinuousClock.now
        let deadline = CaseDeadline(timeout: configuration.caseTimeout)
        defer { deadline.end() }
        do {
            result.detail = try check.steps(session(deadline))
            result.outcome = .passed
        } catch {
            result.outcome = .failed
            result.expected = error.expected
            result.detail = error.observed
        }
        result.duration = .now - started
        return result
    }

    /// Why no case runs at `version`: the profile says the server does not serve it resumably.
    private static func versionSkip(_ version: InteropVersion, _ profile: ServerProfile?) -> String? {
        guard let profile else { return nil }
        if profile.resumable == false { return "the profile says the server offers no resumable uploads" }
        if !profile.interop.isEmpty, !profile.interop.contains(version.rawValue) {
            return "the profile does not list \(version)"
        }
        return nil
    }

    private static func tlsContext(_ configuration: ServerCheckConfiguration, secure: Bool)
        throws(ServerCheckError) -> TLSContext?
    {
        guard secure || configuration.trustedCAFile != nil else { return nil }
        let trust: TLSTrust = configuration.trustedCAFile.map { .caFile($0) } ?? .systemDefault
        do {
            return try TLSContext(client: TLSClientConfiguration(trust: trust))
        } catch {
            throw ServerCheckError(.tls, "cannot set up TLS: \(error)")
        }
    }
}

/// The deadline of the case under way, which a stop cuts short.
private final class CurrentCase: Sendable {
    let deadline = Mutex<CaseDeadline?>(nil)
}

/// Why the check could not start: compare on `code`.
public struct ServerCheckError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The URL is not an http or https URL (a usage mistake).
        case invalidURL
        /// The CA file or TLS set-up failed.
        case tls
        /// The profile's token recipe gave no token.
        case token
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail }
}
