import SquallCore

/// A family of fault actions, as Toxiproxy keeps each toxic in one file: everything its actions mean lives in the
/// family's file, and the rest of Squall asks `FaultAction`, which asks the family.
///
/// | family | actions |
/// |---|---|
/// | `Cuts` | `reset`, `close`, `refuse`, `drop-response`, `truncate-response` |
/// | `Answers` | `respond`, `expire-auth`, `delay-response` |
/// | `HeadRewrites` | `rewrite-header` |
/// | `InterimStripping` | `strip-interim` |
/// | `Shaping` | `latency`, `bandwidth`, `slice`, `limit`, `slow-close` |
/// | `Stalls` | `stall` |
/// | `HTTP2Streams` | `reset-stream`, `window-stall`, `goaway`, `settings`, `ping-timeout` |
///
/// A family's file holds, for each of its actions: the keys it reads beside the rule's own and how (`read`), how it
/// is written back (`encode`, the exact inverse), the values it refuses (`validate`), where it can fire (`timing`, and
/// the traits below), what it does on the wire (`wire`, in the proxy flow's primitives), why a rule of it that
/// matched a request could not fire there (`unfired`), and the Toxiproxy toxics that map to it (`toxics`).
///
/// Adding an action to a family: its case in `FaultAction` (the registration line) and its lines in the family's
/// file. Adding a family: its file, and its line in `FaultFamilies.all`.
protocol FaultFamily: Sendable {
    /// Whether `action` is one of the family's.
    static func owns(_ action: FaultAction) -> Bool
    /// The family's actions by name in scenario files, with the keys each reads beside the rule's own.
    static var keys: [String: Set<String>] { get }
    /// Reads action `name` (one of `keys`) from the rule's object.
    static func read(_ name: String, _ reader: JSONFieldReader) throws -> FaultAction
    /// Writes `action`'s own keys, defaults left out: the exact inverse of `read`.
    static func encode(_ action: FaultAction, _ writer: inout KeyWriter) throws
    /// Refuses values `action` cannot take in `rule`, naming the key.
    static func validate(_ action: FaultAction, in rule: FaultRule) throws(FaultError)
    /// The action's name in scenario files.
    static func name(_ action: FaultAction) -> String
    /// When, relative to the exchange, the action can happen.
    static func timing(_ action: FaultAction, direction: FaultDirection) -> FaultAction.Timing
    /// Whether the action shapes a whole connection (it also works in tcp mode, and can arm before any request).
    static func isConnectionAction(_ action: FaultAction) -> Bool
    /// Whether `direction` means something for the action; and the direction it gets when none is written.
    static func takesDirection(_ action: FaultAction) -> Bool
    static func defaultDirection(_ action: FaultAction) -> FaultDirection
    /// The actions (by name) that interrupt the request they fire in: the client must resume it.
    static var interrupting: Set<String> { get }
    /// For an action placed in the response body: after how many of its bytes it fires.
    static func responseBodyBytes(_ action: FaultAction) -> Int64?
    /// Whether the client may never see the final response (so it learns the outcome with a HEAD: the server
    /// keeps completed uploads), given its read timeout.
    static func hidesOutcome(_ action: FaultAction, readTimeout: Duration) -> Bool
    /// What the action does on the wire.
    static func wire(_ action: FaultAction) -> FaultWire
    /// Why a rule of `action`, armed on the latest request of `faults`, could not fire in it; nil when it might have.
    static func unfired(_ action: FaultAction, in faults: ConnectionFaults, request: String) -> String?
    /// The Toxiproxy toxic types that map to the family's actions: their attributes, and the rule each makes.
    static var toxics: [String: Toxic] { get }
}

/// A Toxiproxy toxic type as a family maps it: its attributes, and the trigger and action of the rule it makes
/// (missing attributes are 0, as in Toxiproxy).
struct Toxic: Sendable {
    var attributes: Set<String>
    var make: @Sendable ([String: Int64]) throws(FaultError) -> (FaultTrigger, FaultAction)
}

extension FaultFamily {
    static func validate(_ action: FaultAction, in rule: FaultRule) throws(FaultError) {}
    static func isConnectionAction(_ action: FaultAction) -> Bool { false }
    static func takesDirection(_ action: FaultAction) -> Bool { false }
    static func defaultDirection(_ action: FaultAction) -> FaultDirection { .both }
    static var interrupting: Set<String> { [] }
    static func responseBodyBytes(_ action: FaultAction) -> Int64? { nil }
    static func hidesOutcome(_ action: FaultAction, readTimeout: Duration) -> Bool { false }
    static func unfired(_ action: FaultAction, in faults: ConnectionFaults, request: String) -> String? { nil }
    static var toxics: [String: Toxic] { [:] }
}

/// Every family, one line each.
enum FaultFamilies {
    static let all: [any FaultFamily.Type] = [
        Cuts.self,
        Answers.self,
        HeadRewrites.self,
        InterimStripping.self,
        Shaping.self,
        Stalls.self,
        HTTP2Streams.self,
    ]

    /// The family of the action named `name`, if one has it.
    static func family(named name: String) -> (any FaultFamily.Type)? {
        all.first { $0.keys[name] != nil }
    }

    /// Every action's keys, by action name.
    static let keysByName: [String: Set<String>] = all.reduce(into: [:]) { keys, family in
        keys.merge(family.keys) { first, _ in first }
    }

    /// Every Toxiproxy toxic a family maps.
    static let toxics: [String: Toxic] = all.reduce(into: [:]) { toxics, family in
        toxics.merge(family.toxics) { first, _ in first }
    }
}

extension FaultAction {
    /// The family the action belongs to.
    var family: any FaultFamily.Type {
        guard let family = FaultFamilies.all.first(where: { $0.owns(self) }) else {
            preconditionFailure("\(self) belongs to no family in FaultFamilies.all")
        }
        return family
    }
}
