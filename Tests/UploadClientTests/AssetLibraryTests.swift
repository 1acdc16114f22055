import Testing
import UploadClient

/// Change tracking of the file library the CLI uses and of the mutable library tests and the harness use.
struct AssetLibraryTests {
    static func expectExpired(_ library: any AssetLibrary, since token: ChangeToken) {
        #expect(throws: AssetLibraryError.self) { try library.changes(since: token) }
        do {
            _ = try library.changes(since: token)
        } catch let error as AssetLibraryError {
            #expect(error.code == .persistentChangeTokenExpired)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func aFileLibraryFetchesEachAssetOnceInOrder() throws {
        let library = FileAssetLibrary(assetIDs: ["/b", "/a", "/b", "/c"])
        let full = try library.changes(since: nil)
        #expect(library.assetIDs == ["/b", "/a", "/c"])
        #expect(full.inserted == ["/b", "/a", "/c"])
        #expect(full.updated.isEmpty)
        #expect(full.token.library == library.name)
    }

    @Test func aFileLibraryTokenStaysValidAndReportsNoChange() throws {
        let library = FileAssetLibrary(assetIDs: ["/a", "/b"])
        let token = try library.changes(since: nil).token
        let again = try library.changes(since: token)
        #expect(again.inserted.isEmpty)
        #expect(again.updated.isEmpty)
        #expect(again.token == token)
        #expect(FileAssetLibrary(assetIDs: ["/a", "/b"]).name == library.name)
    }

    @Test func aFileLibraryRefusesTheTokenOfAnotherList() throws {
        let first = FileAssetLibrary(assetIDs: ["/a", "/b"])
        let other = FileAssetLibrary(assetIDs: ["/a", "/b", "/c"])
        #expect(first.name != other.name)
        #expect(first.name.count == "files-".count + 16)
        Self.expectExpired(other, since: try first.changes(since: nil).token)
        Self.expectExpired(first, since: ChangeToken(library: first.name, generation: 1, position: 0))
    }

    @Test func aMutableLibraryReportsInsertionsAndUpdatesSinceAToken() throws {
        let library = MutableAssetLibrary(assetIDs: ["/a", "/b"])
        let start = try library.changes(since: nil)
        #expect(start.inserted == ["/a", "/b"])
        library.add(["/c", "/a", "/d"])
        library.update(["/b", "/c", "/unknown"])
        let changes = try library.changes(since: start.token)
        #expect(changes.inserted == ["/c", "/d"])
        #expect(changes.updated == ["/a", "/b"])
        #expect(library.assetIDs == ["/a", "/b", "/c", "/d"])
        let none = try library.changes(since: changes.token)
        #expect(none.inserted.isEmpty && none.updated.isEmpty)
        #expect(none.token == changes.token)
        #expect(try library.changes(since: nil).inserted == ["/a", "/b", "/c", "/d"])
    }

    @Test func expiringTokensRefusesEveryOlderTokenAndAFullFetchStillWorks() throws {
        let library = MutableAssetLibrary(name: "photos", assetIDs: ["/a"])
        let old = try library.changes(since: nil).token
        library.expireChangeTokens()
        library.add(["/b"])
        Self.expectExpired(library, since: old)
        let full = try library.changes(since: nil)
        #expect(full.inserted == ["/a", "/b"])
        #expect(full.token.generation == old.generation + 1)
        library.add(["/c"])
        #expect(try library.changes(since: full.token).inserted == ["/c"])
    }

    @Test func aMutableLibraryRefusesForeignAndFutureTokens() throws {
        let library = MutableAssetLibrary(name: "photos", assetIDs: ["/a"])
        let token = try library.changes(since: nil).token
        Self.expectExpired(library, since: ChangeToken(library: "other", generation: 0, position: 1))
        Self.expectExpired(library, since: ChangeToken(library: "photos", generation: 0, position: token.position + 1))
        #expect(try library.changes(since: token).inserted.isEmpty)
    }
}
