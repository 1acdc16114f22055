import Scenario
import UploadJobs

/// The verdicts on an app's own extension (run by `PhotosExtensionHost`): whatever a scenario expects, an extension
/// must acknowledge the jobs it finished with, not retry a server's final answer to the retry limit, stop changing
/// jobs once `willTerminate()` returned, and read a succeeded job's response headers before acknowledging it.
/// Each failure names the job and what the extension did, so that the fault is read as the extension's.
///
/// | key | judged from | fails when |
/// |---|---|---|
/// | `extension.acknowledges-finished-jobs` | ledger | a succeeded or failed job was never acknowledged while the client ran to the end |
/// | `extension.permanent-errors-not-retried` | ledger | a job failing with `badServerResponse` was retried as often as the retry limit let it |
/// | `extension.stops-at-will-terminate` | conduct log | a change block begun after `willTerminate()` returned committed, in the invocation it was meant to stop |
/// | `extension.reads-headers-before-acknowledging` | conduct log | a succeeded upload job was acknowledged in an invocation that never read its `responseHeaderFields` |
/// | `extension.refreshes-auth-before-retrying` | conduct log | a job the server refused with 401 (`userAuthenticationRequired`) was retried with the same `Authorization` |
///
/// The last three appear only where they can be judged (a `willTerminate()` happened; a succeeded job was
/// acknowledged; a job failed with `userAuthenticationRequired`). Pure: no clock, no I/O.
enum ExtensionConductCheck {
    static func verdicts(_ context: OracleContext, conduct: [ExtensionConduct]) -> [Verdict] {
        let jobs = context.jobs
        let observation = context.observation
        var verdicts = [
            acknowledgesFinishedJobs(jobs, stoppedBy: clientStoppedAtEnd(observation.events), name: context.name),
            permanentErrorsNotRetried(jobs, retryLimit: context.scenario.client.retryLimit, name: context.name),
        ]
        let terminated = observation.events.contains { $0.played && $0.event == "terminate-client" }
        let afterTermination = conduct.filter { $0.conduct == .changedAfterWillTerminate }
        if terminated || !afterTermination.isEmpty {
            verdicts.append(
                holds(
                    "extension.stops-at-will-terminate",
                    expected: "no job changed after willTerminate() returned",
                    problems: afterTermination.map {
                        "after willTerminate() returned, processJobs() went on: \($0.detail)"
                    },
                    judged: "the invocations willTerminate() reached"))
        }
        let acknowledgedSucceeded = jobs.filter {
            $0.state == .succeeded && $0.type == .upload
                && $0.entries.contains { entry in
                    if case .acknowledged(automatic: false) = entry.event { true } else { false }
                }
        }
        let unread = conduct.filter { $0.conduct == .acknowledgedWithoutReadingHeaders }
        if !acknowledgedSucceeded.isEmpty || !unread.isEmpty {
            verdicts.append(
                holds(
                    "extension.reads-headers-before-acknowledging",
                    expected: "responseHeaderFields read before each succeeded job is acknowledged",
                    problems: unread.map { record in
                        "\(context.name(of: record.job)) acknowledged without reading its response headers: "
                            + "\(record.detail) is lost with the job"
                    }, judged: "\(acknowledgedSucceeded.count) succeeded jobs acknowledged"))
        }
        if let verdict = refreshesAuthBeforeRetrying(context, conduct: conduct) { verdicts.append(verdict) }
        return verdicts
    }

    /// A job the server refused with 401 must not be retried with the token it refused: the app signs in again and
    /// retries with a destination carrying the new token (or acknowledges the failure when it cannot).
    static func refreshesAuthBeforeRetrying(_ context: OracleContext, conduct: [ExtensionConduct]) -> Verdict? {
        let refused = context.jobs.filter { $0.errors.contains(.userAuthenticationRequired) }
        let stale = conduct.filter { $0.conduct == .retriedAuthFailureWithSameAuthorization }
        guard !refused.isEmpty || !stale.isEmpty else { return nil }
        return holds(
            "extension.refreshes-auth-before-retrying",
            expected: "a job refused with 401 retried only with a new Authorization",
            problems: stale.map { record in
                "\(context.name(of: record.job)) failed with userAuthenticationRequired and the extension retried it "
                    + "with the Authorization the server refused (\(record.detail)): the server refuses it again; retry "
                    + "with a destination carrying a new token (SquallCredentials.refreshedAuthorization()), or "
                    + "acknowledge the failure when there is none"
            }, judged: "\(refused.count) jobs refused with 401")
    }

    /// A job that finished (succeeded or failed) must be acknowledged: until then it holds an in-flight slot.
    /// Not judged when the client was stopped, or the extension disabled, when the run ended.
    static func acknowledgesFinishedJobs(
        _ jobs: [JobHistory], stoppedBy: String?, name: (JobHistory) -> String
    ) -> Verdict {
        let key = "extension.acknowledges-finished-jobs"
        let expected = "every succeeded or failed job acknowledged"
        if let stoppedBy {
            return Verdict(
                key: key, status: .skipped, expected: expected, observed: "not judged",
                evidence: ["the run ended with \(stoppedBy): the extension had no invocation left to acknowledge in"])
        }
        let problems = jobs.filter { ($0.state == .succeeded || $0.state == .failed) && $0.acknowledgedAt == nil }
            .map { job -> String in
                let how =
                    job.state == .failed
                    ? "failed ("
                        + [job.errors.last?.rawValue, job.statuses.last.map { "HTTP \($0)" }]
                        .compactMap { $0 }.joined(separator: ", ") + ")"
                    : "succeeded"
                return "\(name(job)) \(how) and the extension never acknowledged it: it holds an "
                    + "in-flight slot for good"
            }
        return holds(key, expected: expected, problems: problems, judged: "\(jobs.count) jobs")
    }

    /// A `badServerResponse` is the server's final answer (the seed's sample acknowledges it): retrying it as often
    /// as the retry limit allows is retrying it forever, as far as the system lets the extension.
    static func permanentErrorsNotRetried(
        _ jobs: [JobHistory], retryLimit: Int, name: (JobHistory) -> String
    ) -> Verdict {
        let problems = jobs.compactMap { job -> String? in
            var lastError: JobError?
            var retriedAfterBadResponse = 0
            for entry in job.entries {
                switch entry.event {
                case .failed(let error, _): lastError = error
                case .retried: if lastError == .badServerResponse { retriedAfterBadResponse += 1 }
                default: break
                }
            }
            guard retryLimit > 0, retriedAfterBadResponse >= retryLimit else { return nil }
            let statuses = job.statuses.map(String.init).joined(separator: ", ")
            return "\(name(job)) failed with badServerResponse (HTTP \(statuses)) and the "
                + "extension retried it \(retriedAfterBadResponse) times, up to the retry limit \(retryLimit), instead "
                + "of acknowledging the server's final answer"
        }
        return holds(
            "extension.permanent-errors-not-retried",
            expected: "badServerResponse acknowledged, not retried to the limit",
            problems: problems, judged: "\(jobs.count) jobs")
    }

    /// What stopped the client for good by the end of the run (`terminate-client`, `kill-client`, `force-quit` with
    /// no relaunch after it, or `disable-extension` with no `enable-extension`), or nil when it ran on.
    static func clientStoppedAtEnd(_ events: [EventRecord]) -> String? {
        var stopped: String?
        var disabled = false
        for record in events.filter(\.played).sorted(by: { ($0.runMicroseconds ?? 0) < ($1.runMicroseconds ?? 0) }) {
            switch record.event {
            case "terminate-client", "kill-client", "force-quit": stopped = record.event
            case "relaunch-client": stopped = nil
            case "disable-extension": disabled = true
            case "enable-extension": disabled = false
            default: break
            }
        }
        return stopped ?? (disabled ? "disable-extension" : nil)
    }

    private static func holds(_ key: String, expected: String, problems: [String], judged: String) -> Verdict {
        Verdict(
            key: key, status: problems.isEmpty ? .passed : .failed, expected: expected,
            observed: problems.isEmpty
                ? "held for \(judged)" : "\(problems.count) violation\(problems.count == 1 ? "" : "s")",
            evidence: Evidence.capped(problems))
    }
}
