import ControlAPI
import Testing

/// The dashboard page as served: every element its script reads is on it, its views are the flow list, the detail
/// panel, the charts and the collapsed raw events, and it names no outside resource. What the script does with a
/// live transcript is checked in a browser (`Tools/dashboard-browser-check.py`).
struct DashboardPageTests {
    static let html = String(
        decoding: ControlClient(DashboardRoutesTests.handler(token: nil)).send(.get, "/").body, as: UTF8.self)

    /// The ids in `$("…")` calls of `page` that no element of `page` has.
    static func missingElements(_ page: String) -> [String] {
        let read = page.matches(of: /\$\("([a-z-]+)"\)/).map { String($0.output.1) }
        return Array(Set(read).filter { !page.contains("id=\"\($0)\"") }).sorted()
    }

    @Test func everyElementTheScriptReadsIsOnThePage() {
        #expect(Self.missingElements(Self.html).isEmpty)
        #expect(Self.html.matches(of: /\$\("/).count > 20, "the script reads its elements through $()")
        // Negative control: an element the page lacks is found.
        #expect(Self.missingElements(Self.html + "<script>$(\"no-such-view\")</script>") == ["no-such-view"])
    }

    @Test func theFlowListDetailAndChartsReplaceTheRawTranscript() {
        for id in ["flows", "flow-title", "flow-lines", "charts", "connections", "faults"] {
            #expect(Self.html.contains("id=\"\(id)\""), "no #\(id)")
        }
        #expect(Self.html.contains("<details id=\"raw-events\">"), "the raw events are there, collapsed")
        // The forwarded offsets come from request_written when the proxy writes it, else from request_body.
        #expect(
            Self.html.contains("request_written(e, text, flow)") && Self.html.contains("request_body(e, text, flow)"))
        #expect(Self.html.contains("lastDraw + 250"), "the views redraw at most every 250 ms")
    }

    /// The page fetches nothing from elsewhere: its only absolute URLs are the SVG namespace and the base that
    /// turns a Location into a path, neither of which is fetched.
    @Test func thePageNamesNoOutsideResource() {
        let urls = Set(Self.html.matches(of: /https?:\/\/[A-Za-z0-9.\/-]*/).map { String($0.output) })
        #expect(urls == ["http://www.w3.org/2000/svg", "http://squall.invalid/"])
        #expect(!Self.html.contains("src=") && !Self.html.contains("@import") && !Self.html.contains("url("))
    }
}
