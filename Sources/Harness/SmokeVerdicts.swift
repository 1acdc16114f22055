import HTTPWire
import StructuredFields
import TLSKit

/// Judges a `SmokeObservation`: pure, so each verdict can be shown to fail on a doctored observation.
enum SmokeVerdicts {
    static func evaluate(_ observation: SmokeObservation) -> [SmokeStep] {
        [
            exchangeCompleted(observation),
            handshake(observation),
            interimResponse(observation),
            finalResponse(observation),
            integrity(observation),
            relay(observation),
            keyLog(observation),
        ]
    }

    static func exchangeCompleted(_ observation: SmokeObservation) -> SmokeStep {
        let problems =
            [observation.failure].compactMap { $0 } + observation.endpointFailures
            + observation.relayed.compactMap(\.failure)
        guard problems.isEmpty else {
            return SmokeStep(name: "exchange", passed: false, detail: problems.joined(separator: "; "))
        }
        return SmokeStep(
            name: "exchange", passed: true,
            detail: "local CA at \(observation.caCertificatePath ?? "?"); client, relay and endpoint on 127.0.0.1")
    }

    static func handshake(_ observation: SmokeObservation) -> SmokeStep {
        let client = observation.client?.session
        let relay = observation.relayed.first?.session
        let passed =
            client?.protocolVersion == "TLSv1.3" && client?.alpn == "http/1.1"
            && relay?.serverName == "localhost"
        let seen =
            "client: \(client?.protocolVersion ?? "none") \(client?.cipher ?? "") ALPN \(client?.alpn ?? "none"); "
            + "relay saw SNI \(relay?.serverName ?? "none")"
        return SmokeStep(
            name: "tls", passed: passed,
            detail: passed ? seen : "expected TLSv1.3, ALPN http/1.1, SNI localhost; \(seen)")
    }

    static func interimResponse(_ observation: SmokeObservation) -> SmokeStep {
        let interim = observation.client?.interim ?? []
        let expected =
            "one 104 with Location and Upload-Draft-Interop-Version \(observation.configuration.interopVersion)"
        guard interim.count == 1, let head = interim.first, head.status == 104,
            let location = head.fields["location"], location.hasPrefix("/upload/"),
            head.fields["upload-draft-interop-version"] == String(observation.configuration.interopVersion)
        else {
            let seen = interim.map { "\($0.status) \($0.fields)" }.joined(separator: " | ")
            return SmokeStep(name: "104", passed: false, detail: "expected \(expected); saw [\(seen)]")
        }
        return SmokeStep(name: "104", passed: true, detail: "104 Upload Resumption Supported, Location \(location)")
    }

    static func finalResponse(_ observation: SmokeObservation) -> SmokeStep {
        let size = observation.configuration.bodySize
        guard let final = observation.client?.final else {
            return SmokeStep(name: "201", passed: false, detail: "expected 201 Created; no final response")
        }
        let offset = try? StructuredFieldParser.parseItem(final.fields["upload-offset"] ?? "").asInteger()
        let complete = try? StructuredFieldParser.parseItem(final.fields["upload-complete"] ?? "").asBoolean()
        let sameLocation = final.fields["location"] == observation.client?.interim.first?.fields["location"]
        guard final.status == 201, offset == Int64(size), complete == true, sameLocation else {
            return SmokeStep(
                name: "201", passed: false,
                detail: "expected 201, Upload-Offset \(size), Upload-Complete ?1, the 104's Location; "
                    + "saw \(final.status) \(final.fields)")
        }
        return SmokeStep(name: "201", passed: true, detail: "201 Created, Upload-Offset \(size), Upload-Complete ?1")
    }

    static func integrity(_ observation: SmokeObservation) -> SmokeStep {
        let sent = observation.client?.sentSHA256 ?? "nothing sent"
        let stored = observation.received.first?.sha256 ?? "nothing stored"
        let announced = observation.client?.final?.fields["repr-digest"].flatMap {
            try? StructuredFieldParser.parseDictionary($0).byteSequence("sha-256")
        }
        let announcedHex = announced.map(SHA256Digest.hexString) ?? "none"
        guard observation.received.count == 1, sent == stored, announcedHex == sent else {
            return SmokeStep(
                name: "sha-256", passed: false,
                detail:
                    "expected one upload with SHA-256 \(sent); endpoint stored \(stored), Repr-Digest \(announcedHex)")
        }
        return SmokeStep(name: "sha-256", passed: true, detail: "endpoint and Repr-Digest match the client: \(sent)")
    }

    static func relay(_ observation: SmokeObservation) -> SmokeStep {
        guard observation.relayed.count == 1, let report = observation.relayed[0].report else {
            return SmokeStep(
                name: "relay", passed: false,
                detail: "expected one relayed connection; saw \(observation.relayed.count)")
        }
        let minimum = Int64(observation.configuration.bodySize)
        let carried = report.toUpstream.bytesDelivered
        guard report.isClean, carried > minimum, report.toDownstream.bytesDelivered > 0 else {
            return SmokeStep(
                name: "relay", passed: false,
                detail: "expected a clean close and more than \(minimum) bytes upstream; saw \(report)")
        }
        return SmokeStep(
            name: "relay", passed: true,
            detail: "\(carried) bytes up, \(report.toDownstream.bytesDelivered) down, both sides closed cleanly")
    }

    static func keyLog(_ observation: SmokeObservation) -> SmokeStep {
        let secrets = observation.keyLogLines.filter { $0.hasPrefix("CLIENT_TRAFFIC_SECRET_0 ") }
        guard secrets.count == 2, Set(secrets).count == 1 else {
            return SmokeStep(
                name: "keylog", passed: false,
                detail: "expected the same CLIENT_TRAFFIC_SECRET_0 line from client and relay; saw \(secrets.count)")
        }
        return SmokeStep(
            name: "keylog", passed: true,
            detail: "\(observation.keyLogLines.count) SSLKEYLOGFILE lines, both legs agree")
    }
}
