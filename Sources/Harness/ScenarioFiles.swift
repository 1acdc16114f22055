import Foundation
import Scenario

/// Scenario files on disk: the harness's edge of `ScenarioLoader`, which reads bytes and names the file only in
/// its errors (file, JSON path, line and column). This reads the files and walks the folders.
public enum ScenarioFiles {
    /// The scenario in the file at `path`, or every mistake in it (passing one of `limits` included).
    public static func loadFile(
        _ path: String, limits: ScenarioLimits = ScenarioLimits()
    ) -> Result<Scenario, ScenarioErrors> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(ScenarioErrors([ScenarioError(.unreadable, file: path, path: "", "cannot read the file")]))
        }
        return ScenarioLoader.load([UInt8](data), file: path, limits: limits)
    }

    /// The server profile in the file at `path` (`--server-profile FILE`), or every mistake in it.
    public static func loadProfile(_ path: String) -> Result<ServerProfile, ScenarioErrors> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(ScenarioErrors([ScenarioError(.unreadable, file: path, path: "", "cannot read the file")]))
        }
        return ServerProfileLoader.load([UInt8](data), file: path)
    }

    /// Every scenario in `paths` (files, or folders searched recursively for `*.json` other than the schemas,
    /// `schema.json` and `*.schema.json`, in path order), and every mistake in them (passing one of `limits`
    /// included); a scenario name used by two files is a mistake in the second.
    public static func loadCatalog(
        paths: [String], limits: ScenarioLimits = ScenarioLimits()
    ) -> ([Scenario], [ScenarioError]) {
        var scenarios: [Scenario] = []
        var errors: [ScenarioError] = []
        var owners: [String: String] = [:]
        for file in scenarioFiles(paths, errors: &errors) {
            switch loadFile(file, limits: limits) {
            case .failure(let failure):
                errors += failure.errors
            case .success(let scenario):
                if let owner = owners[scenario.name] {
                    errors.append(
                        ScenarioError(
                            .duplicate, file: file, path: "name",
                            "scenario name \"\(scenario.name)\" is already used by \(owner)"))
                } else {
                    owners[scenario.name] = file
                    scenarios.append(scenario)
                }
            }
        }
        return (scenarios, errors)
    }

    /// The files `paths` name: files as given, folders expanded to their `*.json` files except `schema.json` and
    /// `*.schema.json`.
    public static func scenarioFiles(_ paths: [String], errors: inout [ScenarioError]) -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                errors.append(ScenarioError(.unreadable, file: path, path: "", "no such file or folder"))
                continue
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let base = path.hasSuffix("/") ? String(path.dropLast()) : path
            let found = (FileManager.default.subpaths(atPath: path) ?? []).filter { relative in
                let name = (relative as NSString).lastPathComponent
                return name.hasSuffix(".json") && name != "schema.json" && !name.hasSuffix(".schema.json")
            }
            files += found.sorted().map { "\(base)/\($0)" }
        }
        return files
    }
}
