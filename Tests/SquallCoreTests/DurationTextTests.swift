import SquallCore
import Testing

struct DurationTextTests {
    @Test(arguments: [
        ("250ms", Duration.milliseconds(250)), ("2s", .seconds(2)), ("1m", .seconds(60)), ("1h", .seconds(3600)),
        ("1d", .seconds(86_400)), ("0ms", .zero), ("750us", .microseconds(750)), ("3µs", .microseconds(3)),
        ("500ms", .milliseconds(500)),
    ])
    func parsesEveryUnit(_ text: String, _ expected: Duration) throws {
        #expect(try DurationText.parse(text) == expected)
    }

    @Test(arguments: [
        ("", DurationText.Failure.notAWholeNumber), ("ms", .notAWholeNumber), ("1.5s", .notAWholeNumber),
        ("+2s", .notAWholeNumber), ("٣s", .notAWholeNumber), ("250", .missingUnit), ("-1s", .negative),
        ("2 s", .unknownUnit(" s")), ("2sec", .unknownUnit("sec")), ("5w", .unknownUnit("w")),
        ("99999999999999999h", .tooLarge), ("106751992d", .tooLarge), ("99999999999999999999us", .tooLarge),
    ])
    func rejectsWhatIsNotADurationWithItsReason(_ text: String, _ failure: DurationText.Failure) {
        #expect(throws: failure) { try DurationText.parse(text) }
    }

    @Test func theLargestDayCountFits() throws {
        #expect(try DurationText.parse("106751991d") == .seconds(106_751_991 * 86_400))
    }

    @Test func reasonsNameTheAcceptedUnits() {
        #expect(DurationText.Failure.unknownUnit("w").reason == #"the unit "w" is not one of us, ms, s, m, h, d"#)
        #expect(DurationText.Failure.missingUnit.reason.contains("us, ms, s, m, h, d"))
    }

    @Test(arguments: [
        (Duration.zero, "0ms"), (.microseconds(7), "7us"), (.milliseconds(250), "250ms"), (.seconds(90), "90s"),
        (.seconds(120), "2m"), (.seconds(7200), "2h"), (.milliseconds(1001), "1001ms"), (.seconds(172_800), "2d"),
    ])
    func durationsFormatExactly(duration: Duration, text: String) throws {
        #expect(DurationText.format(duration) == text)
        #expect(try DurationText.parse(text) == duration)
    }

    @Test(arguments: [Duration.nanoseconds(1), .nanoseconds(1500), .milliseconds(-1)])
    func durationsTheGrammarCannotWriteHaveNoText(duration: Duration) {
        #expect(DurationText.format(duration) == nil)
    }

    /// Seconds for people, rounded half up, with a sign; and the spoken form of the never-played reasons.
    @Test func secondsAndSpokenDurationsReadAsPeopleSayThem() {
        #expect(DurationText.seconds(.microseconds(1_234_500), digits: 3) == "1.235")
        #expect(DurationText.seconds(.milliseconds(-500), digits: 3) == "-0.500")
        #expect(DurationText.seconds(.microseconds(-1), digits: 3) == "0.000")
        #expect(DurationText.seconds(.seconds(2), digits: 0) == "2")
        #expect(DurationText.spoken(.milliseconds(71)) == "71 ms")
        #expect(DurationText.spoken(.seconds(5)) == "5 s")
        #expect(DurationText.spoken(.milliseconds(1500)) == "1.5 s")
        #expect(DurationText.spoken(.milliseconds(1250)) == "1.25 s")
    }
}
