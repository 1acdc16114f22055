import SquallCore
import UploadClient

/// What a child `squall upload --events` tells the run on its stdout, one JSON object per line among its other
/// lines: the upload resources it has put in its journal, so that an event that stops the client at a progress point
/// (`kill-client`, `force-quit`, `terminate-client`) comes once the client could resume the upload after it, as it
/// does for an in-process client.
///
/// `{"event": "upload-resource", "job": "job-1", "location": "https://127.0.0.1:8443/upload/7"}`
public enum ClientEventLine {
    static let keys = ["event", "job", "location"]

    /// The line for `event`, or nil for the events it does not carry.
    public static func line(_ event: UploadSystemEvent) -> String? {
        guard case .uploadResourceAnnounced(let job, let location) = event else { return nil }
        let fields: [String: JSONValue] = [
            "event": .string("upload-resource"), "job": .string(job.description), "location": .string(location),
        ]
        return JSONText.compact(.object(fields), keyOrder: keys)
    }

    /// The location an `upload-resource` line names; nil for any other line.
    static func uploadResource(in line: String) -> String? {
        guard line.hasPrefix("{"), let value = try? JSONValue.parse(Array(line.utf8)), case .object(let fields) = value,
            fields["event"] == .string("upload-resource"), case .string(let location)? = fields["location"]
        else { return nil }
        return location
    }
}
