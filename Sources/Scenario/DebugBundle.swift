/// The files of a scenario's debug bundle (`squall run --capture on-failure|always --out DIR`), one folder per
/// scenario, and the commands that open them. The runner writes them; the reports point at them.
public enum DebugBundle {
    /// Both legs' plaintext (client ↔ proxy, proxy ↔ server) as synthesized TCP/IPv4: opens without a key.
    public static let decryptedCapture = "decrypted.pcap"
    /// The real loopback traffic of the run's ports (encrypted on the client leg); present when live capture
    /// was permitted.
    public static let wireCapture = "wire.pcap"
    /// The TLS secrets of both legs (NSS key log format) that decrypt `wire.pcap`.
    public static let keyLog = "keylog.txt"
    /// The proxy's transcript, JSON Lines.
    public static let transcript = "transcript.jsonl"
    /// The same as an HTTP Archive (HAR 1.2), for browsers' and HAR tools' viewers (`HARRecorder`).
    public static let har = "transcript.har"
    /// Each job's ledger, JSON.
    public static let ledger = "ledger.json"
    /// The reference server's request log, JSON Lines.
    public static let serverLog = "server.log"
    /// The scenario's result (verdicts, fault timeline), as `squall run --json` writes it.
    public static let report = "report.json"
    /// The same as a page to look at: the failing expectations and a chart of each upload (`HTMLReport`).
    public static let htmlReport = "report.html"
    /// What is in the bundle and how to open it.
    public static let readme = "README.txt"

    /// The commands that open the captures of the bundle at `folder`.
    public static func openCommands(folder: String) -> [String] {
        [
            "tshark -r \(folder)/\(decryptedCapture) -Y http",
            "tshark -r \(folder)/\(wireCapture) -o tls.keylog_file:\(folder)/\(keyLog) -Y http",
            "wireshark \(folder)/\(decryptedCapture)",
        ]
    }
}
