import FaultEngine
import ResumableUpload
import SquallCore

/// What a scenario needs of an outside server, derived from its `server` section, its faults, events and
/// expectations, and which of those a `ServerProfile` does not meet: the runner reports such a scenario
/// `SKIP name: needs …` instead of running it, never failed and never passed (issue 15 item 2).
///
/// | the scenario has | it needs |
/// |---|---|
/// | `client.interop` N (or the default) | the server to serve N (or any version) resumably |
/// | `server.interop` without the client's version | a server that does not serve that version |
/// | `server.resumable: false` | a server that offers no resumable uploads |
/// | `server.progress-interval: 0` | a server that sends no progress 104s |
/// | `server.token-ttl`, an `expire-auth` fault, an `expire-tokens` event, `auth-refreshes` | bearer-token auth; tokens that can be refreshed (not a fixed token) when refreshes are expected; a TTL no longer than the scenario's when it is shorter than the run; a way to expire tokens for `expire-tokens` |
/// | a `respond` 401 fault and none of the above | a server that needs no token (the client must have none to give up) |
/// | `server.max-size`, `max-append-size`, `max-age` | the server's limit at most as large (its assets then exceed it too) |
/// | a `restart-server` event | a restart action |
/// | a `drop-response`, `truncate-response` or `after-response-bytes` fault, a `delay-response` past the read timeout | completed uploads kept after the final response (retention): the client learns the outcome with a HEAD |
/// | a fault on the reference server's `/_squall/` paths | the reference server |
///
/// Pure: values in, reasons out. Server introspection is not a scenario need: expectations that need it are
/// skipped one by one (`Expectation.needsServerIntrospection`), the rest of the scenario judged.
public enum ScenarioNeeds {
    /// The needs of `scenario` that `profile` does not meet, each a phrase (`bearer-token auth (a profile's
    /// "auth")`); empty when the scenario can run against the server.
    public static func unmet(_ scenario: Scenario, profile: ServerProfile) -> [String] {
        var unmet: [String] = []
        unmet += interop(scenario, profile)
        unmet += auth(scenario, profile)
        unmet += limits(scenario.server, profile)
        if scenario.server.progressInterval == 0, profile.progress104 != false {
            unmet.append("a server that sends no progress 104s (a profile's \"progress-104\": false)")
        }
        if scenario.events.contains(where: { $0.action == .restartServer }), profile.restart == nil {
            unmet.append("a way to restart the server keeping its uploads (a profile's \"restart\")")
        }
        if needsRetention(scenario), profile.retention == nil {
            unmet.append(
                "completed uploads kept after their final response, for the client's HEAD after a lost answer "
                    + "(a profile's \"retention\")")
        }
        if scenario.faults.contains(where: { $0.match.path?.pattern.contains("/_squall/") ?? false }) {
            unmet.append("the reference server (a fault matches its /_squall/ endpoints)")
        }
        return unmet
    }

    /// What the scenario needs of its client's protocol and the client does not speak: faults of HTTP/2 streams with
    /// a client speaking HTTP/1.1 (`client.http`). Such a scenario is skipped, not run (its faults could never fire).
    public static func unmetProtocol(_ scenario: Scenario) -> [String] {
        guard scenario.client.http == "http/1.1" else { return [] }
        let names = scenario.faults.filter(\.action.needsHTTP2Stream).map { "\($0.name) (\($0.action.name))" }
        guard !names.isEmpty else { return [] }
        return ["a client speaking HTTP/2 (client.http h2): \(names.joined(separator: ", ")) act on HTTP/2 streams"]
    }

    /// The interop version the client sends against `profile`: the scenario's own, else the newest the profile
    /// lists, else none known.
    public static func clientInterop(_ scenario: Scenario, profile: ServerProfile) -> Int? {
        scenario.client.interopGiven ? scenario.client.interop : profile.newestInterop
    }

    private static func interop(_ scenario: Scenario, _ profile: ServerProfile) -> [String] {
        let served = profile.interop.isEmpty ? "the profile lists none" : "it serves \(list(profile.interop))"
        if !scenario.server.resumable {
            return profile.resumable == false
                ? [] : ["a server that offers no resumable uploads (a profile's \"resumable\": false)"]
        }
        if scenario.client.interopGiven && scenario.client.interop == nil { return [] }
        guard let version = clientInterop(scenario, profile: profile) else {
            return ["the interop versions the server serves (a profile's \"interop\")"]
        }
        if !scenario.server.interop.contains(version) {
            return profile.interop.isEmpty || profile.interop.contains(version)
                ? ["a server that does not serve interop \(InteropVersion.word(version)) (\(served))"] : []
        }
        return profile.interop.contains(version)
            ? [] : ["a server that serves interop \(InteropVersion.word(version)) (\(served))"]
    }

    /// Whether the scenario is about bearer tokens: the reference server's auth, a fault expiring them, an event
    /// expiring them, or refreshes counted. Such a scenario's token requests go through the proxy (its faults and
    /// counts include them); any other scenario's go straight to the token endpoint, so that its faults and counts
    /// see only upload requests whatever auth the outside server needs.
    /// What a scenario needs of the built-in policy, which an app's own extension does not have: its knobs
    /// (`client.permanent-errors`, `client.refresh-auth`) and the run's tokens (an extension brings its own way to
    /// authenticate). Empty when the scenario asks nothing of it.
    public static func builtInPolicy(_ scenario: Scenario) -> [String] {
        var needs: [String] = []
        let defaults = ClientSpec()
        if scenario.client.permanentErrors != defaults.permanentErrors {
            needs.append("the built-in policy's permanent errors (client.permanent-errors)")
        }
        if scenario.client.refreshAuth != defaults.refreshAuth {
            needs.append("the built-in policy's auth refresh setting (client.refresh-auth)")
        }
        // Disabled to the end: the built-in policy still acknowledges finished jobs (model choice); a disabled app
        // extension is not called, so its finished jobs wait, unacknowledged, for it to be enabled.
        if let disabled = scenario.events.lastIndex(where: { $0.action == .disableExtension }),
            !scenario.events[disabled...].contains(where: { $0.action == .enableExtension })
        {
            needs.append("the built-in policy's sign-out (it acknowledges finished jobs while disabled)")
        }
        return needs
    }

    public static func involvesAuth(_ scenario: Scenario) -> Bool {
        scenario.server.tokenTTL != nil
            || scenario.faults.contains { if case .expireAuth = $0.action { true } else { false } }
            || scenario.events.contains { $0.action == .expireTokens }
            || scenario.expect.contains { if case .authRefreshes = $0 { true } else { false } }
    }

    private static func auth(_ scenario: Scenario, _ profile: ServerProfile) -> [String] {
        let expiresAuth = scenario.faults.contains { if case .expireAuth = $0.action { true } else { false } }
        let expireEvent = scenario.events.contains { $0.action == .expireTokens }
        let countsRefreshes = scenario.expect.contains { if case .authRefreshes = $0 { true } else { false } }
        guard involvesAuth(scenario) else {
            // A scenario whose fault answers 401 expects a client without tokens to give up: one that can refresh
            // a token would retry instead.
            let answers401 = scenario.faults.contains { rule in
                if case .respond(let response) = rule.action { response.status == 401 } else { false }
            }
            return answers401 && profile.auth != nil
                ? ["a server that needs no bearer token (the scenario's 401 must find a client without one)"] : []
        }
        guard let recipe = profile.auth else { return ["bearer-token auth (a profile's \"auth\")"] }
        var unmet: [String] = []
        if case .fixed = recipe, expiresAuth || expireEvent || countsRefreshes {
            unmet.append("tokens the client can refresh (a profile's auth as a token-url or a command)")
        }
        if let ttl = scenario.server.tokenTTL, ttl < scenario.timeout, (profile.tokenTTL ?? .seconds(Int64.max)) > ttl {
            unmet.append(
                "tokens that expire within \((DurationText.format(ttl) ?? "\(ttl)")) (a profile's \"tokens\".\"ttl\")")
        }
        if expireEvent, profile.expireTokens == nil {
            unmet.append("a way to expire every token (a profile's \"tokens\".\"expire\")")
        }
        return unmet
    }

    private static func limits(_ server: ServerSpec, _ profile: ServerProfile) -> [String] {
        var unmet: [String] = []
        if let wanted = server.maxSize, (profile.maxSize ?? .max) > wanted {
            unmet.append("a size limit of at most \(wanted) bytes (a profile's \"limits\".\"max-size\")")
        }
        if let wanted = server.maxAppendSize, (profile.maxAppendSize ?? .max) > wanted {
            unmet.append("an append size limit of at most \(wanted) bytes (a profile's \"limits\".\"max-append-size\")")
        }
        if let wanted = server.maxAge, (profile.maxAge ?? .seconds(Int64.max)) > wanted {
            unmet.append(
                "incomplete uploads expiring within \((DurationText.format(wanted) ?? "\(wanted)")) (a profile's \"limits\".\"max-age\")"
            )
        }
        return unmet
    }

    /// Whether the client learns an upload's outcome from a HEAD after its final response was lost.
    public static func needsRetention(_ scenario: Scenario) -> Bool {
        scenario.faults.contains { rule in
            if rule.match.path?.pattern.contains("/_squall/") ?? false { return false }
            if case .afterResponseBytes = rule.trigger { return true }
            return rule.action.hidesOutcome(readTimeout: scenario.client.readTimeout)
        }
    }

    private static func list(_ versions: [Int]) -> String {
        versions.sorted().map(InteropVersion.word).joined(separator: ", ")
    }
}
