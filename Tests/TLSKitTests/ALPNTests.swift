import Testing

@testable import TLSKit

struct ALPNTests {
    @Test func encodesLengthPrefixedNames() throws {
        #expect(try ALPN.encode(["h2", "http/1.1"]) == [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8))
        #expect(try ALPN.encode([]) == [])
        #expect(throws: TLSError.self) { try ALPN.encode([""]) }
    }

    @Test func selectsTheServersFirstPreferenceTheClientOffers() throws {
        let offered = try ALPN.encode(["h2", "http/1.1", "acme"])
        let pick = { (preferred: [String]) in
            offered.withUnsafeBufferPointer { buffer in
                ALPN.select(preferred: preferred.map { Array($0.utf8) }, offered: buffer)
                    .map { String(decoding: offered[$0], as: UTF8.self) }
            }
        }
        #expect(pick(["http/1.1"]) == "http/1.1")
        #expect(pick(["acme", "h2"]) == "acme")
        #expect(pick(["spdy/3"]) == nil)
        #expect(pick([]) == nil)
    }

    @Test(arguments: [[5, 0x68, 0x32], [0], [2, 0x68, 0x32, 9]] as [[UInt8]])
    func malformedOffersSelectNothing(offered: [UInt8]) {
        let pick = offered.withUnsafeBufferPointer { ALPN.select(preferred: [Array("h2".utf8)], offered: $0) }
        #expect(pick == nil)
    }
}
