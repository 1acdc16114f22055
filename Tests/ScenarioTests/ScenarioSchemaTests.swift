import Foundation
import Harness
import ResumableUpload
import Testing

@testable import FaultEngine
@testable import Scenario

/// `Scenarios/schema.json` and `ScenarioLoader` agree: Python's jsonschema (Draft202012Validator, installed by
/// Tools/setup.sh) and the loader accept exactly the same files among the fixtures and the catalog.
struct ScenarioSchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/ScenarioTests/Fixtures").path
    static let schema = root.appendingPathComponent("Scenarios/schema.json").path

    /// Prints `valid` or `invalid` and the file, one line per file named on the command line; the schemas beside
    /// the first (`Scenarios/*.json` with a `$id`) resolve its references (`server-profile.json`).
    static let validator = """
        import glob, json, os, sys
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource
        with open(sys.argv[1]) as f:
            schema = json.load(f)
        resources = []
        for other in glob.glob(os.path.join(os.path.dirname(sys.argv[1]), "*schema*.json")):
            with open(other) as f:
                contents = json.load(f)
            Draft202012Validator.check_schema(contents)
            resources.append((contents["$id"], Resource.from_contents(contents)))
        validator = Draft202012Validator(schema, registry=Registry().with_resources(resources))
        for path in sys.argv[2:]:
            with open(path) as f:
                document = json.load(f)
            print(("valid" if validator.is_valid(document) else "invalid") + " " + path)
        """

    /// The files each validator accepts, as `path → accepted`.
    static func schemaVerdicts(_ files: [String], schema: String = schema) throws -> [String: Bool] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", validator, schema] + files
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python3 with jsonschema must run (Tools/setup.sh installs it)")
        var verdicts: [String: Bool] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            verdicts[String(parts[1])] = parts[0] == "valid"
        }
        return verdicts
    }

    static func loaderAccepts(_ file: String) -> Bool {
        if case .success = ScenarioFiles.loadFile(file) { return true }
        return false
    }

    static func files(_ folder: String) -> [String] {
        var errors: [ScenarioError] = []
        let files = ScenarioFiles.scenarioFiles([folder], errors: &errors)
        #expect(errors.isEmpty)
        return files
    }

    @Test func theSchemaAndTheLoaderAcceptTheSameFiles() throws {
        let valid = Self.files(Self.fixtures + "/valid")
        let invalid = Self.files(Self.fixtures + "/invalid")
        let catalog = Self.files(Self.root.appendingPathComponent("Scenarios").path)
        #expect(valid.count >= 3)
        #expect(invalid.count >= 40)
        let verdicts = try Self.schemaVerdicts(valid + invalid + catalog)
        #expect(verdicts.count == valid.count + invalid.count + catalog.count)
        for file in valid + catalog {
            #expect(verdicts[file] == true, "the schema rejects \(file)")
            #expect(Self.loaderAccepts(file), "the loader rejects \(file)")
        }
        for file in invalid {
            #expect(verdicts[file] == false, "the schema accepts \(file)")
            #expect(!Self.loaderAccepts(file), "the loader accepts \(file)")
        }
    }

    /// What a schema cannot say (min ≤ max, unique fault names, an existing asset, variation below size, a window's
    /// order, and the limits on sizes written with units, on sums over assets and on durations): the schema accepts
    /// these files and only the loader rejects them, each for its one reason.
    @Test func theLoaderAloneChecksWhatASchemaCannotSay() throws {
        let files = Self.files(Self.fixtures + "/loader-only")
        #expect(files.count == 11)
        let verdicts = try Self.schemaVerdicts(files)
        for file in files {
            #expect(verdicts[file] == true, "the schema rejects \(file)")
            guard case .failure(let failure) = ScenarioFiles.loadFile(file) else {
                Issue.record("the loader accepts \(file)")
                continue
            }
            #expect(failure.errors.count == 1)
        }
    }

    /// The schema's vocabularies are the model's: events, expectations, fault actions and their keys.
    @Test func theSchemaNamesTheModelsVocabularies() throws {
        let data = try #require(FileManager.default.contents(atPath: Self.schema))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let definitions = try #require(schema["$defs"] as? [String: Any])
        let event = try #require(definitions["event"] as? [String: Any])
        let eventNames = ((event["properties"] as? [String: Any])?["event"] as? [String: Any])?["enum"] as? [String]
        #expect(eventNames == EventAction.names)
        let expect = try #require(definitions["expect"] as? [String: Any])
        #expect(((expect["properties"] as? [String: Any])?.keys.sorted()) == Expectation.keys.sorted())
        let conformance = (expect["properties"] as? [String: Any])?["server-conformance"] as? [String: Any]
        let allow = ((conformance?["oneOf"] as? [[String: Any]])?.last?["properties"] as? [String: Any])?["allow"]
        let rules = ((allow as? [String: Any])?["items"] as? [String: Any])?["enum"] as? [String]
        #expect(rules == ConformanceDeviation.Rule.allCases.map(\.rawValue))
        let top = try #require(schema["properties"] as? [String: Any])
        #expect(top.keys.sorted() == ScenarioLoader.topKeys.sorted())
        // The limits the schema can say are the loader's defaults.
        #expect((top["faults"] as? [String: Any])?["maxItems"] as? Int == ScenarioLimits().faults)
        #expect((top["events"] as? [String: Any])?["maxItems"] as? Int == ScenarioLimits().events)
        let fault = try #require(definitions["fault"] as? [String: Any])
        let actions = ((fault["properties"] as? [String: Any])?["action"] as? [String: Any])?["enum"] as? [String]
        #expect(Set(actions ?? []) == Set(FaultAction.keysByName.keys))
        var keysByAction: [String: Set<String>] = [:]
        for rule in fault["allOf"] as? [[String: Any]] ?? [] {
            let condition = (rule["if"] as? [String: Any])?["properties"] as? [String: Any]
            guard let name = (condition?["action"] as? [String: Any])?["const"] as? String, condition?.count == 1,
                let keys = ((rule["then"] as? [String: Any])?["properties"] as? [String: Any])?.keys
            else { continue }
            // The first rule naming an action lists its keys; later ones narrow other keys (refuse's match).
            keysByAction[name] = keysByAction[name] ?? Set(keys).subtracting(["direction"])
        }
        #expect(keysByAction == FaultAction.keysByName)
    }
}
