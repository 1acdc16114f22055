import FaultEngine
import SquallCore

/// The `events` section: `{"event": "kill-client", "at": "2s"}`, `{"event": "switch-network", "at-progress": "40%",
/// "asset": "photo"}`, `{"event": "add-assets", "at": "1s", "name": "late", "size": "1MiB", "count": 2}`.
extension ScenarioLoader {
    static let triggerKeys = ["event", "at", "at-progress", "at-jobs-created", "asset"] + Announcement.keys

    static func readEvents(
        _ value: JSONValue, path: String, assets: [AssetSpec], into diagnostics: inout Diagnostics
    ) -> [ScenarioEvent]? {
        guard case .array(let items) = value else {
            diagnostics.report(JSONValue.wrongType(value, path, "an array of events"))
            return nil
        }
        let added = items.compactMap { item -> String? in
            guard case .object(let fields) = item, fields["event"] == .string("add-assets"),
                case .string(let name)? = fields["name"]
            else { return nil }
            return name
        }
        let known = Set(assets.flatMap { [$0.name] + $0.names } + added)
        let events = items.enumerated().map { index, item in
            readEvent(item, path: "\(path)[\(index)]", assetNames: known, into: &diagnostics)
        }
        // An `at-jobs-created` event happens inside the in-process client; a kill makes the client a child process.
        if let kill = events.firstIndex(where: { $0?.action.killsClient == true }),
            let inside = events.firstIndex(where: { if case .jobsCreated? = $0?.trigger { true } else { false } })
        {
            diagnostics.report(
                .invalidValue, path: "\(path)[\(inside)].at-jobs-created",
                "\"at-jobs-created\" needs the client in-process, and the \(events[kill]!.action.name) event at "
                    + "\(path)[\(kill)] runs it as a child process; use \"at\" or \"at-progress\" here")
            return nil
        }
        return events.contains(nil) ? nil : events.compactMap { $0 }
    }

    private static func readEvent(
        _ value: JSONValue, path: String, assetNames: Set<String>, into diagnostics: inout Diagnostics
    ) -> ScenarioEvent? {
        guard let object = ObjectReader(value, path: path, expected: "an event object", into: &diagnostics) else {
            return nil
        }
        object.require("event", expected: "an event name", into: &diagnostics)
        let name = object.read("event", into: &diagnostics) { value, path throws(ScenarioError) in
            try JSONValue.name(value, path, in: EventAction.names, what: "event")
        }
        let isAddAssets = name == "add-assets"
        let context = name.map { "a \"\($0)\" event" } ?? "an event"
        object.rejectUnknownKeys(
            triggerKeys + (isAddAssets ? assetKeys : []), context: context, into: &diagnostics)
        let trigger = readTrigger(object, assetNames: assetNames, into: &diagnostics)
        guard let name, let trigger else { return nil }
        if case .jobsCreated = trigger, name != "terminate-client" {
            diagnostics.report(
                .invalidValue, path: object.path("at-jobs-created"),
                "\"at-jobs-created\" goes only with \"terminate-client\" (it delivers willTerminate inside the "
                    + "extension's invocation); use \"at\" or \"at-progress\" for \(name)")
            return nil
        }
        guard isAddAssets else { return action(named: name).map { ScenarioEvent(action: $0, trigger: trigger) } }
        return readAssetFields(object, into: &diagnostics).map {
            ScenarioEvent(action: .addAssets($0), trigger: trigger)
        }
    }

    /// Exactly one of `at` (a duration), `at-progress` (a position, with an optional `asset`) and
    /// `at-jobs-created` (a count from 1).
    private static func readTrigger(
        _ object: ObjectReader, assetNames: Set<String>, into diagnostics: inout Diagnostics
    ) -> EventTrigger? {
        let given = ["at", "at-progress", "at-jobs-created"].filter { object.fields[$0] != nil }
        guard given.count == 1 else {
            let message =
                given.isEmpty
                ? "missing; expected \"at\", \"at-progress\" or \"at-jobs-created\""
                : "has " + (given.count == 2 ? "both " : "") + given.map { "\"\($0)\"" }.joined(separator: " and ")
                    + "; give one of them"
            diagnostics.report(given.isEmpty ? .missingKey : .invalidValue, path: object.path("at"), message)
            return nil
        }
        let hasTime = given == ["at"]
        if given != ["at-progress"], let extra = Announcement.keys.first(where: { object.fields[$0] != nil }) {
            diagnostics.report(.invalidValue, path: object.path(extra), "\"\(extra)\" goes only with \"at-progress\"")
            return nil
        }
        if given == ["at-jobs-created"] {
            if object.fields["asset"] != nil {
                diagnostics.report(
                    .invalidValue, path: object.path("asset"), "\"asset\" goes only with \"at-progress\"")
            }
            return object.read("at-jobs-created", into: &diagnostics, JSONValue.int(in: 1...1_000_000)).map {
                .jobsCreated($0)
            }
        }
        if hasTime {
            if object.fields["asset"] != nil {
                diagnostics.report(
                    .invalidValue, path: object.path("asset"), "\"asset\" goes only with \"at-progress\"")
            }
            return object.read("at", into: &diagnostics, JSONValue.duration).map { .time($0) }
        }
        let position = object.read("at-progress", into: &diagnostics, JSONValue.position)
        let asset = object.read("asset", into: &diagnostics) { value, path throws(ScenarioError) in
            let name = try JSONValue.string(value, path)
            guard assetNames.contains(name) else {
                throw JSONValue.unknownName(name, path, what: "asset", vocabulary: assetNames.sorted())
            }
            return name
        }
        let announcement = diagnostics.attempt { () throws(ScenarioError) in
            try faultVocabulary { () throws(FaultError) in
                try FaultError.reading { try Announcement.read(object.reader) }
            }
        }
        guard let position, let announcement, object.fields["asset"] == nil || asset != nil else { return nil }
        return .progress(position, asset: asset, announcement: announcement)
    }

    private static func action(named name: String) -> EventAction? {
        switch name {
        case "terminate-client": .terminateClient
        case "relaunch-client": .relaunchClient
        case "kill-client": .killClient
        case "force-quit": .forceQuit
        case "network-down": .networkDown
        case "network-up": .networkUp
        case "switch-network": .switchNetwork
        case "restart-server": .restartServer
        case "expire-tokens": .expireTokens
        case "disable-extension": .disableExtension
        case "enable-extension": .enableExtension
        case "expire-change-token": .expireChangeToken
        default: nil
        }
    }
}
