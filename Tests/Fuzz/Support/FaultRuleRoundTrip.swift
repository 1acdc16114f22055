import FaultEngine
import Foundation

/// `FaultRule`'s documented promise: every rule a scenario file or the control API can describe encodes (in the
/// scenario vocabulary) to JSON that reads back as the same rule.
func checkRoundTrip(_ rule: FaultRule) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let text: String
    do {
        text = String(decoding: try encoder.encode(rule), as: UTF8.self)
    } catch {
        invariant(false, "\(rule) does not encode: \(error)")
        return
    }
    let reread = Result { () throws(FaultError) in try FaultRule.parse(text) }
    invariant((try? reread.get()) == rule, "\(rule) is written as \(text), which reads as \(reread)")
}
