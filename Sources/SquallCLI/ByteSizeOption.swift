import SquallCore

/// A size flag (see `ByteSize` for the forms), with the flag named in the error.
enum ByteSizeOption {
    static func parse(_ text: String, option: String, command: [String]) throws(UsageError) -> Int {
        do {
            return Int(try ByteSize.parse(text))
        } catch .tooLarge {
            throw UsageError("\(option) '\(text)' is too large", command: command)
        } catch {
            throw UsageError(
                "\(option) must be a size such as 1048576, 512KiB, 8MiB or 1GB, not '\(text)'", command: command)
        }
    }
}
