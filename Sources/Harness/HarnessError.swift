/// A failure inside the harness itself (not a verdict about the system under test).
public struct HarnessError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
