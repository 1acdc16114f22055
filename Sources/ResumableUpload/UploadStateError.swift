/// An event that is illegal in the state machine's current state, such as body bytes with no request running.
public struct UploadStateError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A body event arrived while no creation or append is running on the resource.
        case noActiveRequest
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
