// API keys. They come from systemd credentials (`LoadCredential=NAME:/path`, read from
// `$CREDENTIALS_DIRECTORY/NAME`) or from a key file only root (or the file's owner) can read. A key
// never appears in a log line, an error message, the status file or `--print` output: every text
// that leaves the fetcher goes through `Secrets.redact`.

#if canImport(Glibc)
import Glibc
import LinuxIO
#endif

/// A key; printing it prints a placeholder.
/// Why a key could not be read (never containing the key).
public struct SecretError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public let value: String
    public init(_ value: String) { self.value = value }
    public var description: String { "<key>" }
    public var debugDescription: String { "<key>" }
}

public enum Secrets {
    /// Where a provider's key comes from: `credential:NAME` (systemd), else a file path. A systemd
    /// credential named like the provider wins over `key-file`, so a unit can supply keys without
    /// the config naming them.
    public static func load(provider: String, keyFile: String?, environment: [String: String]) -> Result<Secret?, SecretError> {
        let credentials = environment["CREDENTIALS_DIRECTORY"]
        if let keyFile, keyFile.hasPrefix("credential:") {
            let name = String(keyFile.dropFirst("credential:".count))
            guard let credentials else { return .failure(SecretError("key-file = \(keyFile): no $CREDENTIALS_DIRECTORY (set LoadCredential=\(name):FILE in the unit)")) }
            return read(path: credentials + "/" + name, checkMode: false).map { Optional($0) }
        }
        if let credentials, FileSystem.isReadable(credentials + "/" + provider) {
            return read(path: credentials + "/" + provider, checkMode: false).map { Optional($0) }
        }
        guard let keyFile else { return .success(nil) }
        return read(path: keyFile, checkMode: true).map { Optional($0) }
    }

    /// The first line of the file, trimmed. A key file that group or others may read is refused: the
    /// point of a key file is that only root (or its owner) can read it.
    static func read(path: String, checkMode: Bool) -> Result<Secret, SecretError> {
        let bytes: [UInt8], mode: mode_t
        do { (bytes, mode) = try RegularFile.readWithMode(path, limit: 4096, followSymlinks: false) } catch {
            switch error {
            case .notRegularFile, .isDirectory: return .failure(SecretError("\(path): not a regular file"))
            case .tooLarge: return .failure(SecretError("\(path): larger than 4096 bytes; a key file holds one key"))
            case .system(let e) where e.rawValue == ELOOP: return .failure(SecretError("\(path): a symbolic link; name the key file itself"))
            default: return .failure(SecretError("\(path): cannot read the key: \(error)"))
            }
        }
        if checkMode && mode & 0o077 != 0 {
            return .failure(SecretError("\(path): the key file may be read by others (mode \(String(mode & 0o777, radix: 8))); chmod 600 it"))
        }
        guard !bytes.isEmpty else { return .failure(SecretError("\(path): the key file is empty")) }
        let line = bytes.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }).first ?? []
        let key = String(decoding: line, as: UTF8.self).filter { !$0.isWhitespace }
        guard !key.isEmpty else { return .failure(SecretError("\(path): the key file is empty")) }
        return .success(Secret(key))
    }

    /// `text` with every key (and its URL-encoded form) replaced by `<key>`.
    public static func redact(_ text: String, _ secrets: [Secret]) -> String {
        var out = text
        for secret in secrets where secret.value.count >= 4 {
            for form in Set([secret.value, urlEncode(secret.value)]) { out = out.replacing(form, with: "<key>") }
        }
        return out
    }
}
