import Foundation
import SquallNet

/// Each `processJobs()` result of a `squall upload` with a `--journal`, one per line (`processing`, `completed`,
/// `failure`), in `invocations.log` beside the journal: how a harness sees the invocations of a client it ran as
/// a child process (kill scenarios), across relaunches.
public enum InvocationLog {
    public static let fileName = "invocations.log"

    /// Appends `result` to the log in `folder` (best effort: a log that cannot be written loses the line, never the
    /// upload).
    public static func append(_ result: ProcessJobsResult, folder: String) {
        PrivateFile.append(Array((result.rawValue + "\n").utf8), to: folder + "/" + fileName)
    }

    /// The results logged in `folder`, oldest first; empty without a log.
    public static func read(folder: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: folder + "/" + fileName) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { ProcessJobsResult(rawValue: $0) != nil }
    }
}
