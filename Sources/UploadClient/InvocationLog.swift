import Foundation

/// Each `processJobs()` result of a `squall upload` with a `--journal`, one per line (`processing`, `completed`,
/// `failure`), in `invocations.log` beside the journal: how a harness sees the invocations of a client it ran as
/// a child process (kill scenarios), across relaunches.
public enum InvocationLog {
    public static let fileName = "invocations.log"

    /// Appends `result` to the log in `folder` (best effort: a log that cannot be written loses the line, never the
    /// upload).
    public static func append(_ result: ProcessJobsResult, folder: String) {
        let path = folder + "/" + fileName
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data((result.rawValue + "\n").utf8))
    }

    /// The results logged in `folder`, oldest first; empty without a log.
    public static func read(folder: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: folder + "/" + fileName) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { ProcessJobsResult(rawValue: $0) != nil }
    }
}
