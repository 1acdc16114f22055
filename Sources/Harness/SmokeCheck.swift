import Foundation
import HTTPWire
import SquallNet
import TLSKit

/// The end-to-end check `squall run` performs until the scenario harness exists: every layer of the
/// foundation in one real exchange on loopback.
///
/// ```
/// SmokeClient ──TLS 1.3──▶ TerminatingRelay ──plain HTTP/1.1──▶ SmokeUploadEndpoint
///  (TLSKit, HTTPWire)       (CA leaf per SNI, SquallNet.Relay)    (HTTPWire, StructuredFields, SHA-256)
/// ```
/// A fresh local CA is created in a temporary folder, the client uploads seeded content with a resumable
/// upload creation request, and `SmokeVerdicts` judges what each part observed.
public enum SmokeCheck {
    /// What to upload and where to keep the artifacts. Defaults: 8 MiB, seed 1, interop version 6.
    public struct Configuration: Sendable {
        /// Body size in bytes. Default 8 MiB.
        public var bodySize = 8 * 1024 * 1024
        /// Seed of the body's content. Default 1.
        public var seed: UInt64 = 1
        /// `Upload-Draft-Interop-Version` the client sends. Default 6.
        public var interopVersion = 6
        /// Folder for the CA and the key log; nil makes a temporary one that is removed afterwards.
        public var artifactsDirectory: String?
        /// How long the exchange may take. Default 60 s.
        public var timeout: Duration = .seconds(60)

        public init() {}
    }

    /// Runs the check and returns each step's verdict.
    public static func run(_ configuration: Configuration = Configuration()) -> SmokeReport {
        let started = ContinuousClock.now
        let temporary = configuration.artifactsDirectory == nil
        let directory =
            configuration.artifactsDirectory ?? NSTemporaryDirectory() + "squall-smoke-\(UUID().uuidString)"
        defer { if temporary { try? FileManager.default.removeItem(atPath: directory) } }

        var observation = SmokeObservation(configuration: configuration)
        do {
            try exchange(configuration, in: directory, observing: &observation)
        } catch {
            observation.failure = "\(error)"
        }
        let steps = SmokeVerdicts.evaluate(observation)
        return SmokeReport(steps: steps, duration: ContinuousClock.now - started, artifactsDirectory: directory)
    }

    private static func exchange(
        _ configuration: Configuration, in directory: String, observing observation: inout SmokeObservation
    ) throws {
        let authority = try CertificateAuthority.loadOrCreate(directory: directory + "/ca")
        observation.caCertificatePath = authority.certificatePath
        let keyLogPath = directory + "/keylog.txt"
        let keyLog = try KeyLog(path: keyLogPath)
        let endpoint = try SmokeUploadEndpoint(timeout: configuration.timeout)
        let relay = try TerminatingRelay(authority: authority, upstream: endpoint.address, keyLog: keyLog)
        defer {
            // What the relay and the endpoint saw counts even when the client failed.
            relay.stop()
            endpoint.stop()
            keyLog.close()
            observation.relayed = relay.connections
            observation.received = endpoint.received
            observation.endpointFailures = endpoint.failures
            observation.keyLogLines =
                (try? String(contentsOfFile: keyLogPath, encoding: .utf8))?
                .split(separator: "\n").map(String.init) ?? []
        }

        var clientConfiguration = TLSClientConfiguration(trust: .caFile(authority.certificatePath))
        clientConfiguration.keyLog = keyLog
        let client = SmokeClient(
            address: relay.address, serverName: "localhost", context: try TLSContext(client: clientConfiguration),
            content: UploadContent(seed: configuration.seed, length: configuration.bodySize),
            interopVersion: configuration.interopVersion, timeout: configuration.timeout)
        observation.client = try client.upload()
    }
}
