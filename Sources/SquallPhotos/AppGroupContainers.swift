import Foundation
import Synchronization

/// Where the app group containers of the extension a host runs are: `app-groups` in the host's folder.
enum AppGroupContainers {
    static let root = Mutex<String?>(nil)

    /// The container of group `identifier`, created on first use; nil without a host folder or for an
    /// identifier that is not one path component.
    static func container(_ identifier: String) -> URL? {
        guard let root = root.withLock({ $0 }), !identifier.isEmpty, identifier != ".", identifier != "..",
            !identifier.contains("/"), !identifier.contains("\0")
        else { return nil }
        let path = root + "/" + identifier
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return nil
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }
}

#if !canImport(Darwin)
    extension FileManager {
        /// The shared container of the app group `groupIdentifier`, where an app and its extension keep what both
        /// read (on a phone, the group's folder; under Squall, `app-groups/<groupIdentifier>` in the folder of the
        /// host running the extension, the journal folder, so it outlives a killed and relaunched client as the
        /// journal does). Nil when no host with a folder was made in this process, as a phone answers nil for a
        /// group the app is not entitled to.
        public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
            AppGroupContainers.container(groupIdentifier)
        }
    }
#endif
