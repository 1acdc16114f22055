import FaultEngine
import Scenario

/// The scenario loader: the input is a scenario file's contents (`ScenarioLoader.load`, bytes in, no file I/O).
/// Checked: a refusal names at least one error, each at a line and column inside the text when it has one; an
/// accepted scenario's faults encode and read back the same (`FaultRule`'s promise), and what it needs of an
/// outside server is judged against a few profiles without trouble.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    switch ScenarioLoader.load(bytes, file: "fuzz.json") {
    case .failure(let refusal):
        checkPlaces(refusal, in: bytes)
    case .success(let scenario):
        for rule in scenario.faults { checkRoundTrip(rule) }
        for profile in knownProfiles {
            _ = ScenarioNeeds.unmet(scenario, profile: profile)
            _ = ScenarioNeeds.clientInterop(scenario, profile: profile)
        }
        _ = ScenarioNeeds.involvesAuth(scenario)
        _ = ScenarioNeeds.needsRetention(scenario)
    }
    return 0
}

/// Profiles from Tests/ScenarioTests/Fixtures/profiles/valid: none, everything, a command token.
private let knownProfiles: [ServerProfile] = [
    "{}",
    #"{"interop": [8], "retention": false, "auth": {"command": ["./t"]}, "tokens": {"expire": {"command": ["./e"]}}}"#,
    #"""
    {"url": "https://u.example/files", "interop": [3, 5, 6], "resumable": true, "progress-104": true,
     "retention": "1h", "limits": {"max-size": "4GiB", "max-append-size": "64MiB", "max-age": "1d"},
     "auth": {"token-url": {"url": "https://u.example/token", "method": "POST", "token-path": "data.token"}},
     "tokens": {"ttl": "10m"}, "restart": {"command": ["docker", "restart", "uploads"]}}
    """#,
].map { text in
    guard case .success(let profile) = ServerProfileLoader.load(Array(text.utf8), file: nil) else {
        fatalError("a known profile does not load: \(text)")
    }
    return profile
}
