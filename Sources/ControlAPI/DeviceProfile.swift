import Foundation
import SquallCore

/// The proxy's CA as a phone installs it: the certificate (PEM) and an Apple configuration profile
/// (`.mobileconfig`, a property list with one `com.apple.security.root` payload holding the certificate's DER).
///
/// Installing the profile (Settings ▸ General ▸ VPN & Device Management) adds the root; iOS then asks for full
/// trust separately (Settings ▸ General ▸ About ▸ Certificate Trust Settings). The profile's identifiers and UUIDs
/// derive from the certificate's fingerprint, so the same CA always gives the same profile and a new CA another.
public struct DeviceProfile: Sendable, Hashable {
    /// The CA certificate, PEM.
    public var certificatePEM: String
    /// Its SHA-256 fingerprint, hex (colons allowed), which names the profile.
    public var fingerprint: String
    /// Its subject, shown by the phone.
    public var subject: String

    public init(certificatePEM: String, fingerprint: String, subject: String) {
        self.certificatePEM = certificatePEM
        self.fingerprint = fingerprint
        self.subject = subject
    }

    /// The certificate's DER, from the PEM's base64 body; nil when the PEM holds no certificate.
    public var certificateDER: [UInt8]? {
        var inside = false
        var base64 = ""
        for line in certificatePEM.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("-----BEGIN CERTIFICATE-----") {
                inside = true
            } else if line.hasPrefix("-----END CERTIFICATE-----") {
                break
            } else if inside {
                base64 += line.trimmingCharacters(in: .whitespaces)
            }
        }
        // No CERTIFICATE block at all is no certificate (the empty string would decode to no bytes).
        guard !base64.isEmpty else { return nil }
        return Data(base64Encoded: base64).map(Array.init)
    }

    /// The configuration profile (an XML property list), or nil when the PEM holds no certificate.
    public var mobileconfig: String? {
        guard let der = certificateDER else { return nil }
        let hex = fingerprint.filter(\.isHexDigit).uppercased()
        let short = String(hex.prefix(16))
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        let subject = XMLText.text(subject)
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
              <key>PayloadContent</key>
              <array>
                <dict>
                  <key>PayloadCertificateFileName</key>
                  <string>squall-ca.cer</string>
                  <key>PayloadContent</key>
                  <data>
            \(body)
                  </data>
                  <key>PayloadDescription</key>
                  <string>Adds the Squall chaos proxy's CA (\(subject)), so that the proxy can terminate TLS.</string>
                  <key>PayloadDisplayName</key>
                  <string>\(subject)</string>
                  <key>PayloadIdentifier</key>
                  <string>dev.squall.ca.\(short).root</string>
                  <key>PayloadType</key>
                  <string>com.apple.security.root</string>
                  <key>PayloadUUID</key>
                  <string>\(Self.uuid(hex, variant: "1"))</string>
                  <key>PayloadVersion</key>
                  <integer>1</integer>
                </dict>
              </array>
              <key>PayloadDescription</key>
              <string>For testing uploads through the Squall chaos proxy only. Remove it when done: Settings, General, VPN &amp; Device Management.</string>
              <key>PayloadDisplayName</key>
              <string>Squall chaos proxy CA (\(short))</string>
              <key>PayloadIdentifier</key>
              <string>dev.squall.ca.\(short)</string>
              <key>PayloadRemovalDisallowed</key>
              <false/>
              <key>PayloadType</key>
              <string>Configuration</string>
              <key>PayloadUUID</key>
              <string>\(Self.uuid(hex, variant: "0"))</string>
              <key>PayloadVersion</key>
              <integer>1</integer>
            </dict>
            </plist>

            """
    }

    /// A UUID-shaped string from the fingerprint's hex (the last digit replaced by `variant`, so the profile's and
    /// its payload's differ).
    static func uuid(_ hex: String, variant: Character) -> String {
        var digits = Array(hex.padding(toLength: 32, withPad: "0", startingAt: 0).prefix(32))
        digits[12] = "4"
        digits[31] = variant
        let text = String(digits)
        let cuts = [8, 12, 16, 20]
        var parts: [Substring] = []
        var start = text.startIndex
        for cut in cuts {
            let end = text.index(text.startIndex, offsetBy: cut)
            parts.append(text[start..<end])
            start = end
        }
        parts.append(text[start...])
        return parts.joined(separator: "-")
    }
}
