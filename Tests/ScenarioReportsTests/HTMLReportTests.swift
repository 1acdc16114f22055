import Scenario
import Testing

@testable import ScenarioReports

/// The HTML report: self-contained, failures first, escaped, and the chart's marks at the offsets of the run.
struct HTMLReportTests {
    /// `failing` with the upload it drew: a creation cut at 400 by `cut`, a HEAD acknowledging 400, an append from
    /// 400, and a `switch-network` event.
    static var failingWithUpload: ScenarioResult {
        var result = ReportFixtures.failing
        result.faultTimeline = [
            FaultFiring(timeMicroseconds: 3_000, rule: "cut", action: "reset", connection: 2, offset: 400),
            FaultFiring(timeMicroseconds: 9_000, rule: "elsewhere", action: "stall", connection: 9, offset: nil),
        ]
        result.eventTimeline = [
            EventRecord(index: 0, event: "switch-network", trigger: "at-progress 40%"),
            EventRecord(index: 1, event: "restart-server", trigger: "at 10s"),
        ]
        result.eventTimeline[0].proxyMicroseconds = 3_100
        result.eventTimeline[1].notPlayed = "the run timed out"
        result.uploadTimelines = [
            UploadTimeline(
                name: "photo", length: 1000, resources: ["/uploads/7"],
                requests: [
                    RequestSpan(
                        connection: 2, exchange: 1, method: "POST", status: nil, answeredByProxy: false,
                        startMicroseconds: 1_000, endMicroseconds: 3_000, startOffset: 0,
                        sent: [OffsetMark(microseconds: 2_000, offset: 250, label: "sent")]),
                    RequestSpan(
                        connection: 3, exchange: 1, method: "HEAD", status: 204, answeredByProxy: false,
                        startMicroseconds: 4_000, endMicroseconds: 4_500, startOffset: nil),
                    RequestSpan(
                        connection: 3, exchange: 2, method: "PATCH", status: 201, answeredByProxy: false,
                        startMicroseconds: 5_000, endMicroseconds: 7_000, startOffset: 400,
                        sent: [OffsetMark(microseconds: 6_500, offset: 1000, label: "sent")]),
                ],
                acknowledged: [
                    OffsetMark(microseconds: 1_100, offset: 0, label: "104"),
                    OffsetMark(microseconds: 4_500, offset: 400, label: "HEAD 204"),
                ],
                resumes: [OffsetMark(microseconds: 5_000, offset: 400, label: "resumed at 400")])
        ]
        return result
    }

    @Test func thePageIsSelfContainedAndPutsFailuresFirst() {
        let page = HTMLReport.render([ReportFixtures.passing, Self.failingWithUpload, ReportFixtures.crashed])
        #expect(page.hasPrefix("<!doctype html>"))
        for fetched in ["<script", "src=", "url(", "@import", "href=\"http", "<link"] {
            #expect(!page.contains(fetched), "the page fetches or runs something: \(fetched)")
        }
        #expect(page.contains("prefers-color-scheme: dark"))
        let rows = page.ranges(of: "<tr class=\"").map { page[$0.upperBound...].prefix { $0 != "\"" } }
        #expect(rows == ["failed", "failed", "passed"])
        #expect(page.contains("3 scenarios: 1 passed, 2 failed, 0 skipped, 0 flaky"))
        #expect(page.contains("<dd data-fact=\"seed\">each scenario&#39;s own</dd>"))
        // The key says what the line is: what the proxy read from the client, not what reached the server.
        #expect(page.components(separatedBy: "id=\"key\"").count == 2)
        #expect(page.contains("bytes the client sent, as the proxy read them"))
    }

    @Test func aFailingScenarioShowsExpectedObservedAndEvidenceEscaped() {
        let page = HTMLReport.render([Self.failingWithUpload])
        #expect(page.contains("three &lt;attempts&gt; &amp; &quot;no&quot; more"))
        #expect(!page.contains("<attempts>"))
        #expect(page.contains("<tr data-key=\"attempts\"><th scope=\"row\">attempts</th>"))
        #expect(page.contains("<td class=\"expected\">4 per job</td><td class=\"observed\">3 per job</td>"))
        #expect(page.contains("<li>job-1 (photo): 3 attempts</li>"))
        // A passing verdict is not in the failing table.
        #expect(!page.contains("data-key=\"jobs.failed\""))
    }

    @Test func theChartHasTheFaultTheResumePointTheAcknowledgementsAndTheEvent() {
        let page = HTMLReport.render([Self.failingWithUpload])
        #expect(page.contains("<g class=\"fault\" data-rule=\"cut\" data-action=\"reset\" data-connection=\"2\""))
        #expect(page.contains("data-offset=\"400\"><line"))
        // Only the faults of the upload's connections are drawn on its chart.
        #expect(!page.contains("data-rule=\"elsewhere\""))
        #expect(page.contains("<g class=\"resume\" data-offset=\"400\">"))
        #expect(page.contains("<g class=\"ack\" data-offset=\"400\" data-kind=\"HEAD 204\">"))
        #expect(page.contains("<g class=\"event\" data-event=\"switch-network\""))
        #expect(page.contains("data-method=\"PATCH\" data-status=\"201\""))
        #expect(page.contains("data-method=\"POST\" data-status=\"none\""))
        // The text alternative says the same.
        #expect(page.contains("role=\"img\""))
        #expect(page.contains("resumed at 400"))
        #expect(page.contains("faults: cut (reset) at offset 400"))
        #expect(page.contains("never played: the run timed out"))
    }

    /// Negative control: a passing run's summary says passed, its charts are folded, and nothing is drawn as failing.
    @Test func aPassingRunIsFoldedAndSaysPassed() {
        var passing = Self.failingWithUpload
        passing.verdicts = passing.verdicts.filter { $0.status == .passed }
        let page = HTMLReport.render([passing])
        #expect(page.contains("<p id=\"summary\" class=\"summary passed\">"))
        #expect(page.contains("<details><summary>Uploads and events</summary>"))
        #expect(!page.contains("<table class=\"verdicts\">"))
        let failing = HTMLReport.render([Self.failingWithUpload])
        #expect(failing.contains("<p id=\"summary\" class=\"summary failed\">"))
    }

    @Test func requestSpansTakeTheFirstFreeLane() {
        #expect(HTMLReport.lanes([(0, 10), (5, 20), (11, 12), (21, 30), (10, 11)]) == [0, 1, 0, 0, 2])
    }
}
