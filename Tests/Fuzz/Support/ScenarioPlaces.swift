import Scenario

/// A refused file names at least one error, and every line and column given lies inside `bytes` (a column may
/// point just past the end of its line, or of the text, where something is missing).
func checkPlaces(_ refusal: ScenarioErrors, in bytes: [UInt8]) {
    invariant(!refusal.errors.isEmpty, "a refusal without errors")
    let lineLengths = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(\.count)
    for error in refusal.errors {
        _ = error.description
        guard let line = error.line else { continue }
        invariant((1...lineLengths.count).contains(line), "\(error): line \(line) of \(lineLengths.count)")
        let column = error.column ?? 1
        invariant((1...lineLengths[line - 1] + 1).contains(column), "\(error): column \(column) outside its line")
    }
}
