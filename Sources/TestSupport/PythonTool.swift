/// Runs Python helpers the tests drive (toxiproxy-python, junitparser, jsonschema; Tools/setup.sh installs them).
public enum PythonTool {
    /// Runs `python3 arguments…` and returns its stdout; throws with its stderr when it fails (naming `package`,
    /// what the script needs), or when it takes over two minutes.
    public static func run(_ arguments: [String], needs package: String) throws -> String {
        do {
            // Through env: the python3 on PATH is the one Tools/setup.sh installed the packages for.
            return try ExternalTool(path: "/usr/bin/env", package: "coreutils").run(["python3"] + arguments)
        } catch {
            throw TLSFixtures.Failure("python3 failed (Tools/setup.sh installs \(package)): \(error)")
        }
    }
}
