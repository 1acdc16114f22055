import Foundation
import Harness
import Scenario
import Testing

/// `ScenarioFiles`: the reading of scenario files and folders, at the harness's edge of `ScenarioLoader`.
struct ScenarioFilesTests {
    func scenario(name: String) -> String {
        """
        {"name": "\(name)", "description": "d", "assets": [{"name": "a", "size": 1}],
         "expect": {"jobs": {"succeeded": "all"}}}
        """
    }

    func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aFileIsLoadedWithItsPathAndItsErrorsNameTheFileAndTheJSONPath() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good.json")
        try scenario(name: "good").write(to: good, atomically: true, encoding: .utf8)
        #expect(try ScenarioFiles.loadFile(good.path).get().file == good.path)

        let bad = folder.appendingPathComponent("bad.json")
        try scenario(name: "Bad Name").write(to: bad, atomically: true, encoding: .utf8)
        guard case .failure(let failure) = ScenarioFiles.loadFile(bad.path) else {
            Issue.record("an invalid name was accepted")
            return
        }
        #expect(failure.errors.map(\.file) == [bad.path])
        #expect(failure.errors.map(\.path) == ["name"])
    }

    @Test func aMissingFileIsUnreadableAndNamed() {
        let missing = "/nonexistent/squall-\(UUID().uuidString).json"
        guard case .failure(let failure) = ScenarioFiles.loadFile(missing) else {
            Issue.record("a missing file loaded")
            return
        }
        #expect(failure.errors.map(\.code) == [.unreadable])
        #expect(failure.errors.first?.file == missing)
    }

    @Test func aCatalogIsEveryJSONFileButTheSchemaInPathOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("nested"), withIntermediateDirectories: true)
        try scenario(name: "b").write(
            to: folder.appendingPathComponent("b.json"), atomically: true, encoding: .utf8)
        try scenario(name: "a").write(
            to: folder.appendingPathComponent("nested/a.json"), atomically: true, encoding: .utf8)
        try scenario(name: "b").write(
            to: folder.appendingPathComponent("c.json"), atomically: true, encoding: .utf8)
        try "{}".write(to: folder.appendingPathComponent("schema.json"), atomically: true, encoding: .utf8)
        try "not json".write(to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)

        let (scenarios, errors) = ScenarioFiles.loadCatalog(paths: [folder.path, folder.path + "/missing.json"])
        #expect(scenarios.map(\.name) == ["b", "a"])
        #expect(scenarios.map(\.file) == [folder.path + "/b.json", folder.path + "/nested/a.json"])
        #expect(errors.map(\.code) == [.unreadable, .duplicate])
        #expect(errors.first?.file == folder.path + "/missing.json")
        #expect(errors.last?.file == folder.path + "/c.json")
        #expect(errors.last?.message == #"scenario name "b" is already used by \#(folder.path)/b.json"#)
    }
}
