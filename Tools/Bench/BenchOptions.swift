import SquallCore
import SquallNet

/// `--name value` options of a subcommand.
struct BenchOptions {
    private var values: [String: String] = [:]
    /// `--help` was given.
    private(set) var wantsHelp = false

    init(parsing arguments: ArraySlice<String>) throws {
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            if flag == "--help" || flag == "-h" {
                wantsHelp = true
                continue
            }
            guard flag.hasPrefix("--"), let value = remaining.popFirst() else {
                throw BenchError("expected --option value, got '\(flag)'")
            }
            values[String(flag.dropFirst(2))] = value
        }
    }

    /// A required option's text.
    func string(_ name: String) throws -> String {
        guard let value = values[name] else { throw BenchError("missing --\(name)") }
        return value
    }

    /// An optional option's text, or `fallback` when it is absent.
    func string(_ name: String, default fallback: String) -> String {
        values[name] ?? fallback
    }

    /// A required address option (`HOST:PORT`, `[v6]:PORT`, `:PORT`).
    func address(_ name: String) throws -> SocketAddress {
        try SocketAddress(parsing: string(name))
    }

    /// A size in bytes: a plain number or one with a unit (see `ByteSize`: KiB, MiB, GiB, KB, MB, GB …).
    func bytes(_ name: String, default fallback: Int64? = nil) throws -> Int64 {
        guard let text = values[name] else {
            guard let fallback else { throw BenchError("missing --\(name)") }
            return fallback
        }
        guard let size = try? ByteSize.parse(text) else {
            throw BenchError("--\(name) '\(text)' is not a size (e.g. 1073741824, 64MiB, 1GiB)")
        }
        return size
    }

    /// A count, or nil when absent.
    func count(_ name: String) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text), value > 0 else { throw BenchError("--\(name) must be a positive number") }
        return value
    }
}
