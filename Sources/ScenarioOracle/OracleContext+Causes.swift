import Scenario
import UploadJobs

/// Evidence that names why a count came out as it did, beyond the faults fired: creations cut before the client
/// could resume them, and failures that were permanent only by the built-in policy's default.
extension OracleContext {
    /// Creations cut before the client had the server's 104 announcing the upload (`UnannouncedCuts`).
    var unannouncedCutEvidence: [String] {
        Evidence.capped(UnannouncedCuts.lines(observation.transcript, events: observation.events))
    }

    /// The failed jobs whose error the built-in policy treats as permanent only because the scenario kept the
    /// default `client.permanent-errors` (with an app's extension the errors are its own: none).
    var defaultPermanenceNotes: [String] {
        let defaults = ClientSpec().permanentErrors
        guard observation.extensionConduct == nil, scenario.client.permanentErrors == defaults else { return [] }
        let list = defaults.map { "\"\($0)\"" }.joined(separator: ", ")
        let notes = jobs.filter { $0.state == .failed }.compactMap { job -> String? in
            guard let error = job.errors.last, defaults.contains(error.rawValue) else { return nil }
            let status = job.statuses.last.map { ", HTTP \($0)" } ?? ""
            let what =
                error == .badServerResponse
                ? "every 5xx and other non-2xx final status (a gateway's 502 while the server restarts, a 503 with "
                    + "Retry-After included) fails the job at once"
                : "a 401 or 403 the client cannot answer with a refreshed token (client.refresh-auth) fails the job"
            return "\(name(job)) failed with \(error.rawValue)\(status): permanent only by the built-in policy's "
                + "default, client.permanent-errors [\(list)]: \(what); to have it retried, set "
                + "client.permanent-errors without \"\(error.rawValue)\""
        }
        return Evidence.capped(notes)
    }

    /// What a failed count verdict adds to its own evidence: the faults fired, the creations cut before their
    /// announcement, the failures permanent by default.
    var causeEvidence: [String] {
        faultEvidence + unannouncedCutEvidence + defaultPermanenceNotes
    }
}
