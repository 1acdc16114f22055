import SquallNet

/// The `FolderLock` on a journal folder, held while a `JobJournal` is open, so two clients never write one
/// journal; a held lock is `journalInUse`.
enum JournalLock {
    static func take(_ folder: String) throws(JobJournalError) -> FolderLock {
        do {
            return try FolderLock(folder: folder)
        } catch {
            switch error {
            case .held:
                throw JobJournalError(
                    .journalInUse, path: folder, "the job journal \(folder) is open in another client")
            case .system(let call, let path, let errno): throw JobJournalError.system(call, path: path, errno: errno)
            }
        }
    }
}
