import ResumableUpload

/// `--interop` values: a list of interop versions for the server and check-server (`3-10,final`, `6,8`), or one for
/// the client (`8`, `final`, `none`).
enum InteropOption {
    /// The versions `text` lists, each once, oldest first and `final` last.
    static func list(_ text: String, command: [String]) throws(UsageError) -> [InteropVersion] {
        guard let versions = InteropVersion.list(text) else {
            throw UsageError(
                "--interop must list interop versions from \(range) or final, such as 3-10,final or 6,8, "
                    + "not '\(text)'",
                command: command)
        }
        return versions
    }

    /// The one version `text` names; nil for `none` (plain HTTP uploads).
    static func one(_ text: String, command: [String]) throws(UsageError) -> InteropVersion? {
        if text == "none" { return nil }
        guard let version = InteropVersion(word: text) else {
            throw UsageError("--interop must be \(range), final or none, not '\(text)'", command: command)
        }
        return version
    }

    private static var range: String {
        "\(InteropVersion.implemented.lowerBound) to \(InteropVersion.implemented.upperBound)"
    }
}
