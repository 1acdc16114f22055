import Foundation
import Scenario
import TestSupport
import Testing

@testable import Harness

/// The debug bundle of a catalog scenario with a reset mid-PATCH, opened with tshark as a person debugging it
/// would: the decrypted capture shows the HTTP of both legs and the RST at the byte the fault cut, the wire
/// capture decrypts with the key log, and nothing is malformed.
@Suite(.serialized) struct DebugBundleTests {
    static let catalog =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/Scenarios"

    /// Runs the catalog's `interop-8-reset-in-append` (an RST at 25 % of the creation, another at 600 KiB inside
    /// an append) keeping its bundle in `folder`.
    static func runResetInAppend(into folder: String) throws -> ScenarioResult {
        let (loaded, errors) = ScenarioFiles.loadCatalog(paths: [catalog + "/interop-8-reset-in-append.json"])
        #expect(errors.isEmpty)
        let scenario = try #require(loaded.first)
        let result = ScenarioRunner.run(scenario, options: ScenarioRunOptions(keepFolder: folder))
        #expect(result.passed, "\(result.verdicts.filter { $0.status != .passed }) \(result.error ?? "")")
        return result
    }

    /// The transcript's JSON objects whose `event` is `event`.
    static func transcriptEvents(_ bundle: String, _ event: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: bundle + "/" + DebugBundle.transcript, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["event"] as? String == event ? object : nil
        }
    }

    /// `Upload-Offset` of a request head printed by tshark (`http.request.line`: the field lines, comma-joined).
    static func uploadOffset(inLines text: String) -> Int? {
        guard let range = text.range(of: "Upload-Offset: ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    static func lastIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        stride(from: bytes.count - needle.count, through: 0, by: -1).first {
            bytes[$0..<$0 + needle.count].elementsEqual(needle)
        }
    }

    static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard start + needle.count <= bytes.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    @Test func theBundleHoldsEveryFileAndTheDecryptedCaptureIsClean() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let result = try Self.runResetInAppend(into: folder.path)
        let bundle = try #require(result.bundle)
        for name in [
            DebugBundle.decryptedCapture, DebugBundle.keyLog, DebugBundle.transcript, DebugBundle.ledger,
            DebugBundle.serverLog, DebugBundle.report, DebugBundle.readme,
        ] {
            #expect(FileManager.default.fileExists(atPath: bundle + "/" + name), "\(name) is missing")
        }
        // What holds secrets or decrypted traffic is for the owner only.
        for name in [DebugBundle.decryptedCapture, DebugBundle.keyLog, DebugBundle.transcript] {
            let mode = try FileManager.default.attributesOfItem(atPath: bundle + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name) has mode \(String(mode ?? 0, radix: 8))")
        }
        let readme = try String(contentsOfFile: bundle + "/" + DebugBundle.readme, encoding: .utf8)
        #expect(readme.contains("tshark -r \(bundle)/\(DebugBundle.decryptedCapture) -Y http"))
        let report = try String(contentsOfFile: bundle + "/" + DebugBundle.report, encoding: .utf8)
        #expect(report.contains("\"cut-append\""))
        let serverLog = try String(contentsOfFile: bundle + "/" + DebugBundle.serverLog, encoding: .utf8)
        #expect(serverLog.contains("\"event\":\"interrupted\"") && serverLog.contains("\"method\":\"PATCH\""))

        let pcap = bundle + "/" + DebugBundle.decryptedCapture
        #expect(try Tshark.problems(pcap).isEmpty)
        // Two TCP connections per proxied connection: client ↔ proxy and proxy ↔ server.
        let opens = try Self.transcriptEvents(bundle, "open").count
        let syns = try Tshark.fields(pcap, filter: "tcp.flags.syn == 1 && tcp.flags.ack == 0", ["tcp.stream"])
        #expect(opens == 3 && syns.count == 2 * opens)
        let packets = try ExternalTool.capinfos.run(["-c", "-M", pcap])
        let all = try Tshark.lines(["-r", pcap])
        #expect(packets.contains("Number of packets:   \(all.count)\n"), "\(packets) vs \(all.count) packets")

        // Every PATCH of the transcript, with its Upload-Offset, on both legs.
        let patchOffsets = try Self.transcriptEvents(bundle, "request").compactMap { request -> Int? in
            guard request["method"] as? String == "PATCH", let fields = request["fields"] as? [[String]] else {
                return nil
            }
            return fields.first { $0.first == "Upload-Offset" }.flatMap { Int($0[1]) }
        }
        #expect(patchOffsets.count == 4)
        // Every PATCH head in the bytes each stream's client sent, as tshark reassembles them (its HTTP view hides
        // the head of a request whose body never completes, which is what a cut PATCH is).
        var captured: [Int] = []
        for stream in syns.compactMap({ Int($0[0]) }) {
            let sent = try Tshark.follow(pcap, stream: stream).client
            var from = 0
            while let head = Self.firstIndex(of: Array("PATCH /upload/".utf8), in: sent, from: from),
                let end = Self.firstIndex(of: Array("\r\n\r\n".utf8), in: sent, from: head)
            {
                captured +=
                    Self.uploadOffset(inLines: String(decoding: sent[head..<end], as: UTF8.self)).map { [$0] } ?? []
                from = end
            }
        }
        #expect(captured.sorted() == (patchOffsets + patchOffsets).sorted())
        #expect(try Tshark.lines(["-r", pcap, "-Y", #"http.request.method == "PATCH""#]).count >= 4)

        // The 104 that announced the upload, with its Location, on both legs.
        let locations = try Tshark.fields(pcap, filter: "http.response.code == 104 && http.location", ["http.location"])
        #expect(locations.count == 2 && locations.allSatisfy { $0[0].contains("/upload/") })
    }

    @Test func theResetMidPatchIsAnRSTRightAfterTheLastForwardedByte() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let result = try Self.runResetInAppend(into: folder.path)
        let bundle = try #require(result.bundle)
        let pcap = bundle + "/" + DebugBundle.decryptedCapture
        let cut = try #require(result.faultTimeline.first { $0.rule == "cut-append" }?.offset)
        #expect(cut == 600 * 1024)
        // The upstream leg is the stream whose TCP client (the proxy) sends the RST; the cut one carries a PATCH.
        let openers = Dictionary(
            try Tshark.fields(pcap, filter: "tcp.flags.syn == 1 && tcp.flags.ack == 0", ["tcp.stream", "tcp.srcport"])
                .map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first })
        let patchStreams = Set(
            try Tshark.fields(pcap, filter: #"http.request.method == "PATCH""#, ["tcp.stream"]).map { $0[0] })
        let resets = try Tshark.fields(pcap, filter: "tcp.flags.reset == 1", ["tcp.stream", "tcp.srcport", "tcp.seq"])
        let upstreamCuts = resets.filter { openers[$0[0]] == $0[1] && patchStreams.contains($0[0]) }
        let reset = try #require(upstreamCuts.first)
        #expect(upstreamCuts.count == 1)
        let sent = try Tshark.follow(pcap, stream: try #require(Int(reset[0]))).client
        #expect(Int(reset[2]) == sent.count + 1)
        // The last request head in the bytes sent (the body is binary: searched as bytes, not as text).
        let head = try #require(Self.lastIndex(of: Array("PATCH ".utf8), in: sent))
        let headEnd = try #require(Self.firstIndex(of: Array("\r\n\r\n".utf8), in: sent, from: head))
        let offset = try #require(Self.uploadOffset(inLines: String(decoding: sent[head..<headEnd], as: UTF8.self)))
        let bodyBytes = sent.count - (headEnd + 4)
        #expect(Int64(offset + bodyBytes) == cut)
    }

    @Test(.enabled(if: Tshark.canCaptureLive, "live capture needs root or CAP_NET_RAW"))
    func theWireCaptureDecryptsWithTheKeyLogAndNotWithout() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let result = try Self.runResetInAppend(into: folder.path)
        let bundle = try #require(result.bundle)
        // Nothing went wrong with the captures but, on a loaded machine, perhaps a kernel drop.
        #expect(result.notes.allSatisfy { $0.hasPrefix("wire capture: the kernel dropped") }, "\(result.notes)")
        let wire = bundle + "/" + DebugBundle.wireCapture
        let keyLog = "tls.keylog_file:" + bundle + "/" + DebugBundle.keyLog
        let decrypted = try Tshark.lines([
            "-r", wire, "-o", keyLog, "-o", "http.desegment_body:FALSE", "-Y", "tls && http.request", "-T", "fields",
            "-e", "http.request.method",
        ])
        // Every kind of request of the run, read from the encrypted leg (tshark's view of requests split across
        // TLS records may merge one into the previous body, so kinds rather than counts).
        #expect(Set(decrypted) == ["HEAD", "OPTIONS", "PATCH", "POST"])
        let withoutKeys = try Tshark.lines(["-r", wire, "-Y", "tls && http.request"])
        #expect(withoutKeys.isEmpty)
        // Loopback leaves TCP checksums to the (absent) hardware, so only malformed packets count here.
        #expect(try Tshark.lines(["-r", wire, "-o", keyLog, "-Y", "_ws.malformed"]).isEmpty)
    }
}
