import Foundation
import Glibc
import SquallNet
import Testing

struct PrivateFileTests {
    private func mode(_ path: String) -> mode_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o777 : 0
    }

    private func folder() throws -> String {
        let path = NSTemporaryDirectory() + "squall-private-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    @Test func aNewFileIsCreatedForItsOwnerOnly() throws {
        let base = try folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let descriptor = PrivateFile.open(base + "/new.pcap", flags: O_WRONLY | O_TRUNC)
        #expect(descriptor >= 0)
        close(descriptor)
        #expect(mode(base + "/new.pcap") == 0o600)
    }

    /// `open` keeps an existing file's mode; a key log or transcript reused from an earlier run is made private.
    @Test func anExistingFileOthersCouldReadIsMadePrivate() throws {
        let base = try folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = base + "/keylog.txt"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old\n".utf8)))
        #expect(chmod(path, 0o644) == 0)
        let descriptor = PrivateFile.open(path, flags: O_WRONLY | O_APPEND)
        #expect(descriptor >= 0)
        close(descriptor)
        #expect(mode(path) == 0o600)
        #expect(FileManager.default.contents(atPath: path) == Data("old\n".utf8), "appending keeps what was there")
    }

    /// A FIFO (as `/dev/null` or a pipe a tool reads) is not a file to protect: its mode stays.
    @Test func aFifoKeepsItsMode() throws {
        let base = try folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = base + "/pipe"
        #expect(mkfifo(path, 0o644) == 0)
        #expect(chmod(path, 0o644) == 0)
        let descriptor = PrivateFile.open(path, flags: O_RDWR | O_NONBLOCK)
        #expect(descriptor >= 0)
        close(descriptor)
        #expect(mode(path) == 0o644)
    }

    @Test func aFailureLeavesErrno() {
        let descriptor = PrivateFile.open("/nonexistent-squall-folder/file", flags: O_WRONLY)
        #expect(descriptor == -1 && errno == ENOENT)
    }
}
