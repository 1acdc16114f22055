import SquallCore

extension FaultError {
    /// The fault-definition error for a mistake SquallCore's JSON reader found, at the same path.
    public init(_ error: JSONError) {
        let code: Code =
            switch error.code {
            case .syntax: .syntax
            case .duplicateKey: .duplicateKey
            case .unknownKey: .unknownKey
            case .missingKey: .missingKey
            case .wrongType: .wrongType
            case .invalidDuration: .invalidDuration
            case .invalidSize: .invalidSize
            case .invalidValue: .invalidValue
            }
        self.init(code, path: error.path, error.position.map { "at \($0): \(error.detail)" } ?? error.detail)
    }

    /// Runs `body`, which reads with SquallCore's JSON readers and FaultEngine's own, and gives any error as a
    /// `FaultError`.
    public static func reading<T>(_ body: () throws -> T) throws(FaultError) -> T {
        do {
            return try body()
        } catch let error as FaultError {
            throw error
        } catch let error as JSONError {
            throw FaultError(error)
        } catch {
            throw FaultError(.invalidValue, path: "", "\(error)")
        }
    }
}
