import FaultEngine
import Testing

struct FaultRuleToxiproxyTests {
    @Test(arguments: [
        (
            "latency", ["latency": Int64(1000), "jitter": 50], FaultTrigger.onMatch,
            FaultAction.latency(.seconds(1), jitter: .milliseconds(50))
        ),
        ("bandwidth", ["rate": 64], .onMatch, .bandwidth(bytesPerSecond: 64_000)),
        ("slow_close", ["delay": 250], .onMatch, .slowClose(delay: .milliseconds(250))),
        ("timeout", ["timeout": 0], .onMatch, .stall(duration: nil, thenClose: false)),
        ("timeout", ["timeout": 1500], .onMatch, .stall(duration: .milliseconds(1500), thenClose: true)),
        ("reset_peer", [:], .onMatch, .reset),
        ("reset_peer", ["timeout": 200], .after(.milliseconds(200)), .reset),
        (
            "slicer", ["average_size": 64, "size_variation": 8, "delay": 10], .onMatch,
            .slice(size: 64, variation: 8, delay: .microseconds(10))
        ),
        ("limit_data", ["bytes": 10_000], .onMatch, .limit(bytes: 10_000)),
    ])
    func mapsEveryToxic(_ type: String, _ attributes: [String: Int64], _ trigger: FaultTrigger, _ action: FaultAction)
        throws
    {
        let rule = try FaultRule(toxiproxy: nil, type: type, stream: "upstream", toxicity: 0.3, attributes: attributes)
        #expect(rule.name == "\(type)_upstream")
        #expect(rule.trigger == trigger)
        #expect(rule.action == action)
        #expect(rule.direction == (action.takesDirection ? .upstream : .both))
        #expect(rule.probability == 0.3)
        #expect(rule.optional)
        #expect(rule.armsPerConnection)
    }

    @Test func defaultsFollowToxiproxy() throws {
        let rule = try FaultRule(toxiproxy: "lag", type: "latency", stream: nil, toxicity: nil, attributes: [:])
        #expect(rule.name == "lag")
        #expect(rule.direction == .downstream)
        #expect(rule.probability == 1)
        #expect(rule.action == .latency(.zero, jitter: .zero))
    }

    @Test(arguments: [
        ("noop", [String: Int64](), "downstream", 1.0, FaultError.Code.unknownToxic, "type"),
        ("latency", ["latencey": 5], "downstream", 1.0, .unknownAttribute, "attributes.latencey"),
        ("latency", ["latency": -5], "downstream", 1.0, .invalidValue, "attributes.latency"),
        ("bandwidth", ["rate": 0], "downstream", 1.0, .invalidValue, "attributes.rate"),
        ("bandwidth", [:], "downstream", 1.0, .invalidValue, "attributes.rate"),
        ("bandwidth", ["rate": Int64.max], "downstream", 1.0, .invalidValue, "attributes.rate"),
        ("slicer", ["average_size": 0], "downstream", 1.0, .invalidValue, "attributes.average_size"),
        (
            "slicer", ["average_size": 8, "size_variation": 8], "downstream", 1.0, .invalidValue,
            "attributes.average_size"
        ),
        ("latency", [:], "sideways", 1.0, .invalidValue, "stream"),
        ("latency", [:], "upstream", 1.5, .invalidValue, "toxicity"),
    ])
    func rejectsWhatToxiproxyWouldNotMean(
        _ type: String, _ attributes: [String: Int64], _ stream: String, _ toxicity: Double, _ code: FaultError.Code,
        _ path: String
    ) {
        #expect {
            try FaultRule(toxiproxy: nil, type: type, stream: stream, toxicity: toxicity, attributes: attributes)
        } throws: { error in
            (error as? FaultError)?.code == code && (error as? FaultError)?.path == path
        }
    }
}
