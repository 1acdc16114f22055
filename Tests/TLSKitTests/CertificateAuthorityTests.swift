import Foundation
import Synchronization
import TLSKit
import TestSupport
import Testing

struct CertificateAuthorityTests {
    private func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    @Test func createsTheFolderAndFilesWithTheirModes() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        #expect(try mode(of: authority.directory) == 0o700)
        #expect(try mode(of: authority.certificatePath) == 0o644)
        #expect(try mode(of: authority.keyPath) == 0o600)
        let keyText = try String(contentsOfFile: authority.keyPath, encoding: .utf8)
        #expect(keyText.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(authority.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: authority.directory).sorted()
        #expect(leftovers == ["ca-key.pem", "ca.pem"])
    }

    /// A key others can read is worth a warning: whoever reads it can mint certificates the CA's clients trust.
    @Test func aKeyReadableByOthersIsWarnedAbout() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        #expect(authority.keyExposure == nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: authority.keyPath)
        let warning = try #require(authority.keyExposure)
        #expect(warning.contains("(mode 0644)") && warning.contains("chmod 600 \(authority.keyPath)"))
    }

    @Test func caCertificateHasTheProfile() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        #expect(authority.subject == "CN=Squall Local CA,O=Squall")
        #expect(authority.certificate.issuer == authority.subject)
        #expect(authority.certificate.isCertificateAuthority)
        let text = try TLSFixtures.runTool("openssl", ["x509", "-noout", "-text", "-in", authority.certificatePath])
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("CA:TRUE"))
        #expect(text.standardOutput.contains("Certificate Sign, CRL Sign"))
        #expect(text.standardOutput.contains("Subject Key Identifier"))
        #expect(text.standardOutput.contains("ASN1 OID: prime256v1"))
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        let notAfterYear = try #require(Int(authority.notAfter.prefix(4)))
        #expect((year + 9...year + 10).contains(notAfterYear))
        #expect(authority.notAfter.hasSuffix("Z"))
    }

    @Test func fingerprintIsUppercaseHexPairs() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let pairs = authority.fingerprintSHA256.split(separator: ":")
        #expect(pairs.count == 32)
        #expect(pairs.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } })
        let tool = try TLSFixtures.runTool(
            "openssl", ["x509", "-noout", "-fingerprint", "-sha256", "-in", authority.certificatePath])
        #expect(tool.standardOutput.contains(authority.fingerprintSHA256))
    }

    @Test func reloadingGivesTheSameCA() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let reopened = try CertificateAuthority.loadOrCreate(directory: authority.directory)
        let loaded = try CertificateAuthority.load(directory: authority.directory)
        #expect(reopened.fingerprintSHA256 == authority.fingerprintSHA256)
        #expect(loaded.fingerprintSHA256 == authority.fingerprintSHA256)
        let other = try TLSFixtures.makeCertificateAuthority(in: directory, named: "other")
        #expect(other.fingerprintSHA256 != authority.fingerprintSHA256)
    }

    @Test func loadFailsClearlyWhenMissing() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let error = try #require(throws: TLSError.self) { try CertificateAuthority.load(directory: directory.path) }
        #expect(error.code == .caMissing)
        #expect(error.detail.contains("ca.pem"))
    }

    @Test func corruptCertificateIsAnErrorAndIsKept() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let garbage = "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n"
        try garbage.write(toFile: authority.certificatePath, atomically: false, encoding: .utf8)
        let error = try #require(throws: TLSError.self) {
            try CertificateAuthority.loadOrCreate(directory: authority.directory)
        }
        #expect(error.code == .caUnreadable)
        #expect(error.detail.contains(authority.directory))
        #expect(try String(contentsOfFile: authority.certificatePath, encoding: .utf8) == garbage)
    }

    @Test func certificateWithoutItsKeyIsNotReplaced() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        try FileManager.default.removeItem(atPath: authority.keyPath)
        let error = try #require(throws: TLSError.self) {
            try CertificateAuthority.loadOrCreate(directory: authority.directory)
        }
        #expect(error.code == .caMissing)
        #expect(try String(contentsOfFile: authority.certificatePath, encoding: .utf8) == authority.certificatePEM)
    }

    @Test func loneKeyIsReplacedByANewCA() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let oldKey = try String(contentsOfFile: authority.keyPath, encoding: .utf8)
        try FileManager.default.removeItem(atPath: authority.certificatePath)
        let replaced = try CertificateAuthority.loadOrCreate(directory: authority.directory)
        #expect(replaced.fingerprintSHA256 != authority.fingerprintSHA256)
        #expect(try String(contentsOfFile: replaced.keyPath, encoding: .utf8) != oldKey)
        #expect(
            try CertificateAuthority.load(directory: authority.directory).fingerprintSHA256
                == replaced.fingerprintSHA256)
    }

    @Test func keyOfAnotherCAIsRejected() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let other = try TLSFixtures.makeCertificateAuthority(in: directory, named: "other")
        try FileManager.default.removeItem(atPath: authority.keyPath)
        try FileManager.default.copyItem(atPath: other.keyPath, toPath: authority.keyPath)
        let error = try #require(throws: TLSError.self) {
            try CertificateAuthority.load(directory: authority.directory)
        }
        #expect(error.code == .caUnreadable)
    }

    @Test(arguments: [
        ("upload.example.test", "DNS:upload.example.test"),
        ("127.0.0.1", "IP Address:127.0.0.1"),
        ("[::1]", "IP Address:0:0:0:0:0:0:0:1"),
    ])
    func opensslVerifiesMintedLeaves(host: String, expectedName: String) throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let leaf = try authority.leaf(for: host)
        let leafPath = try directory.write(leaf.leaf.pem, to: "leaf.pem")
        let verify = try TLSFixtures.runTool("openssl", ["verify", "-CAfile", authority.certificatePath, leafPath])
        #expect(verify.status == 0)
        #expect(verify.standardOutput.contains("leaf.pem: OK"))
        let text = try TLSFixtures.runTool("openssl", ["x509", "-noout", "-text", "-in", leafPath])
        #expect(text.standardOutput.contains(expectedName))
        #expect(text.standardOutput.contains("TLS Web Server Authentication"))
        #expect(text.standardOutput.contains("CA:FALSE"))
        #expect(text.standardOutput.contains("Authority Key Identifier"))
        #expect(leaf.chain.count == 2)
        #expect(leaf.chain[1].fingerprintSHA256 == authority.fingerprintSHA256)
        #expect(leaf.leaf.issuer == authority.subject)
        #expect(!leaf.leaf.isCertificateAuthority)

        let stranger = try TLSFixtures.makeCertificateAuthority(in: directory, named: "stranger")
        let rejected = try TLSFixtures.runTool("openssl", ["verify", "-CAfile", stranger.certificatePath, leafPath])
        #expect(rejected.status != 0)
    }

    @Test func leavesAreCachedPerHost() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let first = try authority.leaf(for: "Alpha.Example.Test.")
        #expect(try authority.leaf(for: "alpha.example.test") === first)
        #expect(try authority.leaf(for: "beta.example.test") !== first)
        #expect(first.leaf.subject == "CN=alpha.example.test,O=Squall")
    }

    @Test func concurrentMintingGivesOneLeafPerHost() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let fingerprints = Mutex<[String: Set<String>]>([:])
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let host = "host\(index % 4).test"
            let fingerprint = (try? authority.leaf(for: host).leaf.fingerprintSHA256) ?? "failed"
            fingerprints.withLock { _ = $0[host, default: []].insert(fingerprint) }
        }
        let seen = fingerprints.withLock { $0 }
        #expect(seen.count == 4)
        #expect(seen.values.allSatisfy { $0.count == 1 && !$0.contains("failed") })
    }

    @Test(arguments: ["bad host", "evil.test,DNS:victim.test", "", "a..b"])
    func invalidHostsAreRefused(host: String) throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let error = try #require(throws: TLSError.self) { try authority.leaf(for: host) }
        #expect(error.code == .certificate)
    }

    @Test func identityRoundTripsThroughPEM() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let identity = try authority.leaf(for: "roundtrip.test")
        let certificatePath = try directory.write(identity.certificatePEM, to: "chain.pem")
        let keyPath = try directory.write(identity.privateKeyPEM, to: "key.pem")
        let loaded = try TLSIdentity.load(certificatePath: certificatePath, keyPath: keyPath)
        #expect(loaded.chain.map(\.fingerprintSHA256) == identity.chain.map(\.fingerprintSHA256))
        #expect(loaded.privateKeyPEM == identity.privateKeyPEM)

        let otherKey = try TLSPrivateKey.generateP256()
        let mismatch = try #require(throws: TLSError.self) {
            try TLSIdentity(chain: identity.chain, privateKey: otherKey)
        }
        #expect(mismatch.code == .certificate)
        let empty = try #require(throws: TLSError.self) { try TLSIdentity(chain: [], privateKey: otherKey) }
        #expect(empty.code == .certificate)
        let notPEM = try #require(throws: TLSError.self) { try TLSCertificate(pem: "hello") }
        #expect(notPEM.code == .certificate)
    }
}
