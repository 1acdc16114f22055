import Scenario

/// The server profile loader: the input is a profile file's contents (`ServerProfileLoader.load`). Checked: a
/// refusal names at least one error, each at a line and column inside the text when it has one; an accepted
/// profile is judged against the needs of a few scenarios without trouble.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerProfile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    switch ServerProfileLoader.load(bytes, file: "fuzz-profile.json") {
    case .failure(let refusal):
        checkPlaces(refusal, in: bytes)
    case .success(let profile):
        for scenario in knownScenarios {
            _ = ScenarioNeeds.unmet(scenario, profile: profile)
            _ = ScenarioNeeds.clientInterop(scenario, profile: profile)
        }
    }
    return 0
}

/// Scenarios that need much of a server: auth and token expiry, a restart, interop 3, retention, large sizes.
private let knownScenarios: [Scenario] = [
    #"""
    {"name": "tokens", "description": "d", "assets": [{"name": "a", "size": "8MiB"}],
     "faults": [{"name": "stale", "match": {"method": "HEAD"}, "action": "expire-auth"}],
     "events": [{"event": "restart-server", "at": "1s"}, {"event": "expire-tokens", "at": "2s"}],
     "expect": {"jobs": {"succeeded": "all"}, "auth-refreshes": {"min": 1}, "server-objects-intact": true}}
    """#,
    #"""
    {"name": "plain", "description": "d", "client": {"interop": 3}, "assets": [{"name": "a", "size": "900MiB"}],
     "faults": [{"name": "late", "action": "delay-response", "duration": "1m"}],
     "expect": {"jobs": {"succeeded": "all"}, "server-resource-ids-recorded": true}}
    """#,
].map { text in
    guard case .success(let scenario) = ScenarioLoader.load(Array(text.utf8), file: nil) else {
        fatalError("a known scenario does not load: \(text)")
    }
    return scenario
}
