import HTTPWire
import SquallNet
import TLSKit

/// Everything the smoke check's parts observed, gathered for `SmokeVerdicts` to judge.
struct SmokeObservation: Sendable {
    var configuration: SmokeCheck.Configuration
    var caCertificatePath: String?
    var client: SmokeClient.Outcome?
    var relayed: [TerminatingRelay.Connection] = []
    var received: [SmokeUploadEndpoint.Received] = []
    var endpointFailures: [String] = []
    var keyLogLines: [String] = []
    /// The error that stopped the exchange, if one did.
    var failure: String?
}

/// One judged step of the smoke check.
public struct SmokeStep: Sendable, Equatable {
    public var name: String
    public var passed: Bool
    /// What was observed (on success) or what was expected and what was seen instead (on failure).
    public var detail: String
}

/// The smoke check's result.
public struct SmokeReport: Sendable {
    public var steps: [SmokeStep]
    public var duration: Duration
    /// Where the CA and key log were written (removed afterwards unless a folder was given).
    public var artifactsDirectory: String

    public var passed: Bool { steps.allSatisfy(\.passed) }
    public var passedCount: Int { steps.filter(\.passed).count }
    public var failedCount: Int { steps.count - passedCount }
}
