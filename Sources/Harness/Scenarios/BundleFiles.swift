import Foundation
import Scenario
import ScenarioReports

/// Writes the files of a debug bundle the run itself does not stream (the captures, key log, transcript and
/// server log are written as the run goes): the ledger, the report and a README that says how to open it all.
enum BundleFiles {
    static func write(_ result: ScenarioResult, into folder: String) {
        let files: [(String, String)] = [
            (DebugBundle.ledger, result.ledgerJSON ?? "null"),
            (DebugBundle.report, JSONReport.render([result])),
            (DebugBundle.htmlReport, HTMLReport.render([result], context: HTMLReport.Context(title: result.name))),
            (DebugBundle.readme, readme(result, folder: folder)),
        ]
        for (name, text) in files {
            // Not atomically: swift-corelibs-foundation leaves a temporary file behind per atomic write.
            try? (text + "\n").write(toFile: folder + "/" + name, atomically: false, encoding: .utf8)
        }
    }

    static func readme(_ result: ScenarioResult, folder: String) -> String {
        let present = { (name: String) in FileManager.default.fileExists(atPath: folder + "/" + name) }
        var lines = [
            "Debug bundle of scenario \(result.name) (seed \(result.seed)): \(result.passed ? "passed" : "FAILED").",
            "",
            "\(DebugBundle.decryptedCapture)  both legs' plaintext (client <-> proxy, proxy <-> server); no key needed",
            present(DebugBundle.wireCapture)
                ? "\(DebugBundle.wireCapture)       the real loopback traffic; decrypt the client leg with \(DebugBundle.keyLog)"
                : "\(DebugBundle.wireCapture)       not written: live capture was not permitted (see the notes)",
            "\(DebugBundle.keyLog)      TLS secrets of both legs (NSS key log format)",
            "\(DebugBundle.transcript) the proxy's transcript: connections, exchanges, body ranges, faults, closes",
            "\(DebugBundle.har)  the same as an HTTP Archive (HAR 1.2): 104s in _interimResponses, faults in _faults",
            "\(DebugBundle.ledger)     each job's ledger (the client's view)",
            "\(DebugBundle.serverLog)      the reference server's request log (absent with --upstream)",
            "\(DebugBundle.report)     verdicts with expected, observed and evidence; the fault and event timelines",
            "\(DebugBundle.htmlReport)     the same to look at: failing expectations, a chart of each upload (any browser)",
            "ca/ store/ journal/ assets/  the run's CA, the server's store, the client's journal, the assets",
            "",
            "Open:",
        ]
        lines += DebugBundle.openCommands(folder: folder).map { "  " + $0 }
        if !result.notes.isEmpty {
            lines += ["", "Notes:"] + result.notes.map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }
}
