import Foundation
import UploadJobs

extension JobLedger {
    /// The ledger as JSON text (`{"jobs": [...]}`, keys sorted, for the harness and reports).
    public func json(pretty: Bool = false) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Decodes a ledger from `json(pretty:)`'s text.
    public init(json: String) throws {
        self = try JSONDecoder().decode(JobLedger.self, from: Data(json.utf8))
    }
}
