import FaultEngine
import Testing

struct DurationTextTests {
    @Test(arguments: [
        ("250ms", Duration.milliseconds(250)), ("2s", .seconds(2)), ("1m", .seconds(60)), ("1h", .seconds(3600)),
        ("0ms", .zero), ("750us", .microseconds(750)), ("3µs", .microseconds(3)),
    ])
    func parsesEveryUnit(_ text: String, _ expected: Duration) throws {
        #expect(try DurationText.parse(text) == expected)
    }

    @Test(arguments: ["", "250", "ms", "-1s", "1.5s", "2 s", "2sec", "+2s", "1d", "٣s", "99999999999999999h"])
    func rejectsWhatIsNotADuration(_ text: String) {
        #expect {
            try DurationText.parse(text, path: "trigger.after")
        } throws: { error in
            let error = error as? FaultError
            return error?.code == .invalidDuration && error?.path == "trigger.after"
        }
    }
}
