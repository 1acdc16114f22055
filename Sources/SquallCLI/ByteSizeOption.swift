import SquallCore

/// A size flag in `ByteSize`'s grammar, with the flag, the accepted units and the reason named in the error.
enum ByteSizeOption {
    static func parse(_ text: String, option: String, command: [String]) throws(UsageError) -> Int {
        do {
            return Int(try ByteSize.parse(text))
        } catch {
            throw UsageError(
                "\(option) must be a size such as 1048576, 512KiB, 8MiB or 1GB, not '\(text)': \(error.reason)",
                command: command)
        }
    }
}
