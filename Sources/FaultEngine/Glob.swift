/// A shell-style pattern for paths and header values: `*` matches any run of characters (including `/`), `?`
/// exactly one, every other character itself (case-sensitive). No brackets, no escapes.
public struct Glob: Sendable, Hashable, CustomStringConvertible {
    public let pattern: String
    private let characters: [Character]

    public init(_ pattern: String) {
        self.pattern = pattern
        self.characters = Array(pattern)
    }

    public var description: String { pattern }

    /// Whether `text` matches the whole pattern. Greedy with one backtrack point (the last `*`), so the work is
    /// at most pattern length × text length.
    public func matches(_ text: String) -> Bool {
        let subject = Array(text)
        var pattern = 0
        var index = 0
        var star: (pattern: Int, index: Int)?
        while index < subject.count {
            if pattern < characters.count, characters[pattern] == "*" {
                star = (pattern, index)
                pattern += 1
            } else if pattern < characters.count, characters[pattern] == "?" || characters[pattern] == subject[index] {
                pattern += 1
                index += 1
            } else if let last = star {
                star = (last.pattern, last.index + 1)
                pattern = last.pattern + 1
                index = last.index + 1
            } else {
                return false
            }
        }
        while pattern < characters.count, characters[pattern] == "*" { pattern += 1 }
        return pattern == characters.count
    }
}
