import SquallCore

/// The smaller schedules to try in place of one that violates an invariant, simplest first: without an event
/// (a stop and its relaunch, `network-down` and its `network-up`, go together), without a fault, with fewer or
/// smaller assets, with a timed event pinned to an upload point, with a trigger moved earlier, with a fault's `times` or `probability` dropped, with a client
/// setting back to its default. The harness re-runs each candidate and keeps the first that still violates the
/// same invariant, then asks again (`Explorer`); a candidate is never larger than its schedule. Each candidate's
/// `expect` is recomputed (`ScheduleInvariants`), since dropping a fault can make an invariant apply. Pure.
public enum ScheduleShrinker {
    public static func candidates(_ schedule: JSONValue) -> [JSONValue] {
        guard case .object(let document) = schedule else { return [] }
        var candidates: [[String: JSONValue]] = []
        let events = document["events"]?.arrayValue ?? []
        for index in events.indices where !isCloser(events[index]) {
            var fewer = events
            let closes = index + 1 < fewer.count && closes(fewer[index + 1], opener: fewer[index])
            fewer.removeSubrange(index..<(closes ? index + 2 : index + 1))
            candidates.append(replacing(document, "events", with: fewer))
        }
        // A timed event pinned to the middle of an upload: a time lands wherever a loaded machine has got to, a
        // progress point lands where it says (the run holds the upload there while the event plays), so the
        // shrunk file reproduces on any machine. A stop's relaunch then comes as soon as the stop is done.
        for index in events.indices where events[index]["at"] != nil && !isCloser(events[index]) {
            guard events[index]["event"] != .string("network-down"), case .object(var event) = events[index] else {
                continue
            }
            event["at"] = nil
            event["at-progress"] = .string("50%")
            var pinned = events
            pinned[index] = .object(event)
            if index + 1 < pinned.count, closes(pinned[index + 1], opener: events[index]) {
                pinned[index + 1] = .object(["event": .string("relaunch-client"), "at": .string("0ms")])
            }
            candidates.append(replacing(document, "events", with: pinned))
        }
        let faults = document["faults"]?.arrayValue ?? []
        do {
            for index in faults.indices {
                var fewer = faults
                fewer.remove(at: index)
                candidates.append(replacing(document, "faults", with: fewer))
            }
        }
        let assets = document["assets"]?.arrayValue ?? []
        if assets.count > 1 {
            for index in assets.indices.reversed() where !isNamedByAnEvent(assets[index], events) {
                var fewer = assets
                fewer.remove(at: index)
                candidates.append(replacing(document, "assets", with: fewer))
            }
        }
        for (index, asset) in assets.enumerated() {
            if let count = asset["count"]?.integerValue, count > 1, !isNamedByAnEvent(asset, events) {
                candidates.append(replacing(document, "assets", at: index, key: "count", with: .integer(count / 2)))
            }
            if let size = asset["size"]?.integerValue, size > 1024 {
                candidates.append(replacing(document, "assets", at: index, key: "size", with: .integer(size / 2)))
            }
        }
        for (index, fault) in faults.enumerated() {
            if let trigger = fault["trigger"], let earlier = earlier(trigger) {
                candidates.append(replacing(document, "faults", at: index, key: "trigger", with: earlier))
            }
            for key in ["times", "probability", "match"] where fault[key] != nil {
                candidates.append(replacing(document, "faults", at: index, key: key, with: nil))
            }
        }
        for (index, event) in events.enumerated() {
            for key in ["at", "at-progress"] {
                if let value = event[key], let earlier = halved(value) {
                    candidates.append(replacing(document, "events", at: index, key: key, with: earlier))
                }
            }
        }
        if case .object(let client)? = document["client"] {
            for key in client.keys.sorted() where key != "interop" && key != "read-timeout" {
                var fewer = client
                fewer[key] = nil
                var candidate = document
                candidate["client"] = .object(fewer)
                candidates.append(candidate)
            }
        }
        return candidates.map { candidate in
            var candidate = candidate
            candidate["expect"] = ScheduleInvariants.expectations(for: .object(candidate))
            return .object(candidate)
        }
    }

    /// How many faults and events a schedule has (what a shrink brings down).
    public static func size(_ schedule: JSONValue) -> (faults: Int, events: Int) {
        (schedule["faults"]?.arrayValue?.count ?? 0, schedule["events"]?.arrayValue?.count ?? 0)
    }

    private static let pairs = [
        "terminate-client": "relaunch-client", "kill-client": "relaunch-client", "force-quit": "relaunch-client",
        "network-down": "network-up",
    ]

    private static func isCloser(_ event: JSONValue) -> Bool {
        event["event"] == .string("relaunch-client") || event["event"] == .string("network-up")
    }

    private static func closes(_ event: JSONValue, opener: JSONValue) -> Bool {
        guard case .string(let name)? = opener["event"], let closer = pairs[name] else { return false }
        return event["event"] == .string(closer)
    }

    private static func isNamedByAnEvent(_ asset: JSONValue, _ events: [JSONValue]) -> Bool {
        guard case .string(let name)? = asset["name"] else { return false }
        return events.contains {
            guard case .string(let named)? = $0["asset"] else { return false }
            return named == name || named.hasPrefix(name + "-")
        }
    }

    /// The trigger with its point halved (`at-offset`, `after`, `after-response-bytes`), nil when it cannot move.
    private static func earlier(_ trigger: JSONValue) -> JSONValue? {
        guard case .object(var members) = trigger else { return nil }
        for key in ["at-offset", "after", "after-response-bytes"] {
            if let value = members[key], let smaller = halved(value) {
                members[key] = smaller
                return .object(members)
            }
        }
        return nil
    }

    /// Half of `40%`, `300ms` or a whole number (rounded down, at least the unit); nil at the least already.
    static func halved(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .integer(let number): return number > 1 ? .integer(number / 2) : nil
        case .string(let text):
            for unit in ["%", "ms"] where text.hasSuffix(unit) {
                guard let number = Int(text.dropLast(unit.count)), number > 1 else { return nil }
                return .string("\(number / 2)\(unit)")
            }
            return nil
        default: return nil
        }
    }

    private static func replacing(_ document: [String: JSONValue], _ key: String, with items: [JSONValue])
        -> [String: JSONValue]
    {
        var copy = document
        copy[key] = items.isEmpty ? nil : .array(items)
        return copy
    }

    private static func replacing(
        _ document: [String: JSONValue], _ key: String, at index: Int, key member: String, with value: JSONValue?
    ) -> [String: JSONValue] {
        guard var items = document[key]?.arrayValue, case .object(var object) = items[index] else { return document }
        object[member] = value
        items[index] = .object(object)
        var copy = document
        copy[key] = .array(items)
        return copy
    }
}

extension JSONValue {
    var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    var integerValue: Int64? {
        if case .integer(let number) = self { return number }
        return nil
    }
}
