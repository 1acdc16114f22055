import Foundation

/// tshark queries the capture tests share (capture library, proxy, debug bundles).
public enum Tshark {
    /// A display filter that matches any packet tshark finds malformed, any error-level expert item, and any
    /// bad IPv4 or TCP checksum (status 0 is "Bad"; the checks are off by default, hence the `-o` options).
    public static let problemFilter =
        "_ws.malformed || _ws.expert.severity>=error || tcp.checksum.status==0 || ip.checksum.status==0"

    /// Whether this process may open a packet socket for live capture: CAP_NET_RAW (bit 13) in its effective
    /// capabilities, which root has unless a container took it away.
    public static let canCaptureLive: Bool = {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let mask = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << 13) != 0
    }()

    /// The non-empty lines tshark prints for `arguments`.
    public static func lines(_ arguments: [String]) throws -> [String] {
        try ExternalTool.tshark.run(arguments).split(separator: "\n").map(String.init)
    }

    /// The tab-separated `fields` of each packet of `file` matching `filter`.
    public static func fields(_ file: String, filter: String, _ fields: [String]) throws -> [[String]] {
        let arguments = ["-r", file, "-Y", filter, "-T", "fields"] + fields.flatMap { ["-e", $0] }
        return try lines(arguments).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    /// Every value of `field` in the packets of `file` matching `filter`, in order: all of a packet's occurrences,
    /// not just its first. One segment can carry several HTTP messages (a 104 and the 201 after it, read in one
    /// `read`), and tshark then prints the packet's values comma-separated (`104,201`). `options` are `-o` settings.
    public static func values(
        _ file: String, filter: String, _ field: String, options: [String: String] = [:]
    ) throws -> [String] {
        let settings = options.sorted { $0.key < $1.key }.flatMap { ["-o", "\($0.key):\($0.value)"] }
        let arguments = ["-r", file] + settings + ["-Y", filter, "-T", "fields", "-E", "occurrence=a", "-e", field]
        return try lines(arguments).flatMap { $0.split(separator: ",").map(String.init) }
    }

    /// The packets (one summary line each) of `file` that `problemFilter` matches, with checksum validation on.
    public static func problems(_ file: String) throws -> [String] {
        try lines(["-r", file, "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE", "-Y", problemFilter])
    }

    /// The bytes each side sent in TCP stream `stream`, reassembled by `-z follow,tcp,raw`, and the client's
    /// `address:port` (tshark's node 0).
    public static func follow(_ file: String, stream: Int) throws -> (client: [UInt8], server: [UInt8], node: String) {
        let output = try lines(["-r", file, "-q", "-z", "follow,tcp,raw,\(stream)"])
        let node = output.first { $0.hasPrefix("Node 0: ") }?.dropFirst("Node 0: ".count) ?? ""
        guard let start = output.firstIndex(where: { $0.hasPrefix("Node 1:") }) else { return ([], [], "") }
        var client: [UInt8] = []
        var server: [UInt8] = []
        for line in output[(start + 1)...] where !line.hasPrefix("====") {
            if line.hasPrefix("\t") {
                server += hexBytes(line.dropFirst())
            } else {
                client += hexBytes(Substring(line))
            }
        }
        return (client, server, String(node))
    }

    private static func hexBytes(_ text: Substring) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex), index != next {
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
