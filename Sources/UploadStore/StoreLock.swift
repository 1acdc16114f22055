import SquallNet

/// The `FolderLock` on a store folder, held while a `FileUploadStore` is open, so two servers never write one
/// store; a held lock is `storeInUse`.
enum StoreLock {
    static func take(_ directory: String) throws -> FolderLock {
        do {
            return try FolderLock(folder: directory)
        } catch {
            switch error {
            case .held: throw UploadStoreError(.storeInUse, path: directory, "\(directory) is open in another store")
            case .system(let call, let path, let errno): throw UploadStoreError.system(call, path: path, errno: errno)
            }
        }
    }
}
