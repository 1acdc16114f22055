import Foundation

/// One file to upload: its identity for the job model (its absolute path, stable across relaunches of the same
/// command) and its size.
public struct UploadAsset: Sendable, Hashable, Codable {
    public var id: String
    public var path: String
    public var size: Int64

    public init(path: String, size: Int64) {
        self.id = path
        self.path = path
        self.size = size
    }

    /// The regular files named by `paths`, folders walked recursively, each once, sorted by path. A path that
    /// does not exist or is neither a file nor a folder is an error naming it.
    public static func collect(_ paths: [String]) throws -> [UploadAsset] {
        var found: [String: UploadAsset] = [:]
        let manager = FileManager.default
        for given in paths {
            let path = URL(fileURLWithPath: given).standardizedFileURL.path
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw AssetError("no such file or folder: \(given)")
            }
            let files = isFolder.boolValue ? try filesUnder(path) : [path]
            for file in files {
                let attributes = try manager.attributesOfItem(atPath: file)
                guard attributes[.type] as? FileAttributeType == .typeRegular else {
                    if isFolder.boolValue { continue }
                    throw AssetError("not a regular file: \(given)")
                }
                let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
                found[file] = UploadAsset(path: file, size: size)
            }
        }
        return found.values.sorted { $0.path < $1.path }
    }

    private static func filesUnder(_ folder: String) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else {
            throw AssetError("cannot read the folder \(folder)")
        }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            files.append(folder + "/" + relative)
        }
        return files
    }
}

/// A file argument that cannot be uploaded.
public struct AssetError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
