/// How one rule stands in the engine, for the control API's fault list and a harness's verdicts.
public struct FaultRuleStatus: Sendable, Hashable, Encodable {
    /// Where a rule is. `armed` → `fired` (it fired and may again) → `exhausted` (it fired `times` times);
    /// `armed` → `unresolvable` (it never fired, and the last request it matched could not place it; a later
    /// request that can moves it on to `fired`).
    public enum State: String, Sendable, Hashable, Encodable {
        case armed
        case fired
        case exhausted
        case unresolvable
    }

    /// The rule's name.
    public var name: String
    /// How many times it fired.
    public var fired: Int
    public var state: State
    /// Why it could not fire the last time a request it matched could not place it (`UnresolvedFault.reason`);
    /// nil when that never happened.
    public var reason: String?

    public init(name: String, fired: Int, state: State, reason: String? = nil) {
        self.name = name
        self.fired = fired
        self.state = state
        self.reason = reason
    }
}
