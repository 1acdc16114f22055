import ResumableUpload
import SquallCore
import UploadJobs

/// The `expect` section (see `Expectation` for every key) and counts: a whole number ≥ 0, `"all"`, or
/// `{"min": N, "max": M}` with at least one end and min ≤ max.
extension ScenarioLoader {
    static let jobStates = JobState.allCases.map(\.rawValue)
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    static let processJobsResults = ["processing", "completed", "failure"]
    static let conformanceRules = ConformanceDeviation.Rule.allCases.map(\.rawValue)

    static func readExpectations(
        _ value: JSONValue, path: String, into diagnostics: inout Diagnostics
    ) -> [Expectation]? {
        guard let object = ObjectReader(value, path: path, expected: "an object of expectations", into: &diagnostics)
        else { return nil }
        guard !object.fields.isEmpty else {
            diagnostics.report(.invalidValue, path: path, "expected at least one expectation, found an empty object")
            return nil
        }
        for key in object.fields.keys.sorted() where !Expectation.keys.contains(key) {
            diagnostics.report(
                JSONValue.unknownName(key, object.path(key), what: "expectation", vocabulary: Expectation.keys))
        }
        var expectations: [Expectation] = []
        var failed = false
        for key in Expectation.keys {
            guard object.fields[key] != nil else { continue }
            let read = object.read(key, into: &diagnostics) { value, path throws(ScenarioError) in
                try expectation(key, value, path)
            }
            if let read { expectations += read } else { failed = true }
        }
        return failed ? nil : expectations
    }

    private static func expectation(_ key: String, _ value: JSONValue, _ path: String) throws(ScenarioError)
        -> [Expectation]
    {
        switch key {
        case "jobs": return try keyed(value, path, jobStates, "job state").map { .jobs(state: $0, $1) }
        case "acknowledged-once": return [.acknowledgedOnce(try JSONValue.bool(value, path))]
        case "acknowledged-at-most-once": return [.acknowledgedAtMostOnce(try JSONValue.bool(value, path))]
        case "no-job-lost": return [.noJobLost(try JSONValue.bool(value, path))]
        case "acknowledged-bytes-kept": return [.acknowledgedBytesKept(try JSONValue.bool(value, path))]
        case "no-avoidable-duplicates": return [.noAvoidableDuplicates(try JSONValue.bool(value, path))]
        case "attempts": return [.attempts(try count(value, path))]
        case "retries": return [.retries(try count(value, path))]
        case "retry-limit-respected": return [.retryLimitRespected(try JSONValue.bool(value, path))]
        case "resumptions": return [.resumptions(try count(value, path))]
        case "appends-at-server-offset": return [.appendsAtServerOffset(try JSONValue.bool(value, path))]
        case "server-offset-at-cut": return [.serverOffsetAtCut(try JSONValue.bool(value, path))]
        case "refused-streams-retried": return [.refusedStreamsRetried(try JSONValue.bool(value, path))]
        case "retransmitted-bytes": return [.retransmittedBytes(try count(value, path))]
        case "restarts-from-zero": return [.restartsFromZero(try count(value, path))]
        case "peak-in-flight": return [.peakInFlight(try count(value, path))]
        case "auth-refreshes": return [.authRefreshes(try count(value, path))]
        case "requests": return try keyed(value, path, methods, "method").map { .requests(method: $0, $1) }
        case "server-objects-intact": return [.serverObjectsIntact(try JSONValue.bool(value, path))]
        case "server-resource-ids-recorded": return [.serverResourceIDsRecorded(try JSONValue.bool(value, path))]
        case "job-errors": return try keyed(value, path, errorCodes, "error code").map { .jobErrors(code: $0, $1) }
        case "process-jobs-results":
            return try keyed(value, path, processJobsResults, "processJobs result").map {
                .processJobsResults(result: $0, $1)
            }
        case "server-conformance": return [try serverConformance(value, path)]
        default: return [.wallTime(max: try wallTime(value, path))]
        }
    }

    /// `true`, `false`, or `{"allow": ["rule", …]}` (deviations of those rules tolerated).
    private static func serverConformance(_ value: JSONValue, _ path: String) throws(ScenarioError) -> Expectation {
        guard case .object(let fields) = value else {
            return .serverConformance(try JSONValue.bool(value, path), allowed: [])
        }
        for key in fields.keys.sorted() where key != "allow" {
            throw ScenarioError(
                .unknownKey, path: "\(path).\(key)", "unknown key in server-conformance; expected allow")
        }
        let place = "\(path).allow"
        guard case .array(let items)? = fields["allow"] else {
            throw fields["allow"].map { JSONValue.wrongType($0, place, "an array of rule codes") }
                ?? ScenarioError(.missingKey, path: place, "missing; expected an array of rule codes")
        }
        var allowed: [String] = []
        for (index, item) in items.enumerated() {
            let rule = try JSONValue.string(item, "\(place)[\(index)]")
            guard conformanceRules.contains(rule) else {
                throw JSONValue.unknownName(
                    rule, "\(place)[\(index)]", what: "conformance rule", vocabulary: conformanceRules)
            }
            allowed.append(rule)
        }
        return .serverConformance(true, allowed: allowed)
    }

    /// A non-empty object from names in `vocabulary` to counts, in sorted key order.
    private static func keyed(
        _ value: JSONValue, _ path: String, _ vocabulary: [String], _ what: String
    ) throws(ScenarioError) -> [(String, Expectation.Count)] {
        guard case .object(let fields) = value, !fields.isEmpty else {
            throw JSONValue.wrongType(value, path, "a non-empty object from \(what) to count")
        }
        var pairs: [(String, Expectation.Count)] = []
        for name in fields.keys.sorted() {
            let place = "\(path).\(name)"
            guard vocabulary.contains(name) else {
                throw JSONValue.unknownName(name, place, what: what, vocabulary: vocabulary)
            }
            pairs.append((name, try count(fields[name]!, place)))
        }
        return pairs
    }

    /// A count: a whole number ≥ 0, `"all"`, or `{"min": N, "max": M}`.
    static func count(_ value: JSONValue, _ path: String) throws(ScenarioError) -> Expectation.Count {
        let expected = "a count: a whole number ≥ 0, \"all\", or {\"min\": N, \"max\": M}"
        switch value {
        case .integer(let number) where number >= 0: return .exactly(number)
        case .integer(let number):
            throw ScenarioError(.invalidValue, path: path, "expected \(expected), found \(number)")
        case .string("all"): return .all
        case .object(let fields):
            for key in fields.keys.sorted() where key != "min" && key != "max" {
                throw ScenarioError(.unknownKey, path: "\(path).\(key)", "unknown key in a count; expected min, max")
            }
            guard !fields.isEmpty else {
                throw ScenarioError(.invalidValue, path: path, "expected \(expected), found {}")
            }
            let low = try fields["min"].map { v throws(ScenarioError) in
                try JSONValue.integer(v, "\(path).min", in: 0...Int64.max)
            }
            let high = try fields["max"].map { v throws(ScenarioError) in
                try JSONValue.integer(v, "\(path).max", in: 0...Int64.max)
            }
            if let low, let high, low > high {
                throw ScenarioError(.invalidValue, path: path, "min \(low) is greater than max \(high)")
            }
            return .range(min: low, max: high)
        default: throw JSONValue.wrongType(value, path, expected)
        }
    }

    /// `{"max": "10s"}`.
    private static func wallTime(_ value: JSONValue, _ path: String) throws(ScenarioError) -> Duration {
        guard case .object(let fields) = value else { throw JSONValue.wrongType(value, path, "{\"max\": a duration}") }
        for key in fields.keys.sorted() where key != "max" {
            throw ScenarioError(.unknownKey, path: "\(path).\(key)", "unknown key in wall-time; expected max")
        }
        guard let max = fields["max"] else {
            throw ScenarioError(.missingKey, path: "\(path).max", "missing; expected a duration")
        }
        return try JSONValue.duration(max, "\(path).max")
    }
}
