import Foundation
import QRCodes
import SquallCore
import Testing

@testable import SquallCLI

struct CACommandTests {
    func squall(_ arguments: [String], environment: [String: String] = [:]) -> (Int32, String, String) {
        let console = Console.capturing()
        let status = SquallCommand.run(
            arguments: arguments, context: CommandContext(console: console, environment: environment))
        return (status, console.standardOutput, console.standardError)
    }

    func temporaryDirectory() -> String {
        NSTemporaryDirectory() + "squall-ca-test-\(UUID().uuidString)"
    }

    @Test func initCreatesTheCAAndShowDescribesIt() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let (status, out, err) = squall(["ca", "init", "--dir", directory])
        #expect(status == 0)
        #expect(out == "\(directory)/ca.pem\n")
        #expect(err.contains("created a new local CA"))
        let keyMode = try FileManager.default.attributesOfItem(atPath: "\(directory)/ca-key.pem")[.posixPermissions]
        #expect(keyMode as? Int == 0o600)

        let (again, againOut, againErr) = squall(["ca", "init", "--dir", directory])
        #expect(again == 0)
        #expect(againOut == out)
        #expect(againErr.contains("kept the existing local CA"))

        let (shown, showOut, _) = squall(["ca", "show", "--dir", directory])
        #expect(shown == 0)
        let lines = showOut.split(separator: "\n")
        #expect(lines.first.map(String.init) == "\(directory)/ca.pem")
        #expect(showOut.contains("subject:"))
        #expect(showOut.contains("Squall Local CA"))
        #expect(showOut.contains("sha256:"))
    }

    /// `--url`: the profile's URL and a QR code of it, the same code `QRCode` draws; a URL that is not the API's
    /// http://HOST:PORT is refused naming the flag.
    @Test func showWithAnAPIURLPrintsTheProfilesURLAndItsQRCode() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = squall(["ca", "init", "--dir", directory])
        let (status, out, _) = squall(["ca", "show", "--dir", directory, "--url", "http://192.168.1.20:8474/"])
        #expect(status == 0)
        #expect(out.contains("profile:     http://192.168.1.20:8474/ca.mobileconfig\n\n"))
        let code = try QRCode("http://192.168.1.20:8474/ca.mobileconfig")
        #expect(out.hasSuffix(code.terminalLines().joined(separator: "\n") + "\n"))
        // Not the API's plain-HTTP address: no scheme, https, a path, a query, no host.
        for url in [
            "192.168.1.20:8474", "https://192.168.1.20:8474", "http://192.168.1.20:8474/squall",
            "http://192.168.1.20:8474/?x", "http://",
        ] {
            let (refused, _, error) = squall(["ca", "show", "--dir", directory, "--url", url])
            #expect(refused == 2, "\(url)")
            #expect(
                error.contains("--url must be the control API's address as the phone reaches it, http://HOST:PORT"),
                "\(error)")
        }
    }

    @Test func showWithoutACAFailsClearly() throws {
        let directory = temporaryDirectory()
        let (status, out, err) = squall(["ca", "show", "--dir", directory])
        #expect(status == 1)
        #expect(out.isEmpty)
        #expect(err.hasPrefix("squall ca show: error:"))
        #expect(err.contains(directory))
    }

    @Test func defaultFolderComesFromTheEnvironment() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(defaultCADirectory(["SQUALL_CA_DIR": directory, "HOME": "/nowhere"]) == directory)
        #expect(defaultCADirectory(["HOME": "/home/me"]) == "/home/me/.squall/ca")
        let (status, out, _) = squall(["ca", "init"], environment: ["SQUALL_CA_DIR": directory])
        #expect(status == 0)
        #expect(out == "\(directory)/ca.pem\n")
    }
}
