// Feed's file reads go through LinuxIO's one bounded reader (regular files only, opened
// non-blocking, never more than the limit in memory); this maps its errors to `FeedError` so
// callers never see a bare errno.

import LinuxIO

enum FileBytes {
    /// Why a directory cannot be read as a file (callers may treat it as "not found").
    static let directoryReason = "it is a directory"

    /// The whole file at `path`, refusing anything larger than `limit` bytes.
    static func read(path: String, limit: Int) throws(FeedError) -> [UInt8] {
        do { return try RegularFile.read(path, limit: limit) } catch {
            switch error {
            case .notFound: throw .fileNotFound(path: path)
            case .isDirectory: throw .unreadable(path: path, reason: directoryReason)
            case .notRegularFile: throw .unreadable(path: path, reason: "not a regular file")
            case .tooLarge(let bytes, let limit): throw .fileTooLarge(path: path, bytes: bytes, limit: limit)
            case .system(let e): throw .unreadable(path: path, reason: e.description)
            }
        }
    }
}
