import ResumableUpload
import Scenario
import ServerCheck
import TestSupport
import Testing
import UploadServer

/// The reference server (`squall server`, in process on 127.0.0.1:0) passes every case at every interop version;
/// only what a version does not define is skipped.
struct ReferenceServerCheckTests {
    @Test func theReferenceServerPassesEveryCaseAtEveryVersion() throws {
        let reference = try ReferenceServer(maxSize: 1 << 20)
        let results = try CheckFixture.check(reference.creationURL, profile: CheckFixture.profile(maxSize: 1 << 20))
        #expect(results.count == ServerCheck.cases.count * 6)
        #expect(CheckFixture.failed(results).isEmpty, "\(CheckFixture.failures(results))")
        for result in results where result.outcome == .skipped {
            #expect(!ServerCheck.versions(of: result.name).contains(result.version), "\(result)")
        }
        for result in results where result.version >= 6 && result.outcome != .passed {
            #expect(!ServerCheck.versions(of: result.name).contains(result.version), "\(result)")
        }
    }

    /// `final` checked against a server serving it (`--interop 3-10,final`): every case passes or is skipped for a
    /// reason. Against the default server (no `final`), the control, the resumable cases fail by name.
    @Test func theUnversionedProtocolPassesWhereServedAndFailsByNameWhereNot() throws {
        let final = InteropVersion.finalRawValue
        let serving = try ReferenceServer(maxSize: 1 << 20) { $0.uploadProtocol.versions.insert(.final) }
        let results = try CheckFixture.check(
            serving.creationURL, versions: [10, final],
            profile: CheckFixture.profile(interop: Array(3...10) + [final], maxSize: 1 << 20))
        #expect(CheckFixture.failed(results).isEmpty, "\(CheckFixture.failures(results))")
        #expect(results.filter { $0.version == final && $0.outcome == .passed }.count >= 20)
        let plain = try #require(results.first { $0.name == "plain-without-version" && $0.version == 10 })
        #expect(plain.outcome == .skipped && plain.detail.contains("unversioned"))

        let reference = try ReferenceServer(maxSize: 1 << 20)
        let refused = try CheckFixture.check(
            reference.creationURL, versions: [final],
            profile: CheckFixture.profile(interop: Array(3...10) + [final], maxSize: 1 << 20))
        let failed = CheckFixture.failed(refused)
        #expect(failed.isSuperset(of: ["create-complete", "create-partial", "head-offset", "append-wrong-offset"]))
    }

    @Test func overHTTPSWithTheCAAndWithTheProfilesTokenEndpoint() throws {
        let reference = try ReferenceServer(tls: true) { $0.authentication = AuthenticationConfiguration() }
        var profile = CheckFixture.profile(interop: [8])
        var endpoint = TokenRequest(url: reference.server.url + "/_squall/token?principal=checker")
        endpoint.body = ""
        profile.auth = .endpoint(endpoint)
        let results = try CheckFixture.check(reference.creationURL, profile: profile) {
            $0.trustedCAFile = reference.caFile
        }
        #expect(CheckFixture.failed(results).isEmpty, "\(CheckFixture.failures(results))")
        #expect(
            results.allSatisfy {
                $0.outcome
                    == (CheckFixture.needsMaxSize.union(CheckFixture.fromInterop9).contains($0.name)
                        ? .skipped : .passed)
            })

        // Without the token every upload request gets 401: the cases fail, and say so.
        let anonymous = try CheckFixture.check(reference.creationURL, profile: CheckFixture.profile(interop: [8])) {
            $0.trustedCAFile = reference.caFile
        }
        let createPartial = try #require(anonymous.first { $0.name == "create-partial" })
        #expect(createPartial.outcome == .failed && createPartial.detail.hasPrefix("401"))
    }

    @Test func aProfileThatDoesNotListAVersionSkipsItsCases() throws {
        let reference = try ReferenceServer()
        let results = try CheckFixture.check(
            reference.creationURL, versions: [5, 8], profile: CheckFixture.profile(interop: [8]))
        #expect(
            results.filter { $0.version == 5 }.allSatisfy {
                $0.outcome == .skipped && $0.detail == "the profile does not list interop 5"
            })
        let maxSize = try #require(results.first { $0.version == 8 && $0.name == "max-size" })
        #expect(maxSize.outcome == .skipped && maxSize.detail == "the profile states no max-size (limits.max-size)")
    }

    @Test func withoutAProfileWhatIsNotKnownIsSkipped() throws {
        let reference = try ReferenceServer()
        let results = try CheckFixture.check(reference.creationURL, versions: [7], profile: nil)
        let skipped = Set(results.filter { $0.outcome == .skipped }.map(\.name))
        #expect(
            skipped
                == Set(["max-size", "head-after-completion", "limits-on-announcement"]).union(CheckFixture.fromInterop9)
        )
        #expect(CheckFixture.failed(results).isEmpty, "\(CheckFixture.failures(results))")
    }
}
