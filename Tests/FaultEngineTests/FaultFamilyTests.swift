import Testing

@testable import FaultEngine

/// Each action is its family's, whole: one family owns it, the family reads and writes it back under the name it
/// lists, and says what it does on the wire. The catalog of `FaultRuleEncodingTests.everyAction` covers every action.
struct FaultFamilyTests {
    static let actions: [FaultAction] = FaultRuleEncodingTests.everyAction.map { text in
        (try? FaultRule.parse(text))?.action ?? .reset
    }

    @Test(arguments: actions)
    func eachActionBelongsToOneFamilyWhichNamesAndListsIt(action: FaultAction) throws {
        let owners = FaultFamilies.all.filter { $0.owns(action) }
        #expect(owners.count == 1, "\(action) belongs to \(owners.count) families")
        let family = try #require(owners.first)
        #expect(family.keys[action.name] != nil, "\(family) does not list \(action.name)")
        #expect(FaultFamilies.family(named: action.name) == family)
    }

    @Test func everyListedActionIsReadByItsFamilyAndEveryFamilyIsRegistered() throws {
        let names = Set(Self.actions.map(\.name))
        #expect(names == Set(FaultFamilies.keysByName.keys), "the catalog misses an action some family lists")
        // The names are each one family's: no two families list the same action or toxic.
        let listed = FaultFamilies.all.reduce(0) { $0 + $1.keys.count }
        #expect(listed == FaultFamilies.keysByName.count)
        #expect(FaultFamilies.all.reduce(0) { $0 + $1.toxics.count } == FaultFamilies.toxics.count)
    }

    /// The wire primitives the proxy flow carries out, per action: the control, a cut is never a shape.
    @Test func eachActionSaysWhatItDoesOnTheWire() {
        #expect(FaultAction.reset.wire == .cut(reset: true))
        #expect(FaultAction.refuse.wire == .cut(reset: true))
        #expect(FaultAction.close.wire == .cut(reset: false))
        #expect(FaultAction.truncateResponse(afterBytes: 10).wire == .closeClient)
        #expect(FaultAction.dropResponse.wire == .dropFinalHead)
        #expect(FaultAction.stripInterim.wire == .stripInterim)
        #expect(FaultAction.slowClose(delay: .seconds(1)).wire == .shape(.slowClose(.seconds(1)), clientOnly: false))
        #expect(
            FaultAction.delayResponse(.seconds(2)).wire
                == .shape(.stall(.seconds(2), thenClose: false), clientOnly: true))
        #expect(
            FaultAction.expireAuth(challenge: "Bearer").wire
                == .answer(FaultResponse(status: 401, fields: [FaultHeader(name: "WWW-Authenticate", value: "Bearer")]))
        )
        #expect(FaultAction.reset.wire != .shape(.stall(nil, thenClose: false), clientOnly: false))
    }
}
